package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops/opstest"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// Unit tests of the network's plan logic and live-update operations (no
// libvirtd needed). TestAccNetwork_* prove the same against libvirt.

// networkObject is the resource value of doc with the given own attributes.
func networkObject(t *testing.T, doc *libvirtxml.Network, id string) tftypes.Value {
	t.Helper()
	typ := networkSchema().Type().TerraformType(context.Background())
	return treeresource.BuildObject(typ, xmlschema.Network().ToValues(doc), map[string]tftypes.Value{
		"id": treeresource.StringValue(id), "autostart": treeresource.BoolValue(false), "running": treeresource.BoolValue(true),
	})
}

func modifyNetworkPlan(t *testing.T, state, plan, config tftypes.Value) *resource.ModifyPlanResponse {
	t.Helper()
	s := networkSchema()
	resp := &resource.ModifyPlanResponse{Plan: tfsdk.Plan{Schema: s, Raw: plan}}
	NewNetworkResource().(*networkResource).ModifyPlan(context.Background(), resource.ModifyPlanRequest{
		State:  tfsdk.State{Schema: s, Raw: state},
		Plan:   tfsdk.Plan{Schema: s, Raw: plan},
		Config: tfsdk.Config{Schema: s, Raw: config},
	}, resp)
	return resp
}

func TestNetworkModifyPlan(t *testing.T) {
	const id = "6a0d6c8e-3c39-4a52-9a1e-0d1f4f1f3b21"
	state := networkObject(t, opstest.NetworkDoc(), id)

	cases := map[string]struct {
		change      func(*libvirtxml.Network)
		wantReplace []string
		wantWarning string // substring of the restart warning; "" = no warning
	}{
		"nothing": {change: func(*libvirtxml.Network) {}},
		"dhcp host added": {change: func(d *libvirtxml.Network) {
			d.IPs[0].DHCP.Hosts = append(d.IPs[0].DHCP.Hosts, libvirtxml.NetworkDHCPHost{MAC: "52:54:00:00:00:0c", IP: "10.9.0.12"})
		}},
		"dhcp host ip changed and dns host removed": {change: func(d *libvirtxml.Network) {
			d.IPs[0].DHCP.Hosts[1].IP = "10.9.0.21"
			d.DNS.Host = nil
		}},
		"dhcp range changed": {
			change:      func(d *libvirtxml.Network) { d.IPs[0].DHCP.Ranges[0].End = "10.9.0.150" },
			wantWarning: "changing ips[0].dhcp.ranges[0].end restarts the network",
		},
		"forward mode and a host changed": {
			change: func(d *libvirtxml.Network) {
				d.Forward.Mode = "route"
				d.IPs[0].DHCP.Hosts[0].Name = "a2"
			},
			wantWarning: "changing forward.mode restarts",
		},
		"name changed": {
			change:      func(d *libvirtxml.Network) { d.Name = "unit2"; d.Domain.Name = "x" },
			wantReplace: []string{"name"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			doc := opstest.NetworkDoc()
			tc.change(doc)
			plan := networkObject(t, doc, id)
			resp := modifyNetworkPlan(t, state, plan, plan)
			var warnings []string
			for _, d := range resp.Diagnostics {
				warnings = append(warnings, d.Summary()+": "+d.Detail())
			}
			if resp.Diagnostics.HasError() {
				t.Fatalf("errors: %v", warnings)
			}
			switch {
			case tc.wantWarning == "" && len(warnings) > 0:
				t.Errorf("unexpected warning: %v", warnings)
			case tc.wantWarning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], tc.wantWarning)):
				t.Errorf("warnings = %v, want one containing %q", warnings, tc.wantWarning)
			}
			var replace []string
			for _, p := range resp.RequiresReplace {
				replace = append(replace, p.String())
			}
			if strings.Join(replace, ",") != strings.Join(tc.wantReplace, ",") {
				t.Errorf("RequiresReplace = %v, want %v", replace, tc.wantReplace)
			}
		})
	}
}

// A stopped network has no guests to cut off: a restart-type change plans
// without the warning.
func TestNetworkModifyPlanStoppedNetwork(t *testing.T) {
	const id = "6a0d6c8e-3c39-4a52-9a1e-0d1f4f1f3b21"
	stopped := func(v tftypes.Value) tftypes.Value {
		a := treeresource.ObjectAttrs(v)
		a["running"] = treeresource.BoolValue(false)
		return tftypes.NewValue(v.Type(), a)
	}
	doc := opstest.NetworkDoc()
	doc.IPs[0].DHCP.Ranges[0].End = "10.9.0.150"
	plan := stopped(networkObject(t, doc, id))
	resp := modifyNetworkPlan(t, stopped(networkObject(t, opstest.NetworkDoc(), id)), plan, plan)
	if len(resp.Diagnostics) != 0 {
		t.Errorf("diagnostics for a stopped network: %v", resp.Diagnostics)
	}
}

