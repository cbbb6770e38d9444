package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// A MAC address written in the configuration that another domain on the
// same host already uses is warned about at plan: two guests with one MAC on
// one network lose packets, and libvirt does not refuse it. A warning, not
// an error: replacing a domain (create before destroy) briefly has both.

// warnDuplicateMACs warns about configured MACs (new to this domain) that
// another domain of the host has.
func (r *domainResource) warnDuplicateMACs(ctx context.Context, config, state map[string]tftypes.Value, diags *diag.Diagnostics) {
	have := map[string]bool{}
	for _, m := range interfaceMACs(state) {
		have[m.mac] = true
	}
	var fresh []configuredMAC
	for _, m := range interfaceMACs(config) {
		if !have[m.mac] {
			fresh = append(fresh, m)
		}
	}
	if len(fresh) == 0 || r.Client() == nil {
		return
	}
	idx, err := libvirtops.Domains(r.Client()).MACs(ctx)
	if err != nil {
		return // the plan goes on; apply reports connection problems
	}
	self, _ := treeresource.String(state, "id")
	for _, m := range fresh {
		if o, ok := idx[m.mac]; ok && o.UUID != self {
			diags.AddAttributeWarning(path.Root("devices").AtName("interfaces").AtListIndex(m.index).AtName("mac").AtName("address"),
				"MAC address already in use",
				fmt.Sprintf("Domain %q (%s) on this host already has an interface with MAC %s. Two guests with one MAC on one network lose traffic; choose another address, or leave mac unset and libvirt generates one.", o.Name, o.UUID, m.mac))
		}
	}
}

type configuredMAC struct {
	index int
	mac   string
}

// interfaceMACs lists the known MACs of devices.interfaces, lower case.
func interfaceMACs(attrs map[string]tftypes.Value) []configuredMAC {
	var out []configuredMAC
	for i, iface := range interfacesOf(attrs) {
		if mac, ok := treeresource.String(treeresource.ObjectAttrs(iface["mac"]), "address"); ok {
			out = append(out, configuredMAC{index: i, mac: strings.ToLower(mac)})
		}
	}
	return out
}
