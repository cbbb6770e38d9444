package libvirtops

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// Volume is the adapter for storage volumes, addressed by key.
type Volume struct{ c *libvirtconn.Client }

// Volumes returns the volume adapter on this connection.
func Volumes(c *libvirtconn.Client) Volume { return Volume{c: c} }

// volumeByID finds a volume by key, or by "pool/name".
func volumeByID(l *libvirt.Libvirt, id string) (libvirt.StorageVol, error) {
	vol, err := l.StorageVolLookupByKey(id)
	if err == nil {
		return vol, nil
	}
	poolName, name, ok := strings.Cut(id, "/")
	if !ok || poolName == "" || name == "" || strings.Contains(name, "/") {
		return vol, err
	}
	pool, perr := l.StoragePoolLookupByName(poolName)
	if perr != nil {
		return vol, perr
	}
	return l.StorageVolLookupByName(pool, name)
}

// LookUp resolves the volume key (its path for file pools) or "pool/name"
// to the volume's key.
func (v Volume) LookUp(ctx context.Context, importID string) (key string, err error) {
	err = v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		vol, err := volumeByID(l, importID)
		key = vol.Key
		return err
	})
	return key, err
}

// Find resolves a data source's `key`, or `pool` and `name`, to the
// volume's key.
func (v Volume) Find(ctx context.Context, by map[string]string) (key string, err error) {
	err = v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		if k, ok := by["key"]; ok {
			vol, err := l.StorageVolLookupByKey(k)
			key = vol.Key
			return err
		}
		pool, err := l.StoragePoolLookupByName(by["pool"])
		if err != nil {
			return err
		}
		vol, err := l.StorageVolLookupByName(pool, by["name"])
		key = vol.Key
		return err
	})
	return key, err
}

// Progress starts reporting a long transfer (op "upload", "copy"...) of
// volume from from, whose bytes done so far done returns, out of total; the
// returned stop ends it. The provider logs it; nil reports nothing.
type Progress func(op, volume, from string, done func() int64, total int64) (stop func())

func (p Progress) start(op, volume, from string, done func() int64, total int64) (stop func()) {
	if p == nil {
		return func() {}
	}
	return p(op, volume, from, done, total)
}

// VolumeState is what Fetch reads: the definition, and the key, pool and
// path libvirt reports.
type VolumeState struct {
	Doc             *libvirtxml.StorageVolume
	Key, Pool, Path string
}

// Fetch reads the volume with this key (or "pool/name").
func (v Volume) Fetch(ctx context.Context, key string) (*VolumeState, error) {
	var xml string
	var vol libvirt.StorageVol
	err := v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		if vol, err = volumeByID(l, key); err != nil {
			return err
		}
		xml, err = l.StorageVolGetXMLDesc(vol, 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	var doc libvirtxml.StorageVolume
	if err := doc.Unmarshal(xml); err != nil {
		return nil, fmt.Errorf("parsing volume XML: %w", err)
	}
	volPath := ""
	if doc.Target != nil {
		volPath = doc.Target.Path
	}
	if volPath == "" {
		volPath = vol.Key
	}
	return &VolumeState{Doc: &doc, Key: vol.Key, Pool: vol.Pool, Path: volPath}, nil
}

// lookUp finds a volume by pool and name (re-dialling if needed).
func (v Volume) lookUp(ctx context.Context, poolName, name string) (libvirt.StorageVol, error) {
	var vol libvirt.StorageVol
	err := v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		pool, err := l.StoragePoolLookupByName(poolName)
		if err != nil {
			return err
		}
		vol, err = l.StorageVolLookupByName(pool, name)
		return err
	})
	return vol, err
}

// Exists reports whether the pool has a volume of that name.
func (v Volume) Exists(ctx context.Context, poolName, name string) (bool, error) {
	_, err := v.lookUp(ctx, poolName, name)
	if err == nil {
		return true, nil
	}
	if libvirtconn.IsNotFound(err) {
		return false, nil
	}
	return false, err
}

