package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func dynamicValue(t *testing.T, typ tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// TestHostOf reads the host attribute out of msgpack values of every shape:
// set, null, unknown, absent (an older schema), and whole values null or
// unknown; around it, nested attributes named host must not count.
func TestHostOf(t *testing.T) {
	nested := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"host": tftypes.String}}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"a_nested": nested, "host": tftypes.String, "name": tftypes.String,
	}}
	obj := func(host tftypes.Value) tftypes.Value {
		return tftypes.NewValue(typ, map[string]tftypes.Value{
			"a_nested": tftypes.NewValue(nested, map[string]tftypes.Value{"host": tftypes.NewValue(tftypes.String, "decoy")}),
			"host":     host,
			"name":     tftypes.NewValue(tftypes.String, "x"),
		})
	}
	old := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String}}
	for _, c := range []struct {
		name string
		dv   *tfprotov6.DynamicValue
		want hostRef
		ok   bool
	}{
		{"named", dynamicValue(t, typ, obj(tftypes.NewValue(tftypes.String, "b"))), hostRef{name: "b"}, true},
		{"null", dynamicValue(t, typ, obj(tftypes.NewValue(tftypes.String, nil))), hostRef{null: true}, true},
		{"unknown", dynamicValue(t, typ, obj(tftypes.NewValue(tftypes.String, tftypes.UnknownValue))), hostRef{unknown: true}, true},
		{"absent", dynamicValue(t, old, tftypes.NewValue(old, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, "x")})), hostRef{null: true}, true},
		{"null object", dynamicValue(t, typ, tftypes.NewValue(typ, nil)), hostRef{}, false},
		{"unknown object", dynamicValue(t, typ, tftypes.NewValue(typ, tftypes.UnknownValue)), hostRef{}, false},
		{"no value", nil, hostRef{}, false},
		{"json", &tfprotov6.DynamicValue{JSON: []byte(`{"host":"b","name":"x"}`)}, hostRef{name: "b"}, true},
		{"json null", &tfprotov6.DynamicValue{JSON: []byte(`{"host":null}`)}, hostRef{null: true}, true},
	} {
		got, ok := hostOf(c.dv)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: hostOf = %+v, %t; want %+v, %t", c.name, got, ok, c.want, c.ok)
		}
	}
}

func testHostSet(t *testing.T, uri string, hosts map[string]string, unsafe ...string) *hostSet {
	t.Helper()
	elemType := types.ObjectType{AttrTypes: map[string]attr.Type{"uri": types.StringType, "migrate_unsafe": types.BoolType}}
	elems := map[string]attr.Value{}
	for name, u := range hosts {
		un := false
		for _, n := range unsafe {
			un = un || n == name
		}
		elems[name] = types.ObjectValueMust(elemType.AttrTypes, map[string]attr.Value{
			"uri": types.StringValue(u), "migrate_unsafe": types.BoolValue(un)})
	}
	var diags diag.Diagnostics
	m := types.MapValueMust(elemType, elems)
	s := newHostSet(context.Background(), uri, true, m, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	return s
}

// TestHostSet: names resolve to URIs, names of one URI share a client and
// are the same host, unknown names fail with the known ones listed.
func TestHostSet(t *testing.T) {
	s := testHostSet(t, "test:///default", map[string]string{"a": "test:///default", "b": "qemu+tcp://127.0.0.1:16600/system"}, "b")
	def, a, b := hostRef{null: true}, hostRef{name: "a"}, hostRef{name: "b"}
	if len(s.clients) != 2 {
		t.Errorf("%d clients for 2 distinct URIs", len(s.clients))
	}
	ca, _ := s.client(a)
	cd, _ := s.client(def)
	cb, _ := s.client(b)
	if ca == nil || ca != cd || cb == nil || cb == ca {
		t.Errorf("clients: a %p, default %p, b %p", ca, cd, cb)
	}
	if !s.sameHost(def, a) || s.sameHost(a, b) || s.sameHost(b, hostRef{unknown: true}) {
		t.Error("sameHost: the default and a share a URI; a and b do not; an unknown host is no known one")
	}
	if !s.migrateUnsafe(b) || s.migrateUnsafe(a) || s.migrateUnsafe(def) {
		t.Error("migrate_unsafe is b's only")
	}
	_, err := s.client(hostRef{name: "c"})
	if err == nil || !strings.Contains(err.Error(), `host "c" is not one of the provider's hosts (a, b)`) {
		t.Errorf("unknown host: %v", err)
	}
	none := testHostSet(t, "test:///default", nil)
	if _, err := none.client(hostRef{name: "c"}); err == nil || !strings.Contains(err.Error(), "the provider has no hosts") {
		t.Errorf("no hosts: %v", err)
	}
	ctx := withHost(context.Background(), b)
	if c, err := s.ClientFor(ctx); err != nil || c != cb {
		t.Errorf("ClientFor(host b) = %p, %v", c, err)
	}
	if c, err := s.ClientFor(context.Background()); err != nil || c != cd {
		t.Errorf("ClientFor(no host) = %p, %v: want the uri's client", c, err)
	}
}

// TestHostSetRefusesBadNames: host names are import prefixes, so no "/".
func TestHostSetRefusesBadNames(t *testing.T) {
	elemType := types.ObjectType{AttrTypes: map[string]attr.Type{"uri": types.StringType, "migrate_unsafe": types.BoolType}}
	m := types.MapValueMust(elemType, map[string]attr.Value{"x/y": types.ObjectValueMust(elemType.AttrTypes,
		map[string]attr.Value{"uri": types.StringValue("test:///default"), "migrate_unsafe": types.BoolNull()})})
	var diags diag.Diagnostics
	newHostSet(context.Background(), "", true, m, &diags)
	if !diags.HasError() || !strings.Contains(diags.Errors()[0].Detail(), `"x/y"`) {
		t.Errorf("diags %v", diags)
	}
}

// TestHostServerSchema: every tree resource has the host attribute (hostServer
// routes their calls); the others do not.
func TestHostServerSchema(t *testing.T) {
	s, err := newProtocolServer(&libvirtProvider{version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range s.TreeTypes() {
		if _, ok := s.hostedType(ctx, name); !ok {
			t.Errorf("%s has no host attribute", name)
		}
	}
	for _, name := range []string{"libvirt_cloudinit_disk", "libvirt_ignition", "libvirt_combustion"} {
		if _, ok := s.hostedType(ctx, name); ok {
			t.Errorf("%s has a host attribute but does not talk to libvirt", name)
		}
	}
}

// The host routing learns which resources move from the resources
// themselves (treeresource.Movable): a domain moves, everything else with a
// host attribute is replaced on another host.
func TestHostServerMovableFromResources(t *testing.T) {
	srv := ProtocolServer("test")().(*hostServer)
	ctx := context.Background()
	for typ, wantHosted := range map[string]bool{"libvirt_domain": true, "libvirt_network": true, "libvirt_volume": true, "libvirt_cloudinit_disk": false} {
		if _, hosted := srv.hostedType(ctx, typ); hosted != wantHosted {
			t.Errorf("%s: hosted %v, want %v", typ, hosted, wantHosted)
		}
	}
	var moving []string
	for typ := range srv.movable {
		moving = append(moving, typ)
	}
	if len(moving) != 1 || moving[0] != "libvirt_domain" {
		t.Errorf("movable resource types %v, want [libvirt_domain]", moving)
	}
}
