package volumecontent

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// cloneSource returns create.clone, nil when not set.
func cloneSource(attrs map[string]tftypes.Value) *libvirtops.CloneSource {
	clone := treeresource.ObjectAttrs(treeresource.ObjectAttrs(attrs["create"])["clone"])
	if clone == nil {
		return nil
	}
	c := &libvirtops.CloneSource{}
	c.Volume, _ = treeresource.String(clone, "volume")
	c.Pool, _ = treeresource.String(clone, "pool")
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
