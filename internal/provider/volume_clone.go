package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// cloneRef is create.clone: the volume to copy.
type cloneRef struct {
	volume, pool string
}

// cloneSource returns create.clone, nil when not set.
func cloneSource(attrs map[string]tftypes.Value) *cloneRef {
	clone := treeresource.ObjectAttrs(treeresource.ObjectAttrs(attrs["create"])["clone"])
	if clone == nil {
		return nil
	}
	c := &cloneRef{}
	c.volume, _ = treeresource.String(clone, "volume")
	c.pool, _ = treeresource.String(clone, "pool")
	return c
}

// checkCreateChoice refuses a create block with both or neither of content
// and clone.
func checkCreateChoice(config map[string]tftypes.Value, diags *diag.Diagnostics) bool {
	create := config["create"]
	if create.IsNull() || !create.IsKnown() {
		return true
	}
	attrs := treeresource.ObjectAttrs(create)
	content, clone := attrs["content"], attrs["clone"]
	if !content.IsKnown() || !clone.IsKnown() {
		return true
	}
	if content.IsNull() == clone.IsNull() {
		diags.AddAttributeError(path.Root("create"), "Invalid create block",
			"create needs exactly one of content (upload from a URL or file) and clone (copy another volume); "+
				"to make an empty volume, leave create out and set capacity.")
		return false
	}
	return true
}

// cloneVolume creates doc as a full copy of the clone source, on a
// connection of its own (the copy runs inside libvirtd, as long as it
// takes), logging progress from the copy's allocation. unknown reports that
// the connection broke, so whether the copy exists is not known.
func (r *volumeResource) cloneVolume(ctx context.Context, poolName, lockKey string, doc *libvirtxml.StorageVolume,
	plan map[string]tftypes.Value, src *cloneRef) (vol libvirt.StorageVol, unknown bool, err error) {
	l, err := r.Client().Dedicated(ctx)
	if err != nil {
		return vol, false, err
	}
	defer func() { _ = l.Disconnect() }()
	pool, err := l.StoragePoolLookupByName(poolName)
	if err != nil {
		return vol, false, fmt.Errorf("pool %q: %w", poolName, err)
	}
	from, err := findCloneSource(l, src, poolName)
	if err != nil {
		return vol, false, err
	}
	fromXML, err := l.StorageVolGetXMLDesc(from, 0)
	if err != nil {
		return vol, false, err
	}
	var fromDoc libvirtxml.StorageVolume
	if err := fromDoc.Unmarshal(fromXML); err != nil {
		return vol, false, fmt.Errorf("parsing volume %s: %w", from.Key, err)
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
	want, _ := sizeBytes(plan, "capacity")
	srcCap := uint64(0)
	if fromDoc.Capacity != nil {
		srcCap, _ = xmlschema.ScaledValue(fromDoc.Capacity.Value, fromDoc.Capacity.Unit, "bytes", "bytes")
	}
	if want > 0 && want < srcCap {
		return vol, false, fmt.Errorf("capacity %d bytes is smaller than the volume to copy (%s, %d bytes); a copy cannot shrink it", want, from.Key, srcCap)
	}
	def.Capacity = &libvirtxml.StorageVolumeSize{Unit: "bytes", Value: srcCap}
	def.Allocation = nil
	xml, err := def.Marshal()
	if err != nil {
		return vol, false, err
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
			_ = r.Client().Do(ctx, func(sl *libvirt.Libvirt) error {
				p, err := sl.StoragePoolLookupByName(poolName)
				if err != nil {
					return err
				}
				v, err := sl.StorageVolLookupByName(p, def.Name)
				if err != nil {
					return err
				}
				_, _, alloc, err := sl.StorageVolGetInfo(v)
				if err == nil {
					allocated = int64(alloc)
				}
				return err
			})
		}
	}()
	stopProgress := logProgress(ctx, "copy", poolName+"/"+def.Name, from.Key, func() int64 { return allocated }, int64(srcCap))
	stopAbort := r.Client().AbortOnDone(ctx, l)
	unlock := libvirtops.PoolLocks().Lock(lockKey)
	vol, err = l.StorageVolCreateXMLFrom(pool, xml, from, 0)
	unlock()
	stopAbort()
	close(stopPoll)
	<-pollDone
	stopProgress()
	if err != nil {
		return libvirt.StorageVol{}, !l.IsConnected(), fmt.Errorf("copying %s to %s/%s: %w", from.Key, poolName, def.Name, err)
	}
	if want > srcCap {
		if err := l.StorageVolResize(vol, want, 0); err != nil {
			_ = l.StorageVolDelete(vol, 0)
			return libvirt.StorageVol{}, !l.IsConnected(), fmt.Errorf("growing the copy %s to %d bytes: %w", vol.Key, want, err)
		}
	}
	return vol, false, nil
}

// findCloneSource looks the volume to copy up by key, or by name in its
// pool (clone.pool, else the new volume's).
func findCloneSource(l *libvirt.Libvirt, src *cloneRef, poolName string) (libvirt.StorageVol, error) {
	if strings.HasPrefix(src.volume, "/") || (src.pool == "" && strings.Contains(src.volume, "/")) {
		vol, err := l.StorageVolLookupByKey(src.volume)
		if err != nil {
			return vol, fmt.Errorf("create.clone.volume %q: %w", src.volume, err)
		}
		return vol, nil
	}
	p := src.pool
	if p == "" {
		p = poolName
	}
	pool, err := l.StoragePoolLookupByName(p)
	if err != nil {
		return libvirt.StorageVol{}, fmt.Errorf("create.clone.pool %q: %w", p, err)
	}
	vol, err := l.StorageVolLookupByName(pool, src.volume)
	if err != nil {
		return vol, fmt.Errorf("create.clone.volume %q in pool %q: %w", src.volume, p, err)
	}
	return vol, nil
}
