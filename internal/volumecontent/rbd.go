package volumecontent

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
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

// checkRBDContent checks create.content against the pools' types: an rbd
// pool needs a file-based staging pool, and staging_pool means nothing for
// any other pool. Pools that do not exist yet (created by the same apply)
// are checked again at apply. It returns the target pool's XML when found.
func checkRBDContent(poolDef func(name string) (*libvirtxml.StoragePool, error), plan map[string]tftypes.Value, diags *diag.Diagnostics) *libvirtxml.StoragePool {
	poolName, _ := treeresource.String(plan, "pool")
	staging := stagingPool(plan)
	def, err := poolDef(poolName)
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
	sdef, err := poolDef(staging)
	if err == nil && !fileBasedPoolTypes[sdef.Type] {
		diags.AddAttributeError(stagingPoolPath, "Staging pool is not file-based",
			fmt.Sprintf("create.content.staging_pool: pool %q is of type %q; the staging pool must be of type dir, fs or netfs (its volume is a file that QEMU reads).",
				staging, sdef.Type))
	}
	return def
}

// planCheckRBDContent runs checkRBDContent at plan for a new volume with
// content.
func planCheckRBDContent(ctx context.Context, c *libvirtconn.Client, plan map[string]tftypes.Value, diags *diag.Diagnostics) {
	if contentURL(plan) == "" || c == nil {
		return
	}
	checkRBDContent(func(name string) (*libvirtxml.StoragePool, error) {
		return libvirtops.Volumes(c).PoolDefinition(ctx, name)
	}, plan, diags)
}
