package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"
)

// libvirt 9.0's rbd storage backend cannot upload into an image, nor create
// one from a volume of another pool. Content reaches RBD through QEMU instead
// (docs/adr/0003-content-into-rbd.md): it is uploaded into a staging volume
// of a file-based pool on the same host, a paused transient domain gets that
// volume as its disk, and a block copy (QEMU's drive-mirror) writes the disk
// into the RBD image, converting a qcow2 image to raw on the way.

// RBDRequest describes a volume to create in an rbd pool from content.
type RBDRequest struct {
	Pool    libvirt.StoragePool
	PoolDef *libvirtxml.StoragePool // the rbd pool's XML: monitors, Ceph pool, auth
	LockKey string
	// Staging is a file-based pool (dir, fs, netfs) on the same host that
	// holds the content while it is copied; its volume is deleted after.
	Staging        libvirt.StoragePool
	StagingLockKey string
	Def            *libvirtxml.StorageVolume
	Capacity       uint64 // configured capacity in bytes, 0 when not configured
	// Uploaded is called once the content is in the staging volume, with the
	// image's size: the copy's progress is reported against it.
	Uploaded func(size uint64)
}

// RBDCopy is the state of a running copy into RBD, for progress reports.
type RBDCopy struct{ done atomic.Int64 }

// Done is the number of bytes the block copy has written so far.
func (c *RBDCopy) Done() int64 { return c.done.Load() }

// RBDPollInterval is how often the block copy's progress is read.
var RBDPollInterval = 200 * time.Millisecond

// StagingName is the staging volume's name for an RBD volume: derived from
// the volume's name, so that a leftover of an interrupted apply is found and
// replaced by the next one.
func StagingName(volume string) string { return volume + ".rbd-staging" }

// CreateRBDVolume creates req.Def in the rbd pool holding src's content. It
// removes everything it made when it fails: the staging volume, the
// transient domain (also started with autodestroy, so that libvirt destroys
// it if this connection breaks) and the half-written RBD image. When the
// RBD image's deletion fails too, it is returned with the error.
func CreateRBDVolume(ctx context.Context, l *libvirt.Libvirt, locks *PoolLocks, req RBDRequest, src *Source, progress *RBDCopy) (libvirt.StorageVol, error) {
	if req.Def.Target != nil && req.Def.Target.Format != nil && req.Def.Target.Format.Type != "" && req.Def.Target.Format.Type != "raw" {
		return libvirt.StorageVol{}, fmt.Errorf("an rbd pool holds raw images only, not %q", req.Def.Target.Format.Type)
	}
	// staging: a leftover of an interrupted apply (same name) goes first
	stagingDef := &libvirtxml.StorageVolume{Name: StagingName(req.Def.Name)}
	if old, err := l.StorageVolLookupByName(req.Staging, stagingDef.Name); err == nil {
		unlock := locks.Lock(req.StagingLockKey)
		_ = l.StorageVolDelete(old, 0)
		unlock()
	}
	staged, err := CreateVolume(ctx, l, locks, VolumeRequest{Pool: req.Staging, LockKey: req.StagingLockKey, Def: stagingDef}, src)
	if err != nil {
		return libvirt.StorageVol{}, fmt.Errorf("uploading into the staging volume %q in pool %q: %w", stagingDef.Name, req.Staging.Name, err)
	}
	defer func() {
		unlock := locks.Lock(req.StagingLockKey)
		defer unlock()
		_ = l.StorageVolDelete(staged, 0)
	}()
	stagedPath, stagedFormat, size, err := volumeFile(l, staged)
	if err != nil {
		return libvirt.StorageVol{}, err
	}
	if req.Capacity > 0 && size > req.Capacity {
		return libvirt.StorageVol{}, src.errorf("capacity %d is smaller than the content's size %d bytes; a volume cannot shrink its image", req.Capacity, size)
	}
	if req.Uploaded != nil {
		req.Uploaded(size)
	}

	def := *req.Def
	// the image's size: QEMU mirrors only between images of one size; a
	// larger capacity is applied after the copy
	def.Capacity = &libvirtxml.StorageVolumeSize{Unit: "bytes", Value: size}
	def.Allocation = nil
	def.Target = nil // rbd: raw, the path is libvirt's
	xml, err := def.Marshal()
	if err != nil {
		return libvirt.StorageVol{}, fmt.Errorf("writing volume XML: %w", err)
	}
	unlock := locks.Lock(req.LockKey)
	vol, err := l.StorageVolCreateXML(req.Pool, xml, 0)
	unlock()
	if err != nil {
		return libvirt.StorageVol{}, fmt.Errorf("creating RBD image %q in pool %q: %w", def.Name, req.Pool.Name, err)
	}
	err = blockCopy(ctx, l, req, vol, stagedPath, stagedFormat, progress)
	if err == nil && req.Capacity > size {
		if rerr := l.StorageVolResize(vol, req.Capacity, 0); rerr != nil {
			err = fmt.Errorf("growing RBD image %s to %d bytes after the copy: %w", vol.Key, req.Capacity, rerr)
		}
	}
	if err != nil {
		unlock := locks.Lock(req.LockKey)
		defer unlock()
		if derr := l.StorageVolDelete(vol, 0); derr != nil {
			return vol, fmt.Errorf("%w; deleting the incomplete RBD image %s also failed: %v", err, vol.Key, derr)
		}
		return libvirt.StorageVol{}, err
	}
	return vol, nil
}

