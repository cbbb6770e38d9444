package provider

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// libvirtUUID parses the canonical 8-4-4-4-12 form libvirt prints.
func libvirtUUID(s string) (libvirt.UUID, error) {
	var u libvirt.UUID
	h := strings.ReplaceAll(s, "-", "")
	if len(h) != 32 {
		return u, fmt.Errorf("%q is not a UUID", s)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return u, fmt.Errorf("%q is not a UUID", s)
	}
	copy(u[:], b)
	return u, nil
}

func uuidString(u libvirt.UUID) string {
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// importing reports whether a state holds only the id set by ImportState: the
// first Read after an import stores the whole live document.
func importing(attrs map[string]tftypes.Value) bool {
	for name, v := range attrs {
		if name == "id" {
			continue
		}
		if !v.IsNull() {
			return false
		}
	}
	return true
}

// importByUUIDOrName is the ImportState of objects addressed by UUID or
// name (domains, networks, pools): it resolves req.ID with byUUID when it
// parses as a UUID, else with byName, and stores the UUID as the id.
func importByUUIDOrName(ctx context.Context, c *libvirtconn.Client, kind string, req resource.ImportStateRequest, resp *resource.ImportStateResponse,
	byUUID func(*libvirt.Libvirt, libvirt.UUID) (libvirt.UUID, error), byName func(*libvirt.Libvirt, string) (libvirt.UUID, error)) {
	if !requireClient(c, &resp.Diagnostics) {
		return
	}
	var found libvirt.UUID
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		if u, perr := libvirtUUID(req.ID); perr == nil {
			found, err = byUUID(l, u)
		} else {
			found, err = byName(l, req.ID)
		}
		return err
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot import "+kind, fmt.Sprintf("no %s with UUID or name %q: %v", kind, req.ID, err))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), uuidString(found))...)
}