// RemoveIfPresent deletes the named volume after a failed create; removed
// says whether there was one.
func (v Volume) RemoveIfPresent(ctx context.Context, poolName, name string) (removed bool, err error) {
	vol, err := v.lookUp(ctx, poolName, name)
	if libvirtconn.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	err = v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		unlock := HostOf(v.c).locks.Lock(poolName)
		defer unlock()
		return l.StorageVolDelete(vol, 0)
	})
	if err != nil && !libvirtconn.IsNotFound(err) {
		return false, err
	}
	return true, nil
}

// RemoveKey deletes the volume with this key: a volume created but not
// recorded, which nobody would delete otherwise.
func (v Volume) RemoveKey(ctx context.Context, key string) error {
	return v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		vol, err := l.StorageVolLookupByKey(key)
		if err != nil {
			return err
		}
		unlock := HostOf(v.c).locks.Lock(vol.Pool)
		defer unlock()
		return l.StorageVolDelete(vol, 0)
	})
}

// FindPool checks that the pool exists.
func (v Volume) FindPool(ctx context.Context, poolName string) error {
	return v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		_, err := l.StoragePoolLookupByName(poolName)
		return err
	})
}

// PoolFree is the free space of the pool, in bytes.
func (v Volume) PoolFree(ctx context.Context, poolName string) (free uint64, err error) {
	err = v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		pool, err := l.StoragePoolLookupByName(poolName)
		if err != nil {
			return err
		}
		_, _, _, free, err = l.StoragePoolGetInfo(pool)
		return err
	})
	return free, err
}

// PoolDefinition reads the definition of the pool called name.
func (v Volume) PoolDefinition(ctx context.Context, name string) (def *libvirtxml.StoragePool, err error) {
	err = v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		def, err = poolDefinition(l, name)
		return err
	})
	return def, err
}

func poolDefinition(l *libvirt.Libvirt, name string) (*libvirtxml.StoragePool, error) {
	pool, err := l.StoragePoolLookupByName(name)
	if err != nil {
		return nil, err
	}
	xml, err := l.StoragePoolGetXMLDesc(pool, 0)
	if err != nil {
		return nil, fmt.Errorf("reading pool %q: %w", pool.Name, err)
	}
	var doc libvirtxml.StoragePool
	if err := doc.Unmarshal(xml); err != nil {
		return nil, fmt.Errorf("parsing pool %q's XML: %w", pool.Name, err)
	}
	return &doc, nil
}

// CreateEmpty creates doc in the pool without content. When the answer is
// lost with the connection, the volume is looked up on a new one (it did
// not exist before, so if it exists now this call made it); unknown says
// that neither the answer nor a look-up tells whether it exists.
func (v Volume) CreateEmpty(ctx context.Context, poolName string, doc *libvirtxml.StorageVolume) (key string, unknown bool, err error) {
	xml, err := doc.Marshal()
	if err != nil {
		return "", false, fmt.Errorf("writing volume XML: %w", err)
	}
	// Look the pool up through Do, which re-dials a broken connection; the
	// create then uses that connection directly: it must not be repeated
	// blindly on a new one.
	var l *libvirt.Libvirt
	var pool libvirt.StoragePool
	err = v.c.Do(ctx, func(conn *libvirt.Libvirt) error {
		var err error
		l = conn
		pool, err = conn.StoragePoolLookupByName(poolName)
		return err
	})
	if err != nil {
		return "", false, err
	}
	var vol libvirt.StorageVol
	err = retryBuild(func() error {
		unlock := HostOf(v.c).locks.Lock(poolName)
		defer unlock()
		var err error
		vol, err = l.StorageVolCreateXML(pool, xml, 0)
		return err
	}, func() bool {
		// libvirt removes a volume whose build failed; try again only when
		// a look-up agrees, so a retry never meets a half-built one.
		exists, err := v.Exists(ctx, poolName, doc.Name)
		return l.IsConnected() && err == nil && !exists
	})
	if err != nil && !l.IsConnected() {
		if found, lerr := v.lookUp(ctx, poolName, doc.Name); lerr == nil {
			vol, err = found, nil
		}
	}
	if err != nil {
		return "", !l.IsConnected(), fmt.Errorf("creating volume %q in pool %q: %w", doc.Name, poolName, err)
	}
	return vol.Key, false, nil
}