// volumeFile returns a file volume's path, format and (virtual) size.
func volumeFile(l *libvirt.Libvirt, vol libvirt.StorageVol) (path, format string, size uint64, err error) {
	xml, err := l.StorageVolGetXMLDesc(vol, 0)
	if err != nil {
		return "", "", 0, fmt.Errorf("reading the staging volume: %w", err)
	}
	var doc libvirtxml.StorageVolume
	if err := doc.Unmarshal(xml); err != nil {
		return "", "", 0, fmt.Errorf("parsing the staging volume's XML: %w", err)
	}
	if doc.Target == nil || doc.Target.Path == "" || doc.Capacity == nil {
		return "", "", 0, fmt.Errorf("the staging volume %s has no path or capacity", vol.Key)
	}
	format = "raw"
	if doc.Target.Format != nil && doc.Target.Format.Type == "qcow2" {
		format = "qcow2"
	}
	return doc.Target.Path, format, doc.Capacity.Value, nil
}

// blockCopy mirrors the staging file into the RBD image in a paused
// transient domain and ends the job once both are in sync.
func blockCopy(ctx context.Context, l *libvirt.Libvirt, req RBDRequest, vol libvirt.StorageVol, stagedPath, stagedFormat string, progress *RBDCopy) error {
	source, err := rbdDiskSource(req.PoolDef, vol)
	if err != nil {
		return err
	}
	domXML, err := copyDomainXML(req.Def.Name, stagedPath, stagedFormat)
	if err != nil {
		return err
	}
	dom, err := l.DomainCreateXML(domXML, libvirt.DomainStartPaused|libvirt.DomainStartAutodestroy)
	if err != nil {
		return fmt.Errorf("starting the transient copy domain: %w", err)
	}
	defer func() { _ = l.DomainDestroy(dom) }()
	dest := libvirtxml.DomainDisk{
		Source: &libvirtxml.DomainDiskSource{Network: source},
		Driver: &libvirtxml.DomainDiskDriver{Type: "raw"},
	}
	destXML, err := dest.Marshal()
	if err != nil {
		return fmt.Errorf("writing the copy's destination XML: %w", err)
	}
	// the image exists (libvirt created it): reuse it, do not create a file
	if err := l.DomainBlockCopy(dom, "vda", destXML, nil, libvirt.DomainBlockCopyReuseExt); err != nil {
		return fmt.Errorf("starting the block copy into %s: %w", vol.Key, err)
	}
	ticker := time.NewTicker(RBDPollInterval)
	defer ticker.Stop()
	for {
		found, _, _, cur, end, err := l.DomainGetBlockJobInfo(dom, "vda", 0)
		if err != nil {
			return fmt.Errorf("reading the block copy's progress: %w", err)
		}
		if found == 0 {
			return fmt.Errorf("the block copy into %s ended before it was complete", vol.Key)
		}
		progress.done.Store(int64(cur))
		if end > 0 && cur == end {
			break // in sync: ready
		}
		select {
		case <-ctx.Done():
			_ = l.DomainBlockJobAbort(dom, "vda", 0)
			return fmt.Errorf("block copy into %s: %w", vol.Key, ctx.Err())
		case <-ticker.C:
		}
	}
	// ending a ready copy without pivoting leaves the destination a
	// consistent, complete copy (virsh blockcopy --finish)
	if err := l.DomainBlockJobAbort(dom, "vda", 0); err != nil {
		return fmt.Errorf("finishing the block copy into %s: %w", vol.Key, err)
	}
	return nil
}

// rbdDiskSource is the network disk source of an RBD image of the pool:
// the pool's monitors and its cephx user and secret.
func rbdDiskSource(pool *libvirtxml.StoragePool, vol libvirt.StorageVol) (*libvirtxml.DomainDiskSourceNetwork, error) {
	if pool == nil || pool.Source == nil || pool.Source.Name == "" {
		return nil, errors.New("the rbd pool's XML names no Ceph pool (source.name)")
	}
	src := &libvirtxml.DomainDiskSourceNetwork{Protocol: "rbd", Name: pool.Source.Name + "/" + vol.Name}
	for _, h := range pool.Source.Host {
		src.Hosts = append(src.Hosts, libvirtxml.DomainDiskSourceHost{Name: h.Name, Port: h.Port})
	}
	if a := pool.Source.Auth; a != nil && a.Secret != nil {
		src.Auth = &libvirtxml.DomainDiskAuth{Username: a.Username, Secret: &libvirtxml.DomainDiskSecret{
			Type: "ceph", UUID: a.Secret.UUID, Usage: a.Secret.Usage,
		}}
	}
	return src, nil
}

// copyDomainXML is a minimal domain that only holds the staging volume as
// its disk: it is started paused (no guest code runs) and exists as long as
// the copy. Domain type qemu runs on every host, with or without KVM.
func copyDomainXML(volume, stagedPath, stagedFormat string) (string, error) {
	var b [4]byte
	_, _ = rand.Read(b[:])
	dom := libvirtxml.Domain{
		Type:   "qemu",
		Name:   volume + "-rbd-copy-" + hex.EncodeToString(b[:]),
		Memory: &libvirtxml.DomainMemory{Value: 32, Unit: "MiB"},
		VCPU:   &libvirtxml.DomainVCPU{Value: 1},
		OS:     &libvirtxml.DomainOS{Type: &libvirtxml.DomainOSType{Type: "hvm"}},
		Devices: &libvirtxml.DomainDeviceList{Disks: []libvirtxml.DomainDisk{{
			Device: "disk",
			Driver: &libvirtxml.DomainDiskDriver{Name: "qemu", Type: stagedFormat},
			Source: &libvirtxml.DomainDiskSource{File: &libvirtxml.DomainDiskSourceFile{File: stagedPath}},
			Target: &libvirtxml.DomainDiskTarget{Dev: "vda", Bus: "virtio"},
		}}},
	}
	return dom.Marshal()
}
