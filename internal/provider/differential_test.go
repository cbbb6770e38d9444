package provider_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/provider"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// The differential test sends the same ValidateResourceConfig,
// PlanResourceChange and UpgradeResourceState requests for every tree
// resource to the server that ships (provider.ProtocolServer) and to the
// framework's own server for the same provider, and requires the same
// diagnostics, the same planned values outside the document tree, the same
// replacement paths and the same private state. Inside the tree the two
// differ by design: the engine keeps a computed value's prior value where
// the framework plans it unknown.

var docTypes = map[string]map[string]tftypes.Type{
	"libvirt_domain":  xmlschema.Domain().AttributeTypes(),
	"libvirt_network": xmlschema.Network().AttributeTypes(),
	"libvirt_pool":    xmlschema.StoragePool().AttributeTypes(),
	"libvirt_volume":  xmlschema.StorageVolume().AttributeTypes(),
	"libvirt_secret":  xmlschema.Secret().AttributeTypes(),
}

type servers struct {
	ours, framework tfprotov6.ProviderServer
	types           map[string]tftypes.Object
}

func newServers(t *testing.T) *servers {
	t.Helper()
	ctx := context.Background()
	s := &servers{
		ours:      provider.ProtocolServer("test")(),
		framework: providerserver.NewProtocol6(provider.New("test")())(),
		types:     map[string]tftypes.Object{},
	}
	sch, err := s.ours.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for name := range docTypes {
		s.types[name] = sch.ResourceSchemas[name].ValueType().(tftypes.Object)
	}
	// the framework server answers nothing before it has its schema
	if _, err := s.framework.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// object builds a value of the resource type with the given attributes,
// null elsewhere.
func (s *servers) object(typeName string, attrs map[string]tftypes.Value) tftypes.Value {
	typ := s.types[typeName]
	vals := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		if v, ok := attrs[name]; ok {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(t, nil)
		}
	}
	return tftypes.NewValue(typ, vals)
}

func dynamic(t *testing.T, typ tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	d, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return &d
}

// objOf builds an object of type t with the given attributes, null elsewhere.
func objOf(t tftypes.Type, attrs map[string]tftypes.Value) tftypes.Value {
	vals := map[string]tftypes.Value{}
	for name, at := range t.(tftypes.Object).AttributeTypes {
		if v, ok := attrs[name]; ok {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(at, nil)
		}
	}
	return tftypes.NewValue(t, vals)
}

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
func boolean(b bool) tftypes.Value {
	return tftypes.NewValue(tftypes.Bool, b)
}
func num(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }

func pathStrings(ps []*tftypes.AttributePath) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	sort.Strings(out)
	return out
}