// buildAttempts bounds the retries of a volume build that failed for a
// reason that passes (see transientBuildFailure).
const buildAttempts = 3

// transientBuildFailure reports whether a volume build failed for a reason
// that passes when tried again. qemu-img sizes a LUKS volume's key
// derivation by timing PBKDF2 against the thread's CPU time; on a host whose
// CPU accounting ticks coarser than that first round takes, it reads zero
// and gives up with "Unable to get accurate CPU usage". The next run
// usually measures.
func transientBuildFailure(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Unable to get accurate CPU usage")
}

// retryBuild runs create, again (up to buildAttempts in all) while it fails
// for a transient reason and gone says the failed attempt left nothing.
func retryBuild(create func() error, gone func() bool) error {
	var err error
	for attempt := 1; attempt <= buildAttempts; attempt++ {
		if err = create(); err == nil || !transientBuildFailure(err) || !gone() {
			return err
		}
	}
	return err
}

// Grow grows the volume to size bytes (see growVolume); live names the
// disks of running domains grown through QEMU.
func (v Volume) Grow(ctx context.Context, key, volPath string, size uint64) (live []string, err error) {
	err = v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		vol, err := volumeByID(l, key)
		if err != nil {
			return err
		}
		unlock := HostOf(v.c).locks.Lock(vol.Pool)
		defer unlock()
		live, err = growVolume(l, vol, volPath, size)
		return err
	})
	return live, err
}

// Delete deletes the volume, unless other volumes use it as their backing
// file: libvirt would delete a base image under its overlays.
func (v Volume) Delete(ctx context.Context, key string) error {
	return v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		vol, err := volumeByID(l, key)
		if err != nil {
			return err
		}
		xml, err := l.StorageVolGetXMLDesc(vol, 0)
		if err != nil {
			return err
		}
		var doc libvirtxml.StorageVolume
		if err := doc.Unmarshal(xml); err != nil {
			return fmt.Errorf("parsing volume XML: %w", err)
		}
		volPath := key
		if doc.Target != nil && doc.Target.Path != "" {
			volPath = doc.Target.Path
		}
		// libvirt deletes a base image that overlays still use: refuse here
		users, err := backingUsers(l, volPath)
		if err != nil {
			return err
		}
		if len(users) > 0 {
			return fmt.Errorf("volume %s is the backing file of %s; delete those volumes first", volPath, strings.Join(users, ", "))
		}
		unlock := HostOf(v.c).locks.Lock(vol.Pool)
		defer unlock()
		return l.StorageVolDelete(vol, 0)
	})
}

// backingUsers lists the volumes, in every active pool, whose backing store
// is path.
func backingUsers(l *libvirt.Libvirt, volPath string) ([]string, error) {
	pools, _, err := l.ConnectListAllStoragePools(1, libvirt.ConnectListStoragePoolsActive)
	if err != nil {
		return nil, fmt.Errorf("listing pools to check for overlays: %w", err)
	}
	var users []string
	for _, p := range pools {
		vols, _, err := l.StoragePoolListAllVolumes(p, 1, 0)
		if err != nil {
			continue // pool stopped meanwhile
		}
		for _, v := range vols {
			if v.Key == volPath {
				continue
			}
			xml, err := l.StorageVolGetXMLDesc(v, 0)
			if err != nil {
				continue // deleted meanwhile
			}
			if !strings.Contains(xml, "<backingStore>") {
				continue
			}
			var doc libvirtxml.StorageVolume
			if doc.Unmarshal(xml) == nil && doc.BackingStore != nil && doc.BackingStore.Path == volPath {
				users = append(users, v.Key)
			}
		}
	}
	sort.Strings(users)
	return users, nil
}

