package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// planDomainValue builds a resource value from a document and the own
// attributes that steer ModifyPlan.
func planDomainValue(t *testing.T, doc *libvirtxml.Domain, running, restartOnChange bool) tftypes.Value {
	t.Helper()
	typ := domainSchema().Type().TerraformType(context.Background())
	own := map[string]tftypes.Value{
		"id":                treeresource.StringValue("6f1c1a52-7a8e-4d0e-9d1e-0c1f2a3b4c5d"),
		attrRunning:         treeresource.BoolValue(running),
		attrAutostart:       treeresource.BoolValue(false),
		attrStartPaused:     treeresource.BoolValue(false),
		attrStartForceBoot:  treeresource.BoolValue(false),
		attrShutdownTimeout: treeresource.StringValue("0s"),
		attrRestartOnChange: treeresource.BoolValue(restartOnChange),
		attrConsoleURLs:     tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{}),
	}
	for _, name := range []string{attrCreate, attrDestroy, attrUpdate} {
		own[name] = tftypes.NewValue(typ.(tftypes.Object).AttributeTypes[name], nil)
	}
	return treeresource.BuildObject(typ, xmlschema.Domain().ToValues(doc), own)
}

func planTestDomain(mut func(*libvirtxml.Domain)) *libvirtxml.Domain {
	d := &libvirtxml.Domain{
		Type:   "qemu",
		Name:   "plan-test",
		Memory: &libvirtxml.DomainMemory{Value: 128, Unit: "MiB"},
		VCPU:   &libvirtxml.DomainVCPU{Value: 2, Current: 1},
		OS:     &libvirtxml.DomainOS{Type: &libvirtxml.DomainOSType{Type: "hvm"}},
	}
	if mut != nil {
		mut(d)
	}
	return d
}

// TestDomainModifyPlan covers what the one-pass planner gets from the
// resource: the next-boot warning (or the restart notice), nothing for live
// changes or stopped domains, and replacement for type and architecture.
func TestDomainModifyPlan(t *testing.T) {
	onReboot := func(d *libvirtxml.Domain) { d.OnReboot = "destroy" }
	cases := []struct {
		name            string
		mut             func(*libvirtxml.Domain)
		running         bool
		restartOnChange bool
		wantWarning     string // summary prefix; "" no warning
		wantReplace     []path.Path
	}{
		{"next-boot change, running", onReboot, true, false, "Change takes effect at the next boot", nil},
		{"next-boot change, restart_on_change", onReboot, true, true, "The domain will be restarted", nil},
		{"next-boot change, stopped", onReboot, false, false, "", nil},
		{"live vCPU change", func(d *libvirtxml.Domain) { d.VCPU.Current = 2 }, true, false, "", nil},
		{"live memory change", func(d *libvirtxml.Domain) { d.CurrentMemory = &libvirtxml.DomainCurrentMemory{Value: 96, Unit: "MiB"} }, true, false, "", nil},
		{"rename", func(d *libvirtxml.Domain) { d.Name = "plan-test-2" }, true, false, "Renaming restarts the domain", nil},
		{"type", func(d *libvirtxml.Domain) { d.Type = "kvm" }, true, false, "", []path.Path{path.Root("type")}},
		{"arch", func(d *libvirtxml.Domain) { d.OS.Type.Arch = "i686" }, false, false, "", []path.Path{path.Root("os").AtName("type_arch")}},
		// state from an import holds libvirt's arch; a configuration without it is no replacement
		{"arch left to libvirt", nil, false, false, "", nil},
	}
	s := domainSchema()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			state := planDomainValue(t, planTestDomain(func(d *libvirtxml.Domain) { d.OS.Type.Arch = "x86_64" }), c.running, false)
			plan := planDomainValue(t, planTestDomain(func(d *libvirtxml.Domain) {
				if c.mut != nil {
					d.OS.Type.Arch = "x86_64"
					c.mut(d)
				}
			}), c.running, c.restartOnChange)
			req := resource.ModifyPlanRequest{
				Plan:  tfsdk.Plan{Raw: plan, Schema: s},
				State: tfsdk.State{Raw: state, Schema: s},
			}
			resp := resource.ModifyPlanResponse{Plan: req.Plan}
			NewDomainResource().(*domainResource).ModifyPlan(context.Background(), req, &resp)
			if resp.Diagnostics.HasError() {
				t.Fatalf("errors: %v", resp.Diagnostics)
			}
			warnings := resp.Diagnostics.Warnings()
			switch {
			case c.wantWarning == "" && len(warnings) > 0:
				t.Fatalf("unexpected warnings: %v", warnings)
			case c.wantWarning != "" && (len(warnings) != 1 || !strings.HasPrefix(warnings[0].Summary(), c.wantWarning)):
				t.Fatalf("warnings %v, want one %q", warnings, c.wantWarning)
			}
			if len(resp.RequiresReplace) != len(c.wantReplace) {
				t.Fatalf("RequiresReplace = %v, want %v", resp.RequiresReplace, c.wantReplace)
			}
			for i := range c.wantReplace {
				if !resp.RequiresReplace[i].Equal(c.wantReplace[i]) {
					t.Fatalf("RequiresReplace = %v, want %v", resp.RequiresReplace, c.wantReplace)
				}
			}
		})
	}
}
