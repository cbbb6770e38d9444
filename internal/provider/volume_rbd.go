package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// Content into an rbd pool goes through a staging volume and a block copy
// (storage.CreateRBDVolume, docs/adr/0003-content-into-rbd.md): the
// configuration names the staging pool, create.content.staging_pool.

var stagingPoolPath = path.Root("create").AtName("content").AtName("staging_pool")

// fileBasedPoolTypes are the pools whose volumes are files that a domain
// disk can use as its source and that take an upload.
var fileBasedPoolTypes = map[string]bool{"dir": true, "fs": true, "netfs": true}

// stagingPool returns create.content.staging_pool, "" when not set.
func stagingPool(attrs map[string]tftypes.Value) string {
	content := treeresource.ObjectAttrs(treeresource.ObjectAttrs(attrs["create"])["content"])
	s, _ := treeresource.String(content, "staging_pool")
	return s
}

// poolDef reads a pool's XML.
func poolDef(l *libvirt.Libvirt, pool libvirt.StoragePool) (*libvirtxml.StoragePool, error) {
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

// checkRBDContent checks create.content against the pools' types: an rbd
// pool needs a file-based staging pool, and staging_pool means nothing for
// any other pool. Pools that do not exist yet (created by the same apply)
// are checked again at apply. It returns the target pool's XML when found.
func checkRBDContent(l *libvirt.Libvirt, plan map[string]tftypes.Value, diags *diag.Diagnostics) *libvirtxml.StoragePool {
	poolName, _ := treeresource.String(plan, "pool")
	staging := stagingPool(plan)
	pool, err := l.StoragePoolLookupByName(poolName)
	if err != nil {
		return nil
	}
	def, err := poolDef(l, pool)
	if err != nil {
		return nil
	}
	if def.Type != "rbd" {
		if staging != "" {
			diags.AddAttributeError(stagingPoolPath, "staging_pool is only for rbd pools",
				fmt.Sprintf("create.content.staging_pool is only for rbd pools; pool %q is of type %q, whose volumes take content directly: remove it.", poolName, def.Type))
		}
		return def
	}
	if format := treeresource.Nested(treeresource.Nested(plan["target"], "format"), "type"); format.IsKnown() && !format.IsNull() {
		var s string
		if format.As(&s) == nil && s != "" && s != "raw" {
			diags.AddAttributeError(path.Root("target").AtName("format").AtName("type"), "Unsupported format in an rbd pool",
				fmt.Sprintf("target.format.type is %q, but pool %q is an rbd pool, whose images are raw (a qcow2 source is converted "+
					"while it is copied in). Set target.format.type to \"raw\" or leave it out.", s, poolName))
		}
	}
	if staging == "" {
		diags.AddAttributeError(stagingPoolPath, "Missing staging pool for content in an rbd pool",
			fmt.Sprintf("create.content.staging_pool is required here: pool %q is an rbd pool, and libvirt cannot upload into RBD, so "+
				"the content is uploaded into a staging volume first and copied into RBD by QEMU. Set it to a dir, fs or netfs pool on the same host "+
				"with room for the image.", poolName))
		return def
	}
	sp, err := l.StoragePoolLookupByName(staging)
	if err != nil {
		return def
	}
	sdef, err := poolDef(l, sp)
	if err == nil && !fileBasedPoolTypes[sdef.Type] {
		diags.AddAttributeError(stagingPoolPath, "Staging pool is not file-based",
			fmt.Sprintf("create.content.staging_pool: pool %q is of type %q; the staging pool must be of type dir, fs or netfs (its volume is a file that QEMU reads).",
				staging, sdef.Type))
	}
	return def
}

// planCheckRBDContent runs checkRBDContent at plan for a new volume with
// content.
func (r *volumeResource) planCheckRBDContent(ctx context.Context, plan map[string]tftypes.Value, diags *diag.Diagnostics) {
	if contentURL(plan) == "" || r.Client() == nil {
		return
	}
	_ = r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		checkRBDContent(l, plan, diags)
		return nil
	})
}