// Compare compares the volume with this key with the content open opens
// (again when the connection broke mid-way: a half-read source cannot be
// compared); a nil difference means the volume begins with the whole
// content. The source read, closed, is returned with it: after a match its
// Digest and Written say what was verified.
func (v Volume) Compare(ctx context.Context, key string, open func() (*storage.Source, error)) (*storage.Difference, *storage.Source, error) {
	var diff *storage.Difference
	var read *storage.Source
	err := v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		vol, err := volumeByID(l, key)
		if err != nil {
			return err
		}
		src, err := open()
		if err != nil {
			return err
		}
		defer src.Close()
		read = src
		diff, err = storage.Compare(ctx, l, vol, src)
		return err
	})
	return diff, read, err
}

// Digest reads the first length bytes of the volume with this key through
// libvirt's download stream and returns their digest (see
// storage.DigestVolume).
func (v Volume) Digest(ctx context.Context, key, algorithm string, length int64) (storage.Checksum, error) {
	var sum storage.Checksum
	err := v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		vol, err := volumeByID(l, key)
		if err != nil {
			return err
		}
		sum, err = storage.DigestVolume(ctx, l, vol, algorithm, length)
		return err
	})
	return sum, err
}

// CloneSource names the volume to copy: by key, or by name in Pool (the new
// volume's pool when empty).
type CloneSource struct{ Volume, Pool string }

// Clone creates doc as a full copy of src, at least want bytes large (0:
// the source's size), on a connection of its own (the copy runs inside
// libvirtd, as long as it takes), reporting progress from the copy's
// allocation. unknown reports that the connection broke, so whether the
// copy exists is not known.
func (v Volume) Clone(ctx context.Context, poolName string, doc *libvirtxml.StorageVolume, want uint64, src CloneSource, progress Progress) (key string, unknown bool, err error) {
	l, err := v.c.Dedicated(ctx)
	if err != nil {
		return "", false, err
	}
	defer func() { _ = l.Disconnect() }()
	pool, err := l.StoragePoolLookupByName(poolName)
	if err != nil {
		return "", false, fmt.Errorf("pool %q: %w", poolName, err)
	}
	from, err := findCloneSource(l, src, poolName)
	if err != nil {
		return "", false, err
	}
	fromXML, err := l.StorageVolGetXMLDesc(from, 0)
	if err != nil {
		return "", false, err
	}
	var fromDoc libvirtxml.StorageVolume
	if err := fromDoc.Unmarshal(fromXML); err != nil {
		return "", false, fmt.Errorf("parsing volume %s: %w", from.Key, err)
	}
	def := *doc
	// the source's size and format unless configured; never its backing
	// store: the copy is independent
	def.BackingStore = nil
	target := libvirtxml.StorageVolumeTarget{}
	if def.Target != nil {
		target = *def.Target
	}
	if (target.Format == nil || target.Format.Type == "") && fromDoc.Target != nil && fromDoc.Target.Format != nil {
		target.Format = &libvirtxml.StorageVolumeTargetFormat{Type: fromDoc.Target.Format.Type}
	}
	def.Target = &target
	srcCap := uint64(0)
	if fromDoc.Capacity != nil {
		srcCap, _ = xmlschema.ScaledValue(fromDoc.Capacity.Value, fromDoc.Capacity.Unit, "bytes", "bytes")
	}
	if want > 0 && want < srcCap {
		return "", false, fmt.Errorf("capacity %d bytes is smaller than the volume to copy (%s, %d bytes); a copy cannot shrink it", want, from.Key, srcCap)
	}
	def.Capacity = &libvirtxml.StorageVolumeSize{Unit: "bytes", Value: srcCap}
	def.Allocation = nil
	xml, err := def.Marshal()
	if err != nil {
		return "", false, err
	}

	// progress: the copy's allocation, read on the shared connection
	var allocated int64
	stopPoll := make(chan struct{})
	pollDone := make(chan struct{})
	go func() {
		defer close(pollDone)
		for {
			select {
			case <-stopPoll:
				return
			case <-time.After(time.Second):
			}
			_ = v.c.Do(ctx, func(sl *libvirt.Libvirt) error {
				p, err := sl.StoragePoolLookupByName(poolName)
				if err != nil {
					return err
				}
				vol, err := sl.StorageVolLookupByName(p, def.Name)
				if err != nil {
					return err
				}
				_, _, alloc, err := sl.StorageVolGetInfo(vol)
				if err == nil {
					allocated = int64(alloc)
				}
				return err
			})
		}
	}()
	stopProgress := progress.start("copy", poolName+"/"+def.Name, from.Key, func() int64 { return allocated }, int64(srcCap))
	stopAbort := v.c.AbortOnDone(ctx, l)
	unlock := HostOf(v.c).locks.Lock(poolName)
	vol, err := l.StorageVolCreateXMLFrom(pool, xml, from, 0)
	unlock()
	stopAbort()
	close(stopPoll)
	<-pollDone
	stopProgress()
	if err != nil {
		return "", !l.IsConnected(), fmt.Errorf("copying %s to %s/%s: %w", from.Key, poolName, def.Name, err)
	}
	if want > srcCap {
		if err := l.StorageVolResize(vol, want, 0); err != nil {
			_ = l.StorageVolDelete(vol, 0)
			return "", !l.IsConnected(), fmt.Errorf("growing the copy %s to %d bytes: %w", vol.Key, want, err)
		}
	}
	return vol.Key, false, nil
}

