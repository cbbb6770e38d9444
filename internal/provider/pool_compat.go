package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// dmacvicar/libvirt 0.9.x steps through a pool's creation and deletion with
// two nested attributes. They are accepted with the same shape, so that its
// configurations work with only the provider source changed.
func poolCompatAttributes() map[string]schema.Attribute {
	flag := func(desc string) schema.Attribute { return schema.BoolAttribute{Optional: true, Description: desc} }
	return map[string]schema.Attribute{
		"create": schema.SingleNestedAttribute{
			Optional:    true,
			Description: "Steps of creating the pool, in dmacvicar/libvirt 0.9.x's shape.",
			Attributes: map[string]schema.Attribute{
				"autostart": flag("Same as `autostart` (set one spelling, not both)."),
				"build": flag("Build the pool (VIR_STORAGE_POOL_BUILD: create the target directory, or format the source for " +
					"`logical`, `disk` and `fs` types) before starting it. Default: built when the type is `dir`, `fs` or `netfs`, " +
					"which never formats anything."),
				"start": flag("Start the pool after defining it. Default: true. A pool left stopped has no volumes to offer."),
			},
		},
		"destroy": schema.SingleNestedAttribute{
			Optional:    true,
			Description: "Steps of deleting the pool, in dmacvicar/libvirt 0.9.x's shape.",
			Attributes: map[string]schema.Attribute{
				"delete": flag("Delete the pool's storage (VIR_STORAGE_POOL_DELETE: the target directory, or the volume group) " +
					"before undefining it. Default: done for `dir`, `fs` and `netfs`, whose directory building created."),
			},
		},
	}
}

// ValidateConfig refuses autostart written in both spellings.
func (r *poolResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	cfg := treeresource.ObjectAttrs(req.Config.Raw)
	if _, set := nestedBool(cfg["create"], "autostart"); set {
		if v := cfg["autostart"]; v.Type() != nil && !v.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root("create").AtName("autostart"), "autostart set twice",
				"create.autostart and autostart are the same flag (the first is dmacvicar/libvirt 0.9.x's spelling). Set one of them.")
		}
	}
}

// planCompatAutostart plans create.autostart as autostart when the
// configuration leaves autostart itself unset.
func planCompatAutostart(config, plan map[string]tftypes.Value) bool {
	b, set := nestedBool(config["create"], "autostart")
	if !set {
		return false
	}
	if v := config["autostart"]; v.Type() != nil && !v.IsNull() {
		return false
	}
	plan["autostart"] = treeresource.BoolValue(b)
	return true
}

// readPoolSteps are the create and delete steps for a pool of type poolType.
func readPoolSteps(attrs map[string]tftypes.Value, poolType string) libvirtops.PoolSteps {
	s := libvirtops.PoolSteps{Build: poolBuildTypes[poolType], Start: true, DeleteStorage: poolBuildTypes[poolType]}
	if b, ok := nestedBool(attrs["create"], "build"); ok {
		s.Build = b
	}
	if b, ok := nestedBool(attrs["create"], "start"); ok {
		s.Start = b
	}
	if b, ok := nestedBool(attrs["destroy"], "delete"); ok {
		s.DeleteStorage = b
	}
	return s
}
