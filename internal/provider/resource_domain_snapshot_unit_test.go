package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

const snapshotUnitDomain = "742b4a76-5db9-4919-bdc2-4a0d431f07c2"

// TestDomainSnapshotValidate: bad input is refused at validate, before
// anything reaches libvirt, with the attribute path and what is allowed.
func TestDomainSnapshotValidate(t *testing.T) {
	for _, tc := range []struct{ name, attrs, want string }{
		{"domain not a UUID", `domain = "web1"
  name = "s1"`, `domain = "web1" is not a UUID: set the domain's UUID`},
		{"slash in name", `domain = "` + snapshotUnitDomain + `"
  name = "a/b"`, `must not contain "/"`},
		{"memory mode", `domain = "` + snapshotUnitDomain + `"
  name = "s1"
  memory = { snapshot = "full" }`, `memory.snapshot = "full": allowed are "no", "internal" and "external"`},
		{"external memory without file", `domain = "` + snapshotUnitDomain + `"
  name = "s1"
  memory = { snapshot = "external" }`, `needs memory.file`},
		{"disk_only with memory", `domain = "` + snapshotUnitDomain + `"
  name = "s1"
  disk_only = true
  memory = { snapshot = "internal" }`, `disk_only = true takes no memory state`},
		{"disk mode", `domain = "` + snapshotUnitDomain + `"
  name = "s1"
  disks = { disks = [{ name = "vda", snapshot = "copy" }] }`, `disks.disks\[0\].snapshot = "copy": allowed are "no", "internal",`},
		{"disk without name", `domain = "` + snapshotUnitDomain + `"
  name = "s1"
  disks = { disks = [{ snapshot = "internal" }] }`, `disks.disks\[0\].name is required`},
		{"name required", `domain = "` + snapshotUnitDomain + `"`, `The argument "name" is required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testUnitPlanError(t, "resource \"libvirt_domain_snapshot\" \"x\" {\n  "+tc.attrs+"\n}\n", tc.want)
		})
	}
}

// TestDomainSnapshotSchema: the schema is the snapshot's own document (the
// embedded domain definitions are skipped) plus the own attributes, with
// the paths the docs and examples use.
func TestDomainSnapshotSchema(t *testing.T) {
	s := resourceSchema(t, NewDomainSnapshotResource())
	for p, want := range map[string]attrKind{
		"name":                           kindStr,
		"description":                    kindStr,
		"memory.snapshot":                kindStr,
		"memory.file":                    kindStr,
		"disks.disks":                    kindListed,
		"disks.disks[].name":             kindStr,
		"disks.disks[].snapshot":         kindStr,
		"disks.disks[].driver.type":      kindStr,
		"disks.disks[].source.file.file": kindStr,
		"disks.disks[].source.block.dev": kindStr,
		"domain":                         kindStr,
		"disk_only":                      kindBool,
		"quiesce":                        kindBool,
		"live":                           kindBool,
		"atomic":                         kindBool,
		"state":                          kindStr,
		"creation_time":                  kindStr,
		"parent":                         kindStr,
		"id":                             kindStr,
	} {
		a, problem := lookupAttr(s.Attributes, p)
		if problem != "" {
			t.Errorf("%s: %s", p, problem)
			continue
		}
		if got := schemaKind(a); got != want {
			t.Errorf("%s: kind %s, want %s", p, got, want)
		}
	}
	for _, skipped := range []string{"domain_snapshot", "inactive_domain", "cookie", "active", "creation_time_"} {
		if _, ok := s.Attributes[skipped]; ok {
			t.Errorf("attribute %q should not be in the schema", skipped)
		}
	}
	if !s.Attributes["name"].IsRequired() || !s.Attributes["domain"].IsRequired() {
		t.Error("name and domain must be required")
	}
	if n := xmlschema.DomainSnapshot().Count(); n > 40 {
		t.Errorf("the snapshot document has %d attributes: the policy should keep it small", n)
	} else {
		t.Logf("snapshot document: %d attributes", n)
	}
}

// TestDomainSnapshotOutputOnly: what libvirt writes beside the
// configuration is dropped, an internal disk's invented empty source too.
func TestDomainSnapshotOutputOnly(t *testing.T) {
	var doc libvirtxml.DomainSnapshot
	err := doc.Unmarshal(`<domainsnapshot><name>s1</name><state>shutoff</state><creationTime>1796104386</creationTime>
<parent><name>s0</name></parent><memory snapshot='no'/>
<disks><disk name='vda' snapshot='internal'/><disk name='vdb' snapshot='external' type='file'><driver type='qcow2'/><source file='/o.qcow2'/></disk></disks>
<domain type='qemu'><name>d</name></domain><active>0</active></domainsnapshot>`)
	if err != nil {
		t.Fatal(err)
	}
	snapshotOutputOnly(&doc)
	if doc.Domain != nil || doc.Active != nil || doc.State != "" || doc.CreationTime != "" || doc.Parent != nil {
		t.Errorf("output-only parts kept: %+v", doc)
	}
	if doc.Disks.Disks[0].Source != nil {
		t.Errorf("internal disk keeps an invented source: %+v", doc.Disks.Disks[0].Source)
	}
	if s := doc.Disks.Disks[1].Source; s == nil || s.File == nil || s.File.File != "/o.qcow2" {
		t.Errorf("external disk lost its overlay: %+v", s)
	}
	if got := libvirtops.SnapshotExternalFiles(&libvirtxml.DomainSnapshot{
		Memory: &libvirtxml.DomainSnapshotMemory{Snapshot: "external", File: "/m"},
		Disks:  doc.Disks,
	}); fmt.Sprint(got) != "[/m /o.qcow2]" {
		t.Errorf("external files %v", got)
	}
}

func TestDomainSnapshotParseID(t *testing.T) {
	dom, name, err := libvirtops.ParseSnapshotID(snapshotUnitDomain + "/s1")
	if err != nil || name != "s1" || dom != snapshotUnitDomain {
		t.Errorf("parse: %v %q %v", dom, name, err)
	}
	for _, bad := range []string{"s1", snapshotUnitDomain + "/", "web1/s1"} {
		if _, _, err := libvirtops.ParseSnapshotID(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// snapshotPlanFixture is an unchanged internal snapshot's config and state
// as the protocol carries them.
func snapshotPlanFixture(b testing.TB) (*hostroute.Server, *tfprotov6.PlanResourceChangeRequest, tftypes.Type) {
	srv := ProtocolServer("bench")().(*hostroute.Server)
	ctx := context.Background()
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	ty := sch.ResourceSchemas["libvirt_domain_snapshot"].ValueType()
	objTy := ty.(tftypes.Object)
	config := map[string]tftypes.Value{}
	for name, t := range objTy.AttributeTypes {
		config[name] = tftypes.NewValue(t, nil)
	}
	config["name"] = tftypes.NewValue(tftypes.String, "s1")
	config["description"] = tftypes.NewValue(tftypes.String, "before the upgrade")
	config["domain"] = tftypes.NewValue(tftypes.String, snapshotUnitDomain)
	state := map[string]tftypes.Value{}
	for k, v := range config {
		state[k] = v
	}
	// what libvirt reports for an internal snapshot of a stopped domain
	for k, v := range xmlschema.DomainSnapshot().ToValues(&libvirtxml.DomainSnapshot{
		Name: "s1", Description: "before the upgrade",
		Memory: &libvirtxml.DomainSnapshotMemory{Snapshot: "no"},
		Disks:  &libvirtxml.DomainSnapshotDisks{Disks: []libvirtxml.DomainSnapshotDisk{{Name: "vda", Snapshot: "internal"}}},
	}) {
		state[k] = v
	}
	state["id"] = tftypes.NewValue(tftypes.String, snapshotUnitDomain+"/s1")
	for _, f := range []string{"disk_only", "quiesce", "live", "atomic"} {
		state[f] = tftypes.NewValue(tftypes.Bool, false)
	}
	state["state"] = tftypes.NewValue(tftypes.String, "shutoff")
	state["creation_time"] = tftypes.NewValue(tftypes.String, "2026-12-01T05:53:06Z")
	state["parent"] = tftypes.NewValue(tftypes.String, "")
	prior := tftypes.NewValue(ty, state)
	dv := func(v tftypes.Value) *tfprotov6.DynamicValue {
		d, err := tfprotov6.NewDynamicValue(ty, v)
		if err != nil {
			b.Fatal(err)
		}
		return &d
	}
	return srv, &tfprotov6.PlanResourceChangeRequest{
		TypeName:         "libvirt_domain_snapshot",
		PriorState:       dv(prior),
		ProposedNewState: dv(prior),
		Config:           dv(tftypes.NewValue(ty, config)),
	}, ty
}

// BenchmarkPlanResourceChangeDomainSnapshot measures the provider side of
// planning one unchanged snapshot, every request value decoded (compare
// BenchmarkPlanResourceChangeDomain).
func BenchmarkPlanResourceChangeDomainSnapshot(b *testing.B) {
	srv, req, ty := snapshotPlanFixture(b)
	// the plan measured is an empty one: planned state = prior state
	resp, err := srv.PlanResourceChange(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	if len(resp.RequiresReplace) > 0 || len(resp.Diagnostics) > 0 {
		b.Fatalf("an unchanged snapshot plans replace %v, diagnostics %v", resp.RequiresReplace, resp.Diagnostics)
	}
	planned, err := resp.PlannedState.Unmarshal(ty)
	if err != nil {
		b.Fatal(err)
	}
	prior, _ := req.PriorState.Unmarshal(ty)
	if !planned.Equal(prior) {
		b.Fatalf("an unchanged snapshot plans a change:\n%v\nprior:\n%v", planned, prior)
	}
	benchPlan(b, srv, req, func() { srv.ForgetValues() })
}

// TestDomainSnapshotPlanReplace: the plan of each change says what Update
// does: description in place, everything else (document, domain, create
// flags) replaces.
func TestDomainSnapshotPlanReplace(t *testing.T) {
	srv, base, ty := snapshotPlanFixture(t)
	prior, err := base.PriorState.Unmarshal(ty)
	if err != nil {
		t.Fatal(err)
	}
	config, err := base.Config.Unmarshal(ty)
	if err != nil {
		t.Fatal(err)
	}
	memType := ty.(tftypes.Object).AttributeTypes["memory"]
	for _, tc := range []struct {
		attr    string
		value   tftypes.Value
		replace string // "" for in place
	}{
		{"description", tftypes.NewValue(tftypes.String, "after"), ""},
		{"domain", tftypes.NewValue(tftypes.String, "0d4c6c0e-9b5e-4d8e-9c52-2b0a5f0c7a11"), "domain"},
		{"name", tftypes.NewValue(tftypes.String, "s2"), "name"},
		{"atomic", tftypes.NewValue(tftypes.Bool, true), "atomic"},
		{"disk_only", tftypes.NewValue(tftypes.Bool, true), "disk_only"},
		{"memory", tftypes.NewValue(memType, map[string]tftypes.Value{
			"snapshot": tftypes.NewValue(tftypes.String, "internal"), "file": tftypes.NewValue(tftypes.String, nil)}), "memory"},
	} {
		t.Run(tc.attr, func(t *testing.T) {
			with := func(v tftypes.Value) *tfprotov6.DynamicValue {
				var view map[string]tftypes.Value
				if err := v.As(&view); err != nil {
					t.Fatal(err)
				}
				attrs := make(map[string]tftypes.Value, len(view)) // As shares the value's map
				for k, x := range view {
					attrs[k] = x
				}
				attrs[tc.attr] = tc.value
				d, err := tfprotov6.NewDynamicValue(ty, tftypes.NewValue(ty, attrs))
				if err != nil {
					t.Fatal(err)
				}
				return &d
			}
			srv.ForgetValues()
			resp, err := srv.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{
				TypeName: "libvirt_domain_snapshot", PriorState: base.PriorState,
				ProposedNewState: with(prior), Config: with(config),
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Diagnostics) > 0 {
				t.Fatalf("diagnostics: %v", resp.Diagnostics[0])
			}
			var got []string
			for _, p := range resp.RequiresReplace {
				got = append(got, p.String())
			}
			want := []string{}
			if tc.replace != "" {
				want = []string{`AttributeName("` + tc.replace + `")`}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("requires replace %v, want %v", got, want)
			}
			planned, err := resp.PlannedState.Unmarshal(ty)
			if err != nil {
				t.Fatal(err)
			}
			var pa map[string]tftypes.Value
			_ = planned.As(&pa)
			if tc.attr == "memory" {
				// memory.file is computed: unknown until libvirt reports it
				if m := treeresource.ObjectAttrs(pa["memory"]); !m["snapshot"].Equal(tftypes.NewValue(tftypes.String, "internal")) {
					t.Errorf("planned memory %v", pa["memory"])
				}
			} else if !pa[tc.attr].Equal(tc.value) {
				t.Errorf("planned %s = %v, want %v", tc.attr, pa[tc.attr], tc.value)
			}
		})
	}
}
