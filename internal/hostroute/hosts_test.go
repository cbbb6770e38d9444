package hostroute

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

// TestHostOf reads the host attribute out of values of every shape, decoded
// with the resource's type: set, null, unknown, and whole values null or
// unknown or not of the type (an older schema's value is upgraded before it
// is planned); around it, nested attributes named host must not count.
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
		want Ref
		ok   bool
	}{
		{"named", dynamicValue(t, typ, obj(tftypes.NewValue(tftypes.String, "b"))), Ref{Name: "b"}, true},
		{"null", dynamicValue(t, typ, obj(tftypes.NewValue(tftypes.String, nil))), Ref{Null: true}, true},
		{"unknown", dynamicValue(t, typ, obj(tftypes.NewValue(tftypes.String, tftypes.UnknownValue))), Ref{Unknown: true}, true},
		{"other type", dynamicValue(t, old, tftypes.NewValue(old, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, "x")})), Ref{}, false},
		{"null object", dynamicValue(t, typ, tftypes.NewValue(typ, nil)), Ref{}, false},
		{"unknown object", dynamicValue(t, typ, tftypes.NewValue(typ, tftypes.UnknownValue)), Ref{}, false},
		{"no value", nil, Ref{}, false},
		{"json", &tfprotov6.DynamicValue{JSON: []byte(`{"host":"b","name":"x"}`)}, Ref{Name: "b"}, true},
		{"json null", &tfprotov6.DynamicValue{JSON: []byte(`{"host":null}`)}, Ref{Null: true}, true},
	} {
		var got Ref
		var ok bool
		if c.dv == nil {
			got, ok = hostOf(tftypes.Value{}, nil)
		} else {
			got, ok = hostOf(c.dv.Unmarshal(typ))
		}
		if got != c.want || ok != c.ok {
			t.Errorf("%s: hostOf = %+v, %t; want %+v, %t", c.name, got, ok, c.want, c.ok)
		}
	}
}

func testSet(t *testing.T, uri string, hosts map[string]string, unsafe ...string) *Set {
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
	s := NewSet(context.Background(), uri, true, m, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	return s
}

// TestHostSet: names resolve to URIs, names of one URI share a client and
// are the same host, unknown names fail with the known ones listed.
func TestHostSet(t *testing.T) {
	s := testSet(t, "test:///default", map[string]string{"a": "test:///default", "b": "qemu+tcp://127.0.0.1:16600/system"}, "b")
	def, a, b := Ref{Null: true}, Ref{Name: "a"}, Ref{Name: "b"}
	if len(s.clients) != 2 {
		t.Errorf("%d clients for 2 distinct URIs", len(s.clients))
	}
	ca, _ := s.Client(a)
	cd, _ := s.Client(def)
	cb, _ := s.Client(b)
	if ca == nil || ca != cd || cb == nil || cb == ca {
		t.Errorf("clients: a %p, default %p, b %p", ca, cd, cb)
	}
	if !s.SameHost(def, a) || s.SameHost(a, b) || s.SameHost(b, Ref{Unknown: true}) {
		t.Error("sameHost: the default and a share a URI; a and b do not; an unknown host is no known one")
	}
	if !s.MigrateUnsafe(b) || s.MigrateUnsafe(a) || s.MigrateUnsafe(def) {
		t.Error("migrate_unsafe is b's only")
	}
	_, err := s.Client(Ref{Name: "c"})
	if err == nil || !strings.Contains(err.Error(), `host "c" is not one of the provider's hosts (a, b)`) {
		t.Errorf("unknown host: %v", err)
	}
	none := testSet(t, "test:///default", nil)
	if _, err := none.Client(Ref{Name: "c"}); err == nil || !strings.Contains(err.Error(), "the provider has no hosts") {
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
	NewSet(context.Background(), "", true, m, &diags)
	if !diags.HasError() || !strings.Contains(diags.Errors()[0].Detail(), `"x/y"`) {
		t.Errorf("diags %v", diags)
	}
}