// findCloneSource looks the volume to copy up by key, or by name in its
// pool (src.Pool, else the new volume's).
func findCloneSource(l *libvirt.Libvirt, src CloneSource, poolName string) (libvirt.StorageVol, error) {
	if strings.HasPrefix(src.Volume, "/") || (src.Pool == "" && strings.Contains(src.Volume, "/")) {
		vol, err := l.StorageVolLookupByKey(src.Volume)
		if err != nil {
			return vol, fmt.Errorf("create.clone.volume %q: %w", src.Volume, err)
		}
		return vol, nil
	}
	p := src.Pool
	if p == "" {
		p = poolName
	}
	pool, err := l.StoragePoolLookupByName(p)
	if err != nil {
		return libvirt.StorageVol{}, fmt.Errorf("create.clone.pool %q: %w", p, err)
	}
	vol, err := l.StorageVolLookupByName(pool, src.Volume)
	if err != nil {
		return vol, fmt.Errorf("create.clone.volume %q in pool %q: %w", src.Volume, p, err)
	}
	return vol, nil
}

// Upload creates volumes with content on a connection of its own: the
// stream does not hold up the other operations of a parallel apply, and a
// broken path ends each upload by itself (libvirt 9.0's daemon can crash
// when one client's connection drops with several streams open).
type Upload struct {
	v    Volume
	l    *libvirt.Libvirt
	pool libvirt.StoragePool
}

// OpenUpload opens the upload's connection.
func (v Volume) OpenUpload(ctx context.Context) (*Upload, error) {
	l, err := v.c.Dedicated(ctx)
	if err != nil {
		return nil, err
	}
	return &Upload{v: v, l: l}, nil
}

// Close closes the upload's connection.
func (u *Upload) Close() { _ = u.l.Disconnect() }

// Connected says whether the upload's connection still stands: when it
// broke, what a failed create left could not be cleaned up on it.
func (u *Upload) Connected() bool { return u.l.IsConnected() }

// UsePool looks up the pool the volume goes into.
func (u *Upload) UsePool(poolName string) error {
	var err error
	u.pool, err = u.l.StoragePoolLookupByName(poolName)
	return err
}

// PoolDefinition reads the definition of the pool called name on the
// upload's connection.
func (u *Upload) PoolDefinition(name string) (*libvirtxml.StoragePool, error) {
	return poolDefinition(u.l, name)
}