// createInRBD fills a new volume of an rbd pool from src on l (the
// upload's own connection), logging the upload into the staging volume and
// the copy into RBD.
func (r *volumeResource) createInRBD(ctx context.Context, l *libvirt.Libvirt, pool libvirt.StoragePool, def *libvirtxml.StoragePool,
	doc *libvirtxml.StorageVolume, plan map[string]tftypes.Value, src *storage.Source) (libvirt.StorageVol, error) {
	staging := stagingPool(plan)
	sp, err := l.StoragePoolLookupByName(staging)
	if err != nil {
		return libvirt.StorageVol{}, fmt.Errorf("staging pool %q: %w", staging, err)
	}
	capacity, _ := sizeBytes(plan, "capacity")
	volume := fmt.Sprintf("%s/%s", pool.Name, doc.Name)
	stopUpload := logProgress(ctx, "upload", fmt.Sprintf("%s/%s", staging, storage.StagingName(doc.Name)), src.URL, src.Transferred, src.Size)
	uploading := true
	var copied storage.RBDCopy
	var stopCopy func()
	vol, err := storage.CreateRBDVolume(ctx, l, libvirtops.PoolLocks(), storage.RBDRequest{
		Pool: pool, PoolDef: def, LockKey: libvirtops.PoolLockKey(r.Client().URI(), pool.Name),
		Staging: sp, StagingLockKey: libvirtops.PoolLockKey(r.Client().URI(), staging),
		Def: doc, Capacity: capacity,
		Uploaded: func(size uint64) {
			stopUpload()
			uploading = false
			stopCopy = logProgress(ctx, "copy into rbd", volume, "staging volume "+storage.StagingName(doc.Name), copied.Done, int64(size))
		},
	}, src, &copied)
	if uploading {
		stopUpload()
	}
	if stopCopy != nil {
		stopCopy()
	}
	return vol, err
}

// createRBDFromContent runs createInRBD under the apply's cancellation and
// reports a failure; ok is false when it failed (the diagnostics say why).
func (r *volumeResource) createRBDFromContent(ctx context.Context, l *libvirt.Libvirt, pool libvirt.StoragePool, def *libvirtxml.StoragePool,
	doc *libvirtxml.StorageVolume, plan map[string]tftypes.Value, src *storage.Source, rawPlan tftypes.Value, resp *resource.CreateResponse) (libvirt.StorageVol, bool) {
	stopAbort := r.Client().AbortOnDone(ctx, l) // a cancelled apply ends the upload or the copy at once
	vol, err := r.createInRBD(ctx, l, pool, def, doc, plan, src)
	stopAbort()
	if err == nil {
		return vol, true
	}
	// CreateRBDVolume cleans up on its connection, but that may be closing
	// (a cancelled apply closes it, and go-libvirt notices a moment later):
	// whatever is left is removed on a new one. Every name is this volume's
	// own (the volume did not exist before), so this never removes another's.
	msg := err.Error()
	removed, rerr := r.cleanUpRBDCreate(ctx, pool.Name, stagingPool(plan), doc.Name)
	if len(removed) > 0 {
		msg += "; " + strings.Join(removed, " and ") + " deleted on a new connection"
	}
	if rerr != nil {
		r.recordUnfinished(rawPlan, vol, pool.Name, doc.Name, resp)
		msg += fmt.Sprintf("; the RBD image may remain half-written and is recorded as tainted: the next apply deletes "+
			"and re-creates it (%v)", rerr)
	}
	resp.Diagnostics.AddError("Cannot create RBD volume from content", msg)
	return vol, false
}

// cleanUpRBDCreate removes, on a new connection, what a failed create into an
// rbd pool may have left when its connection broke: the copy domain (started with
// autodestroy, so libvirt destroys it too, but maybe not yet), the staging
// volume and the RBD image. It names what it removed; err is set when the
// RBD image may remain.
func (r *volumeResource) cleanUpRBDCreate(ctx context.Context, poolName, staging, name string) (removed []string, err error) {
	// on a context of its own (the apply's may be cancelled by SIGINT), briefly: tofu is waiting to exit
	cleanCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	// libvirt destroys the copy domain when it notices the closed
	// connection, which can be after a create that was in flight: do it now
	_ = r.Client().Do(cleanCtx, func(l *libvirt.Libvirt) error {
		doms, _, err := l.ConnectListAllDomains(1, libvirt.ConnectListDomainsTransient)
		for _, d := range doms {
			if strings.HasPrefix(d.Name, storage.CopyDomainPrefix(name)) && l.DomainDestroy(d) == nil {
				removed = append(removed, "the copy domain "+d.Name)
			}
		}
		return err
	})
	if ok, _ := removeVolumeIfPresent(cleanCtx, r.Client(), staging, storage.StagingName(name), libvirtops.PoolLockKey(r.Client().URI(), staging)); ok {
		removed = append(removed, "the staging volume")
	}
	// QEMU may still hold the image open for a moment while libvirt
	// destroys the copy domain: the deletion is retried until then
	for {
		ok, err := removeVolumeIfPresent(cleanCtx, r.Client(), poolName, name, libvirtops.PoolLockKey(r.Client().URI(), poolName))
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