// An update must not show libvirt's choices (UUID, bridge name) as unknown
// when the configuration leaves them out: they stay as they are.
func TestNetworkModifyPlanKeepsChosenValues(t *testing.T) {
	const id = "6a0d6c8e-3c39-4a52-9a1e-0d1f4f1f3b21"
	state := networkObject(t, opstest.NetworkDoc(), id)
	doc := opstest.NetworkDoc()
	doc.IPs[0].DHCP.Ranges[0].End = "10.9.0.150"
	doc.UUID, doc.Bridge = "", nil
	config := networkObject(t, doc, id)
	attrs := treeresource.ObjectAttrs(config)
	types := xmlschema.Network().AttributeTypes()
	planAttrs := make(map[string]tftypes.Value, len(attrs))
	for k, v := range attrs {
		planAttrs[k] = v
	}
	planAttrs["uuid"] = tftypes.NewValue(types["uuid"], tftypes.UnknownValue)
	planAttrs["bridge"] = tftypes.NewValue(types["bridge"], tftypes.UnknownValue)
	plan := tftypes.NewValue(config.Type(), planAttrs)

	resp := modifyNetworkPlan(t, state, plan, config)
	got := treeresource.ObjectAttrs(resp.Plan.Raw)
	if u, ok := treeresource.String(got, "uuid"); !ok || u != id {
		t.Errorf("planned uuid = %v, want the state's %s", got["uuid"], id)
	}
	if b := treeresource.ObjectAttrs(got["bridge"]); b == nil {
		t.Errorf("planned bridge = %v, want the state's", got["bridge"])
	} else if n, _ := treeresource.String(b, "name"); n != "virbr9" {
		t.Errorf("planned bridge.name = %q, want virbr9", n)
	}
	// the restart warning is still there
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Summary() != "Network restart" {
		t.Errorf("diagnostics = %v", resp.Diagnostics)
	}
	// and a value unknown in the configuration itself stays unknown
	configAttrs := treeresource.ObjectAttrs(config)
	configAttrs["uuid"] = tftypes.NewValue(types["uuid"], tftypes.UnknownValue)
	config = tftypes.NewValue(config.Type(), configAttrs)
	resp = modifyNetworkPlan(t, state, plan, config)
	if treeresource.ObjectAttrs(resp.Plan.Raw)["uuid"].IsKnown() {
		t.Errorf("uuid unknown in the configuration became known in the plan")
	}
	if len(resp.RequiresReplace) != 1 || !resp.RequiresReplace[0].Equal(path.Root("uuid")) {
		t.Errorf("an unknown uuid should force replacement, got %v", resp.RequiresReplace)
	}
}

func TestNetworkValidateConfigConflicts(t *testing.T) {
	doc := opstest.NetworkDoc()
	doc.IPs[0].DHCP.Hosts[1].IP = "10.9.0.10"
	doc.IPs[0].DHCP.Hosts[1].MAC = "52:54:00:00:00:0A" // same MAC as [0] in other case
	doc.DNS.Host = append(doc.DNS.Host, libvirtxml.NetworkDNSHost{IP: "10.9.0.10", Hostnames: []libvirtxml.NetworkDNSHostHostname{{Hostname: "x"}}})
	config := networkObject(t, doc, "")
	s := networkSchema()
	resp := &resource.ValidateConfigResponse{}
	NewNetworkResource().(*networkResource).ValidateConfig(context.Background(), resource.ValidateConfigRequest{Config: tfsdk.Config{Schema: s, Raw: config}}, resp)
	// attached to the top-level attribute (the CLI cannot place nested
	// attribute paths); the detail names the elements
	var got []string
	for _, d := range resp.Diagnostics {
		got = append(got, d.(interface{ Path() path.Path }).Path().String()+": "+d.Detail())
	}
	want := []string{
		`ips: ips[0].dhcp.hosts[0] and [1] both have mac "52:54:00:00:00:0A": each reservation needs its own MAC, IP and name.`,
		`ips: ips[0].dhcp.hosts[0] and [1] both have ip "10.9.0.10": each reservation needs its own MAC, IP and name.`,
		`dns: dns.host[0] and [1] both have ip "10.9.0.10": list all hostnames of an address in one entry (hostnames = [...]).`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	resp = &resource.ValidateConfigResponse{}
	NewNetworkResource().(*networkResource).ValidateConfig(context.Background(), resource.ValidateConfigRequest{Config: tfsdk.Config{Schema: s, Raw: networkObject(t, opstest.NetworkDoc(), "")}}, resp)
	if resp.Diagnostics.HasError() {
		t.Errorf("valid configuration refused: %v", resp.Diagnostics)
	}
}

// BenchmarkNetworkModifyPlan measures the resource-level plan pass (keep
// libvirt's choices, diff, classify) for a network with 64 reservations and
// one changed: it runs on every plan of every network.
func BenchmarkNetworkModifyPlan(b *testing.B) {
	const id = "6a0d6c8e-3c39-4a52-9a1e-0d1f4f1f3b21"
	t := &testing.T{}
	big := func(changed bool) *libvirtxml.Network {
		d := opstest.NetworkDoc()
		d.IPs[0].DHCP.Hosts = nil
		for i := 0; i < 64; i++ {
			ip := fmt.Sprintf("10.9.0.%d", 10+i)
			if changed && i == 63 {
				ip = "10.9.0.250"
			}
			d.IPs[0].DHCP.Hosts = append(d.IPs[0].DHCP.Hosts, libvirtxml.NetworkDHCPHost{MAC: fmt.Sprintf("52:54:00:00:01:%02x", i), IP: ip, Name: fmt.Sprintf("h%d", i)})
		}
		return d
	}
	state := networkObject(t, big(false), id)
	plan := networkObject(t, big(true), id)
	s := networkSchema()
	req := resource.ModifyPlanRequest{
		State: tfsdk.State{Schema: s, Raw: state}, Plan: tfsdk.Plan{Schema: s, Raw: plan}, Config: tfsdk.Config{Schema: s, Raw: plan},
	}
	r := NewNetworkResource().(*networkResource)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp := &resource.ModifyPlanResponse{Plan: tfsdk.Plan{Schema: s, Raw: plan}}
		r.ModifyPlan(context.Background(), req, resp)
		if len(resp.Diagnostics) != 0 || len(resp.RequiresReplace) != 0 {
			b.Fatalf("a live change planned a restart or replacement: %v %v", resp.Diagnostics, resp.RequiresReplace)
		}
	}
}