// outsideTree returns the attributes of a planned value that are not in
// the document tree, rendered for comparison.
func outsideTree(t *testing.T, typeName string, typ tftypes.Type, dv *tfprotov6.DynamicValue) map[string]string {
	t.Helper()
	if dv == nil {
		return nil
	}
	v, err := dv.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if v.IsNull() {
		return map[string]string{"": "null"}
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, a := range attrs {
		if _, inTree := docTypes[typeName][name]; !inTree {
			out[name] = a.String()
		}
	}
	return out
}

// outsidePaths renders the paths whose first step is not a document attribute.
func outsidePaths(typeName string, ps []*tftypes.AttributePath) []string {
	var keep []*tftypes.AttributePath
	for _, p := range ps {
		if steps := p.Steps(); len(steps) > 0 {
			if name, ok := steps[0].(tftypes.AttributeName); ok {
				if _, inTree := docTypes[typeName][string(name)]; inTree {
					continue
				}
			}
		}
		keep = append(keep, p)
	}
	return pathStrings(keep)
}

func sameStrings(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

type validateCase struct {
	name, typeName string
	config         map[string]tftypes.Value
	// writeOnly: the client supports write-only attributes
	writeOnly bool
	// wantError: the case must produce an error on both servers
	wantError string
}

func TestDifferentialValidate(t *testing.T) {
	s := newServers(t)
	ctx := context.Background()
	timeouts := func(create string) tftypes.Value {
		typ := s.types["libvirt_volume"].AttributeTypes["timeouts"]
		return tftypes.NewValue(typ, map[string]tftypes.Value{"create": str(create)})
	}
	cases := []validateCase{
		{name: "domain minimal", typeName: "libvirt_domain", config: map[string]tftypes.Value{
			"name": str("d"), "type": str("qemu"), "memory": num(64), "memory_unit": str("MiB")}},
		{name: "domain own attributes", typeName: "libvirt_domain", config: map[string]tftypes.Value{
			"name": str("d"), "type": str("qemu"), "running": boolean(true), "shutdown_timeout": str("90s")}},
		{name: "network minimal", typeName: "libvirt_network", config: map[string]tftypes.Value{"name": str("n")}},
		{name: "pool minimal", typeName: "libvirt_pool", config: map[string]tftypes.Value{"name": str("p"), "type": str("dir")}},
		{name: "volume minimal", typeName: "libvirt_volume", config: map[string]tftypes.Value{
			"name": str("v"), "pool": str("p"), "capacity": num(1024)}},
		{name: "volume timeouts valid", typeName: "libvirt_volume", config: map[string]tftypes.Value{
			"name": str("v"), "pool": str("p"), "capacity": num(1024), "timeouts": timeouts("10m")}},
		// a validator inside a nested own attribute (the framework-timeouts duration check)
		{name: "volume timeouts invalid", typeName: "libvirt_volume", wantError: "banana", config: map[string]tftypes.Value{
			"name": str("v"), "pool": str("p"), "capacity": num(1024), "timeouts": timeouts("banana")}},
		// write-only own attributes: allowed only for clients that support them
		{name: "secret write-only", typeName: "libvirt_secret", writeOnly: true, config: map[string]tftypes.Value{
			"value_wo": str("s3cret"), "value_wo_version": num(1)}},
		{name: "secret write-only, old client", typeName: "libvirt_secret", wantError: "WriteOnly Attribute Not Allowed", config: map[string]tftypes.Value{
			"value_wo": str("s3cret"), "value_wo_version": num(1)}},
		{name: "volume timeouts unknown", typeName: "libvirt_volume", config: map[string]tftypes.Value{
			"name": str("v"), "pool": str("p"), "capacity": num(1024),
			"timeouts": tftypes.NewValue(s.types["libvirt_volume"].AttributeTypes["timeouts"], tftypes.UnknownValue)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			typ := s.types[c.typeName]
			req := &tfprotov6.ValidateResourceConfigRequest{TypeName: c.typeName, Config: dynamic(t, typ, s.object(c.typeName, c.config)),
				ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: c.writeOnly}}
			ours, err := s.ours.ValidateResourceConfig(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			fw, err := s.framework.ValidateResourceConfig(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			o, f := treeresource.DiagStrings(ours.Diagnostics), treeresource.DiagStrings(fw.Diagnostics)
			if !sameStrings(o, f) {
				t.Errorf("diagnostics differ\nours:      %q\nframework: %q", o, f)
			}
			if c.wantError != "" && (!treeresource.HasError(ours.Diagnostics) || !strings.Contains(strings.Join(o, " "), c.wantError)) {
				t.Errorf("want an error naming %q, got %q", c.wantError, o)
			}
			if c.wantError == "" && treeresource.HasError(ours.Diagnostics) {
				t.Errorf("valid configuration refused: %q", o)
			}
		})
	}
}

type planCase struct {
	name, typeName              string
	config, prior, proposed     map[string]tftypes.Value // prior nil: create; proposed nil with destroy
	destroy                     bool
	wantReplace, wantErrorMatch string
}

func TestDifferentialPlan(t *testing.T) {
	s := newServers(t)
	ctx := context.Background()
	const uuid = "742b4a76-5db9-4919-bdc2-4a0d431f07c2"
	merge := func(ms ...map[string]tftypes.Value) map[string]tftypes.Value {
		out := map[string]tftypes.Value{}
		for _, m := range ms {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	domCfg := map[string]tftypes.Value{"name": str("d"), "type": str("qemu"), "memory": num(64), "memory_unit": str("MiB")}
	domState := merge(domCfg, map[string]tftypes.Value{
		"id": str(uuid), "uuid": str(uuid), "running": boolean(false), "autostart": boolean(false), "start_paused": boolean(false),
		"start_force_boot": boolean(false), "restart_on_change": boolean(false), "shutdown_timeout": str("60s"),
		"console_urls": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{}),
	})
	netCfg := map[string]tftypes.Value{"name": str("n")}
	netState := merge(netCfg, map[string]tftypes.Value{"id": str(uuid), "uuid": str(uuid), "running": boolean(true), "autostart": boolean(false)})
	poolCfg := map[string]tftypes.Value{"name": str("p"), "type": str("dir")}
	poolTarget := objOf(s.types["libvirt_pool"].AttributeTypes["target"], map[string]tftypes.Value{"path": str("/var/lib/p")})
	poolState := merge(poolCfg, map[string]tftypes.Value{"id": str(uuid), "uuid": str(uuid), "autostart": boolean(false), "delete_volumes": boolean(false),
		"target": poolTarget, "capacity": num(1 << 30), "capacity_unit": str("bytes"), "allocation": num(0), "allocation_unit": str("bytes"),
		"available": num(1 << 30), "available_unit": str("bytes")})
	volTargetType := s.types["libvirt_volume"].AttributeTypes["target"]
	volCfg := map[string]tftypes.Value{"name": str("v"), "pool": str("p"), "capacity": num(1 << 20)}
	volState := merge(volCfg, map[string]tftypes.Value{"id": str("/var/lib/p/v"), "key": str("/var/lib/p/v"), "path": str("/var/lib/p/v"),
		"capacity_unit": str("bytes"), "allocation": num(0), "allocation_unit": str("bytes"),
		"target": objOf(volTargetType, map[string]tftypes.Value{"path": str("/var/lib/p/v"),
			"format": objOf(volTargetType.(tftypes.Object).AttributeTypes["format"], map[string]tftypes.Value{"type": str("raw")})})})

	secCfg := map[string]tftypes.Value{"value_wo": str("s3cret"), "value_wo_version": num(1)}
	secState := map[string]tftypes.Value{"id": str(uuid), "uuid": str(uuid), "value_wo_version": num(1)}
	cases := []planCase{
		// a write-only value is planned null, on create and on update
		{name: "secret create write-only", typeName: "libvirt_secret", config: secCfg},
		{name: "secret write-only version", typeName: "libvirt_secret", config: merge(secCfg, map[string]tftypes.Value{"value_wo_version": num(2)}),
			prior: secState, proposed: merge(secState, map[string]tftypes.Value{"value_wo": str("s3cret"), "value_wo_version": num(2)})},
		{name: "domain create", typeName: "libvirt_domain", config: domCfg},
		{name: "domain unchanged", typeName: "libvirt_domain", config: domCfg, prior: domState, proposed: domState},
		{name: "domain start", typeName: "libvirt_domain", config: merge(domCfg, map[string]tftypes.Value{"running": boolean(true)}),
			prior: domState, proposed: merge(domState, map[string]tftypes.Value{"running": boolean(true)})},
		{name: "domain type change", typeName: "libvirt_domain", config: merge(domCfg, map[string]tftypes.Value{"type": str("kvm")}),
			prior: domState, proposed: merge(domState, map[string]tftypes.Value{"type": str("kvm")}), wantReplace: "type"},
		{name: "domain destroy", typeName: "libvirt_domain", prior: domState, destroy: true},
		{name: "network create", typeName: "libvirt_network", config: netCfg},
		{name: "network stop", typeName: "libvirt_network", config: merge(netCfg, map[string]tftypes.Value{"running": boolean(false)}),
			prior: netState, proposed: merge(netState, map[string]tftypes.Value{"running": boolean(false)})},
		{name: "network rename", typeName: "libvirt_network", config: merge(netCfg, map[string]tftypes.Value{"name": str("m")}),
			prior: netState, proposed: merge(netState, map[string]tftypes.Value{"name": str("m")}), wantReplace: "name"},
		{name: "pool create", typeName: "libvirt_pool", config: poolCfg},
		{name: "pool autostart", typeName: "libvirt_pool", config: merge(poolCfg, map[string]tftypes.Value{"autostart": boolean(true)}),
			prior: poolState, proposed: merge(poolState, map[string]tftypes.Value{"autostart": boolean(true)})},
		{name: "pool type change", typeName: "libvirt_pool", config: merge(poolCfg, map[string]tftypes.Value{"type": str("fs")}),
			prior: poolState, proposed: merge(poolState, map[string]tftypes.Value{"type": str("fs")}), wantReplace: "type"},
		{name: "pool destroy", typeName: "libvirt_pool", prior: poolState, destroy: true},
		{name: "volume create", typeName: "libvirt_volume", config: volCfg},
		{name: "volume create without size", typeName: "libvirt_volume", config: map[string]tftypes.Value{"name": str("v"), "pool": str("p")},
			wantErrorMatch: "Missing volume capacity"},
		{name: "volume grow", typeName: "libvirt_volume", config: merge(volCfg, map[string]tftypes.Value{"capacity": num(2 << 20)}),
			prior: volState, proposed: merge(volState, map[string]tftypes.Value{"capacity": num(2 << 20)})},
		{name: "volume shrink", typeName: "libvirt_volume", config: merge(volCfg, map[string]tftypes.Value{"capacity": num(1 << 10)}),
			prior: volState, proposed: merge(volState, map[string]tftypes.Value{"capacity": num(1 << 10)}), wantErrorMatch: "cannot shrink"},
		{name: "volume new pool", typeName: "libvirt_volume", config: merge(volCfg, map[string]tftypes.Value{"pool": str("q")}),
			prior: volState, proposed: merge(volState, map[string]tftypes.Value{"pool": str("q")}), wantReplace: "pool"},
		{name: "volume unknown pool", typeName: "libvirt_volume", config: merge(volCfg, map[string]tftypes.Value{"pool": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}),
			prior: volState, proposed: merge(volState, map[string]tftypes.Value{"pool": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}), wantReplace: "pool"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			typ := s.types[c.typeName]
			req := &tfprotov6.PlanResourceChangeRequest{TypeName: c.typeName, PriorPrivate: nil}
			if c.prior != nil {
				req.PriorState = dynamic(t, typ, s.object(c.typeName, c.prior))
			} else {
				req.PriorState = dynamic(t, typ, tftypes.NewValue(typ, nil))
			}
			switch {
			case c.destroy:
				req.ProposedNewState = dynamic(t, typ, tftypes.NewValue(typ, nil))
				req.Config = dynamic(t, typ, tftypes.NewValue(typ, nil))
			case c.proposed != nil:
				req.ProposedNewState = dynamic(t, typ, s.object(c.typeName, c.proposed))
				req.Config = dynamic(t, typ, s.object(c.typeName, c.config))
			default:
				req.ProposedNewState = dynamic(t, typ, s.object(c.typeName, c.config))
				req.Config = dynamic(t, typ, s.object(c.typeName, c.config))
			}
			ours, err := s.ours.PlanResourceChange(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			fw, err := s.framework.PlanResourceChange(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			o, f := treeresource.DiagStrings(ours.Diagnostics), treeresource.DiagStrings(fw.Diagnostics)
			if !sameStrings(o, f) {
				t.Fatalf("diagnostics differ\nours:      %q\nframework: %q", o, f)
			}
			if c.wantErrorMatch != "" {
				if !treeresource.HasError(ours.Diagnostics) || !strings.Contains(strings.Join(o, " "), c.wantErrorMatch) {
					t.Fatalf("want an error matching %q, got %q", c.wantErrorMatch, o)
				}
				return
			}
			if treeresource.HasError(ours.Diagnostics) {
				t.Fatalf("unexpected errors: %q", o)
			}
			op, fp := outsideTree(t, c.typeName, typ, ours.PlannedState), outsideTree(t, c.typeName, typ, fw.PlannedState)
			if fmt.Sprint(op) != fmt.Sprint(fp) {
				t.Errorf("planned values outside the tree differ\nours:      %v\nframework: %v", op, fp)
			}
			// Inside the tree the framework plans every computed value the
			// configuration leaves null unknown, and so replaces where the
			// core keeps the prior value: compare the paths outside it.
			or, fr := pathStrings(ours.RequiresReplace), pathStrings(fw.RequiresReplace)
			if o, f := outsidePaths(c.typeName, ours.RequiresReplace), outsidePaths(c.typeName, fw.RequiresReplace); !sameStrings(o, f) {
				t.Errorf("replacement paths differ\nours:      %q\nframework: %q", or, fr)
			}
			want := []string(nil)
			if c.wantReplace != "" {
				want = []string{tftypes.NewAttributePath().WithAttributeName(c.wantReplace).String()}
			}
			if !sameStrings(or, want) {
				t.Errorf("replacement paths %q, want %q", or, want)
			}
			// the core adds its record of the configuration's shape
			op2, had := treeresource.WithoutShape(ours.PlannedPrivate)
			if had == c.destroy {
				t.Errorf("shape recorded: %v, want %v", had, !c.destroy)
			}
			if string(op2) != string(fw.PlannedPrivate) {
				t.Errorf("planned private differs: ours %q, framework %q", op2, fw.PlannedPrivate)
			}
		})
	}
}

func TestDifferentialUpgrade(t *testing.T) {
	s := newServers(t)
	ctx := context.Background()
	states := map[string]string{
		"libvirt_domain":  `{"id":"742b4a76-5db9-4919-bdc2-4a0d431f07c2","name":"d","type":"qemu","memory":65536,"running":false,"no_longer_in_schema":1}`,
		"libvirt_network": `{"id":"742b4a76-5db9-4919-bdc2-4a0d431f07c2","name":"n","running":true}`,
		"libvirt_pool":    `{"id":"742b4a76-5db9-4919-bdc2-4a0d431f07c2","name":"p","type":"dir","delete_volumes":false}`,
		"libvirt_volume":  `{"id":"/var/lib/p/v","name":"v","pool":"p","capacity":1048576,"timeouts":null}`,
	}
	for _, version := range []int64{0, 1} { // 1: the current version (this layer); 0: the upgrader
		for name, js := range states {
			t.Run(fmt.Sprintf("%s v%d", name, version), func(t *testing.T) {
				req := &tfprotov6.UpgradeResourceStateRequest{TypeName: name, Version: version, RawState: &tfprotov6.RawState{JSON: []byte(js)}}
				ours, err := s.ours.UpgradeResourceState(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				fw, err := s.framework.UpgradeResourceState(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if o, f := treeresource.DiagStrings(ours.Diagnostics), treeresource.DiagStrings(fw.Diagnostics); !sameStrings(o, f) || treeresource.HasError(ours.Diagnostics) {
					t.Fatalf("diagnostics: ours %q, framework %q", o, f)
				}
				typ := s.types[name]
				ov, err := ours.UpgradedState.Unmarshal(typ)
				if err != nil {
					t.Fatal(err)
				}
				fv, err := fw.UpgradedState.Unmarshal(typ)
				if err != nil {
					t.Fatal(err)
				}
				if !ov.Equal(fv) {
					t.Errorf("upgraded states differ\nours:      %v\nframework: %v", ov, fv)
				}
				if n, _ := ov.ApplyTerraform5AttributePathStep(tftypes.AttributeName("name")); n == nil {
					t.Errorf("upgraded state lost its name")
				}
			})
		}
	}
}