// Create creates doc in the pool with the content of src; capacity 0 is
// the content's size. It deletes what it made when it fails, except through
// a broken connection (Connected).
func (u *Upload) Create(ctx context.Context, doc *libvirtxml.StorageVolume, capacity uint64, src *storage.Source, progress Progress) (key string, err error) {
	stopAbort := u.v.c.AbortOnDone(ctx, u.l) // a cancelled upload ends at once, also on a frozen path
	stopProgress := progress.start("upload", fmt.Sprintf("%s/%s", u.pool.Name, doc.Name), src.URL, src.Transferred, src.Size)
	vol, err := storage.CreateVolume(ctx, u.l, &HostOf(u.v.c).locks, storage.VolumeRequest{
		Pool: u.pool, LockKey: u.pool.Name, Def: doc, Capacity: capacity,
	}, src)
	stopProgress()
	stopAbort()
	return vol.Key, err
}

// CreateRBD fills a new volume of an rbd pool (def is its definition) from
// src through a staging volume in the pool staging, reporting the upload
// into the staging volume and the copy into RBD, under the apply's
// cancellation.
func (u *Upload) CreateRBD(ctx context.Context, def *libvirtxml.StoragePool, doc *libvirtxml.StorageVolume, capacity uint64,
	staging string, src *storage.Source, progress Progress) (key string, err error) {
	stopAbort := u.v.c.AbortOnDone(ctx, u.l) // a cancelled apply ends the upload or the copy at once
	defer stopAbort()
	sp, err := u.l.StoragePoolLookupByName(staging)
	if err != nil {
		return "", fmt.Errorf("staging pool %q: %w", staging, err)
	}
	volume := fmt.Sprintf("%s/%s", u.pool.Name, doc.Name)
	stopUpload := progress.start("upload", fmt.Sprintf("%s/%s", staging, storage.StagingName(doc.Name)), src.URL, src.Transferred, src.Size)
	uploading := true
	var copied storage.RBDCopy
	var stopCopy func()
	vol, err := storage.CreateRBDVolume(ctx, u.l, &HostOf(u.v.c).locks, storage.RBDRequest{
		Pool: u.pool, PoolDef: def, LockKey: u.pool.Name,
		Staging: sp, StagingLockKey: staging,
		Def: doc, Capacity: capacity,
		Uploaded: func(size uint64) {
			stopUpload()
			uploading = false
			stopCopy = progress.start("copy into rbd", volume, "staging volume "+storage.StagingName(doc.Name), copied.Done, int64(size))
		},
	}, src, &copied)
	if uploading {
		stopUpload()
	}
	if stopCopy != nil {
		stopCopy()
	}
	return vol.Key, err
}

// CleanUpRBDCreate removes, on a new connection, what a failed create into
// an rbd pool may have left when its connection broke: the copy domain
// (started with autodestroy, so libvirt destroys it too, but maybe not
// yet), the staging volume and the RBD image. It names what it removed;
// err is set when the RBD image may remain.
func (v Volume) CleanUpRBDCreate(ctx context.Context, poolName, staging, name string) (removed []string, err error) {
	// on a context of its own (the apply's may be cancelled by SIGINT), briefly: tofu is waiting to exit
	cleanCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	// libvirt destroys the copy domain when it notices the closed
	// connection, which can be after a create that was in flight: do it now
	_ = v.c.Do(cleanCtx, func(l *libvirt.Libvirt) error {
		doms, _, err := l.ConnectListAllDomains(1, libvirt.ConnectListDomainsTransient)
		for _, d := range doms {
			if strings.HasPrefix(d.Name, storage.CopyDomainPrefix(name)) && l.DomainDestroy(d) == nil {
				removed = append(removed, "the copy domain "+d.Name)
			}
		}
		return err
	})
	if ok, _ := v.RemoveIfPresent(cleanCtx, staging, storage.StagingName(name)); ok {
		removed = append(removed, "the staging volume")
	}
	// QEMU may still hold the image open for a moment while libvirt
	// destroys the copy domain: the deletion is retried until then
	for {
		ok, err := v.RemoveIfPresent(cleanCtx, poolName, name)
		if err == nil {
			if ok {
				removed = append(removed, "the incomplete RBD image")
			}
			return removed, nil
		}
		select {
		case <-cleanCtx.Done():
			return removed, err
		case <-time.After(500 * time.Millisecond):
		}
	}
}
