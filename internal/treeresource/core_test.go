package treeresource

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

const fakeUUID = "742b4a76-5db9-4919-bdc2-4a0d431f07c2"

type fakeServers struct {
	ours      *Server
	framework tfprotov6.ProviderServer
	typ       tftypes.Object
	fetched   map[string]*libvirtxml.StoragePool // by id; missing: not found
	fetchErr  error
}

func newFakeServers(t *testing.T) *fakeServers {
	t.Helper()
	ctx := context.Background()
	fs := &fakeServers{fetched: map[string]*libvirtxml.StoragePool{}}
	fetch := func(id string) (*Fetched[libvirtxml.StoragePool], error) {
		if fs.fetchErr != nil {
			return nil, fs.fetchErr
		}
		d, ok := fs.fetched[id]
		if !ok {
			return nil, fmt.Errorf("no pool %s: %w", id, libvirtconn.ErrNotFound)
		}
		cp := *d
		return &Fetched[libvirtxml.StoragePool]{Doc: &cp, Own: map[string]tftypes.Value{"id": StringValue(id)}}, nil
	}
	p := &fakeProvider{resources: []func() resource.Resource{newFakeResource(fetch)}}
	fs.framework = providerserver.NewProtocol6(p)()
	ours, err := NewServer(ctx, providerserver.NewProtocol6(p)(), "libvirt", p.resources, func() any {
		if p.client == nil {
			return nil
		}
		return p.client
	})
	if err != nil {
		t.Fatal(err)
	}
	fs.ours = ours
	sch, err := fs.ours.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if HasError(sch.Diagnostics) {
		t.Fatalf("schema: %v %s", sch.Diagnostics[0].Summary, sch.Diagnostics[0].Detail)
	}
	fs.typ = sch.ResourceSchemas["libvirt_fake"].ValueType().(tftypes.Object)
	if _, err := fs.framework.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := tfprotov6.NewDynamicValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, map[string]tftypes.Value{}))
	for _, srv := range []tfprotov6.ProviderServer{fs.framework, fs.ours} {
		resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &cfg})
		if err != nil || HasError(resp.Diagnostics) {
			t.Fatalf("configure: %v %v", err, resp.Diagnostics)
		}
	}
	return fs
}

func (fs *fakeServers) value(attrs map[string]tftypes.Value) tftypes.Value {
	vals := map[string]tftypes.Value{}
	for name, t := range fs.typ.AttributeTypes {
		if v, ok := attrs[name]; ok {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(t, nil)
		}
	}
	return tftypes.NewValue(fs.typ, vals)
}

func (fs *fakeServers) dv(t *testing.T, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	d, err := tfprotov6.NewDynamicValue(fs.typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return &d
}

func (fs *fakeServers) attrType(name string) tftypes.Type { return fs.typ.AttributeTypes[name] }

func s(v string) tftypes.Value { return tftypes.NewValue(tftypes.String, v) }

func TestFakeValidateMatchesFramework(t *testing.T) {
	fs := newFakeServers(t)
	ctx := context.Background()
	strList := func(t tftypes.Type, vs ...string) tftypes.Value {
		var out []tftypes.Value
		for _, v := range vs {
			out = append(out, s(v))
		}
		return tftypes.NewValue(t, out)
	}
	items := func(v string) tftypes.Value {
		lt := fs.attrType("items").(tftypes.List)
		return tftypes.NewValue(lt, []tftypes.Value{tftypes.NewValue(lt.ElementType, map[string]tftypes.Value{"v": s(v)})})
	}
	base := map[string]tftypes.Value{"name": s("p"), "type": s("dir")}
	with := func(k string, v tftypes.Value) map[string]tftypes.Value {
		out := map[string]tftypes.Value{k: v}
		for bk, bv := range base {
			if _, ok := out[bk]; !ok {
				out[bk] = bv
			}
		}
		return out
	}
	cases := []struct {
		name   string
		config map[string]tftypes.Value
		want   string // a summary both must report; "" for none
	}{
		{"valid", base, ""},
		{"string", with("label", s("bad")), "Rejected value"},
		{"bool", with("enabled", tftypes.NewValue(tftypes.Bool, false)), "Rejected value"},
		{"int64", with("replicas", tftypes.NewValue(tftypes.Number, 13)), "Rejected value"},
		{"float64", with("ratio", tftypes.NewValue(tftypes.Number, 0.5)), "Rejected value"},
		{"number", with("big", tftypes.NewValue(tftypes.Number, 7)), "Rejected value"},
		{"list", with("tags", strList(fs.attrType("tags"), "x")), "Rejected value"},
		{"set", with("set", tftypes.NewValue(fs.attrType("set"), []tftypes.Value{s("y")})), "Rejected value"},
		{"map", with("labels", tftypes.NewValue(fs.attrType("labels"), map[string]tftypes.Value{"k": s("v")})), "Rejected value"},
		{"object", with("plain", tftypes.NewValue(fs.attrType("plain"), map[string]tftypes.Value{"a": s("z")})), "Rejected value"},
		{"nested object", with("nested", tftypes.NewValue(fs.attrType("nested"), map[string]tftypes.Value{"inner": s("whole")})), "Rejected value"},
		{"nested leaf", with("nested", tftypes.NewValue(fs.attrType("nested"), map[string]tftypes.Value{"inner": s("deep")})), "Rejected value"},
		{"nested unknown", with("nested", tftypes.NewValue(fs.attrType("nested"), tftypes.UnknownValue)), ""},
		{"list nested whole", with("items", items("all")), "Rejected value"},
		{"list nested element", with("items", items("elem")), "Rejected value"},
		{"list nested leaf", with("items", items("leaf")), "Rejected value"},
		{"list nested unknown", with("items", tftypes.NewValue(fs.attrType("items"), tftypes.UnknownValue)), ""},
		{"deprecated", with("old", s("x")), "Attribute Deprecated"},
		{"resource ValidateConfig", with("name", s("forbidden")), "Forbidden name"},
		{"ConfigValidators", with("label", s("p")), "Name equals label"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := &tfprotov6.ValidateResourceConfigRequest{TypeName: "libvirt_fake", Config: fs.dv(t, fs.value(c.config))}
			o, err := fs.ours.ValidateResourceConfig(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			f, err := fs.framework.ValidateResourceConfig(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			od, fd := DiagStrings(o.Diagnostics), DiagStrings(f.Diagnostics)
			if strings.Join(od, "\n") != strings.Join(fd, "\n") {
				t.Fatalf("diagnostics differ\nours:      %q\nframework: %q", od, fd)
			}
			if c.want == "" && len(od) > 0 {
				t.Fatalf("want none, got %q", od)
			}
			if c.want != "" && !strings.Contains(strings.Join(od, " "), "|"+c.want+"|") {
				t.Fatalf("want %q, got %q", c.want, od)
			}
		})
	}
}

func TestFakePlanMatchesFramework(t *testing.T) {
	fs := newFakeServers(t)
	ctx := context.Background()
	target := tftypes.NewValue(fs.attrType("target"), nil)
	{
		tt := fs.attrType("target").(tftypes.Object)
		vals := map[string]tftypes.Value{}
		for n, at := range tt.AttributeTypes {
			vals[n] = tftypes.NewValue(at, nil)
		}
		vals["path"] = s("/p")
		target = tftypes.NewValue(tt, vals)
	}
	cfg := map[string]tftypes.Value{"name": s("p"), "type": s("dir")}
	state := map[string]tftypes.Value{"name": s("p"), "type": s("dir"), "id": s(fakeUUID), "uuid": s(fakeUUID), "target": target,
		"label": s("none"), "enabled": tftypes.NewValue(tftypes.Bool, true), "replicas": tftypes.NewValue(tftypes.Number, 1),
		"capacity": tftypes.NewValue(tftypes.Number, 10), "capacity_unit": s("bytes")}
	with := func(m map[string]tftypes.Value, k string, v tftypes.Value) map[string]tftypes.Value {
		out := map[string]tftypes.Value{k: v}
		for mk, mv := range m {
			if _, ok := out[mk]; !ok {
				out[mk] = mv
			}
		}
		return out
	}
	priorPrivate := []byte(`{".framework_key":"dHJ1ZQ==","kept":"MQ=="}`)
	cases := []struct {
		name                    string
		config, prior, proposed map[string]tftypes.Value
		destroy                 bool
		private                 []byte
		wantReplace             []string
		wantWarning             string
	}{
		{name: "create", config: cfg},
		{name: "create with label", config: with(cfg, "label", s("x"))},
		{name: "unchanged", config: cfg, prior: state, proposed: state, private: priorPrivate},
		{name: "label changes", config: with(cfg, "label", s("y")), prior: state, proposed: with(state, "label", s("y")), wantReplace: []string{"label"}},
		{name: "replicas changes", config: with(cfg, "replicas", tftypes.NewValue(tftypes.Number, 2)), prior: state,
			proposed: with(state, "replicas", tftypes.NewValue(tftypes.Number, 2)), wantReplace: []string{"replicas"}, private: priorPrivate},
		{name: "document changes", config: with(cfg, "type", s("fs")), prior: state, proposed: with(state, "type", s("fs")), wantReplace: []string{"type"}},
		{name: "unknown label", config: with(cfg, "label", tftypes.NewValue(tftypes.String, tftypes.UnknownValue)), prior: state,
			proposed: with(state, "label", tftypes.NewValue(tftypes.String, tftypes.UnknownValue)), wantReplace: []string{"label"}},
		{name: "destroy", prior: state, destroy: true, private: priorPrivate, wantWarning: "Destroying fake"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := &tfprotov6.PlanResourceChangeRequest{TypeName: "libvirt_fake", PriorPrivate: c.private}
			null := tftypes.NewValue(fs.typ, nil)
			req.PriorState = fs.dv(t, null)
			if c.prior != nil {
				req.PriorState = fs.dv(t, fs.value(c.prior))
			}
			switch {
			case c.destroy:
				req.ProposedNewState, req.Config = fs.dv(t, null), fs.dv(t, null)
			case c.proposed != nil:
				req.ProposedNewState, req.Config = fs.dv(t, fs.value(c.proposed)), fs.dv(t, fs.value(c.config))
			default:
				req.ProposedNewState, req.Config = fs.dv(t, fs.value(c.config)), fs.dv(t, fs.value(c.config))
			}
			o, err := fs.ours.PlanResourceChange(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			f, err := fs.framework.PlanResourceChange(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			od, fd := DiagStrings(o.Diagnostics), DiagStrings(f.Diagnostics)
			if strings.Join(od, "\n") != strings.Join(fd, "\n") || HasError(o.Diagnostics) {
				t.Fatalf("diagnostics\nours:      %q\nframework: %q", od, fd)
			}
			if c.wantWarning != "" && !strings.Contains(strings.Join(od, " "), c.wantWarning) {
				t.Errorf("want warning %q, got %q", c.wantWarning, od)
			}
			ov, err := o.PlannedState.Unmarshal(fs.typ)
			if err != nil {
				t.Fatal(err)
			}
			fv, err := f.PlannedState.Unmarshal(fs.typ)
			if err != nil {
				t.Fatal(err)
			}
			docTypes := xmlschema.StoragePool().AttributeTypes()
			oa, fa := ObjectAttrs(ov), ObjectAttrs(fv)
			for name := range fs.typ.AttributeTypes {
				if _, inTree := docTypes[name]; inTree {
					continue
				}
				if !oa[name].Equal(fa[name]) {
					t.Errorf("%s: ours %v, framework %v", name, oa[name], fa[name])
				}
			}
			if ov.IsNull() != fv.IsNull() {
				t.Errorf("null: ours %v, framework %v", ov.IsNull(), fv.IsNull())
			}
			// outside the tree, replacement paths agree with the framework;
			// inside it the framework replaces wherever it planned a computed
			// null unknown, which the core does not do
			var or, fr []string
			for _, p := range o.RequiresReplace {
				or = append(or, p.String())
			}
			for _, p := range f.RequiresReplace {
				if name, ok := p.Steps()[0].(tftypes.AttributeName); ok {
					if _, inTree := docTypes[string(name)]; inTree && !slices.Contains(c.wantReplace, string(name)) {
						continue
					}
				}
				fr = append(fr, p.String())
			}
			var want []string
			for _, w := range c.wantReplace {
				want = append(want, tftypes.NewAttributePath().WithAttributeName(w).String())
			}
			if fmt.Sprint(or) != fmt.Sprint(fr) || fmt.Sprint(or) != fmt.Sprint(want) {
				t.Errorf("replace: ours %v, framework %v, want %v", or, fr, want)
			}
			op, had := WithoutShape(o.PlannedPrivate)
			if had == c.destroy {
				t.Errorf("shape recorded: %v, want %v", had, !c.destroy)
			}
			if string(op) != string(f.PlannedPrivate) {
				t.Errorf("private: ours %s, framework %s", op, f.PlannedPrivate)
			}
			if !c.destroy && !strings.Contains(string(o.PlannedPrivate), `"planned"`) {
				t.Errorf("ModifyPlan's private key lost: %s", o.PlannedPrivate)
			}
		})
	}
}

func TestFakeReadMatchesFramework(t *testing.T) {
	fs := newFakeServers(t)
	ctx := context.Background()
	fs.fetched[fakeUUID] = &libvirtxml.StoragePool{Type: "dir", Name: "p", UUID: fakeUUID,
		Source: &libvirtxml.StoragePoolSource{Name: "src"}, Target: &libvirtxml.StoragePoolTarget{Path: "/p"}}
	imported := fs.value(map[string]tftypes.Value{"id": s(fakeUUID)})
	managed := fs.value(map[string]tftypes.Value{"id": s(fakeUUID), "name": s("p"), "type": s("DIR"), "label": s("mine")})
	gone := fs.value(map[string]tftypes.Value{"id": s("00000000-0000-0000-0000-000000000000")})
	cases := []struct {
		name    string
		state   tftypes.Value
		private []byte
		check   func(t *testing.T, v tftypes.Value)
		err     error
	}{
		{name: "after import", state: imported, private: []byte(`{".import_before_read":"dHJ1ZQ=="}`), check: func(t *testing.T, v tftypes.Value) {
			a := ObjectAttrs(v)
			if !a["source"].IsNull() {
				t.Errorf("PruneImported did not run: source %v", a["source"])
			}
			if l, _ := String(a, "label"); l != "none" {
				t.Errorf("own attribute after import = %q, want its default", l)
			}
		}},
		{name: "managed", state: managed, private: []byte(`{"planned":"dHJ1ZQ=="}`), check: func(t *testing.T, v tftypes.Value) {
			a := ObjectAttrs(v)
			if ty, _ := String(a, "type"); ty != "DIR" {
				t.Errorf("FixUp did not run: type %q", ty)
			}
			if l, _ := String(a, "label"); l != "mine" {
				t.Errorf("own attribute = %q, want the prior value", l)
			}
		}},
		{name: "gone", state: gone, check: func(t *testing.T, v tftypes.Value) {
			if !v.IsNull() {
				t.Errorf("a missing object stays in state: %v", v)
			}
		}},
		{name: "error", state: managed, err: errors.New("connection reset")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs.fetchErr = c.err
			req := &tfprotov6.ReadResourceRequest{TypeName: "libvirt_fake", CurrentState: fs.dv(t, c.state), Private: c.private}
			o, err := fs.ours.ReadResource(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			f, err := fs.framework.ReadResource(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			od, fd := DiagStrings(o.Diagnostics), DiagStrings(f.Diagnostics)
			if strings.Join(od, "\n") != strings.Join(fd, "\n") {
				t.Fatalf("diagnostics\nours:      %q\nframework: %q", od, fd)
			}
			if c.err != nil {
				if !strings.Contains(strings.Join(od, " "), "Cannot read fake") {
					t.Errorf("want a read error, got %q", od)
				}
				return
			}
			ov, _ := o.NewState.Unmarshal(fs.typ)
			fv, _ := f.NewState.Unmarshal(fs.typ)
			if !ov.Equal(fv) {
				t.Errorf("new state differs\nours:      %v\nframework: %v", ov, fv)
			}
			if string(o.Private) != string(f.Private) {
				t.Errorf("private: ours %s, framework %s", o.Private, f.Private)
			}
			c.check(t, ov)
		})
	}
}

func TestFakeUpgrade(t *testing.T) {
	fs := newFakeServers(t)
	ctx := context.Background()
	for _, js := range []string{`{"id":"x","name":"p","gone":1}`, `{"id":"x","name":`, `{"id":"x","name":{"not":"a string"}}`} {
		req := &tfprotov6.UpgradeResourceStateRequest{TypeName: "libvirt_fake", RawState: &tfprotov6.RawState{JSON: []byte(js)}}
		o, err := fs.ours.UpgradeResourceState(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		f, err := fs.framework.UpgradeResourceState(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if od, fd := DiagStrings(o.Diagnostics), DiagStrings(f.Diagnostics); strings.Join(od, "\n") != strings.Join(fd, "\n") {
			t.Fatalf("%s: diagnostics\nours:      %q\nframework: %q", js, od, fd)
		}
		if HasError(o.Diagnostics) {
			continue
		}
		ov, _ := o.UpgradedState.Unmarshal(fs.typ)
		fv, _ := f.UpgradedState.Unmarshal(fs.typ)
		if !ov.Equal(fv) {
			t.Errorf("%s: ours %v, framework %v", js, ov, fv)
		}
	}
}

// TestNewServerRefuses: behaviour of own attributes the layer cannot run as
// the framework would is refused when the server is built.
func TestNewServerRefuses(t *testing.T) {
	ctx := context.Background()
	cases := map[string]schema.Attribute{
		"nested default": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
			"x": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("d")}}},
		"list modifier": schema.ListAttribute{Optional: true, Computed: true, ElementType: types.StringType},
		"nested modifier": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"x": schema.StringAttribute{Optional: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}}}}},
		"set nested": schema.SetNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"x": schema.StringAttribute{Optional: true}}}},
	}
	for name, a := range cases {
		t.Run(name, func(t *testing.T) {
			f := func() resource.Resource {
				r := &fakeResource{}
				own := fakeOwn()
				own["extra"] = a
				r.Base = NewBase(Spec[libvirtxml.StoragePool]{Name: "fake", Model: xmlschema.StoragePool(), Own: own}, r)
				return r
			}
			_, err := NewServer(ctx, nil, "libvirt", []func() resource.Resource{f}, func() any { return nil })
			if name == "list modifier" { // supported: no default or modifier
				if err != nil {
					t.Fatalf("refused a plain computed list: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "extra") {
				t.Fatalf("want an error naming the attribute, got %v", err)
			}
		})
	}
}

func TestKeepChosen(t *testing.T) {
	obj := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.String, "l": tftypes.List{ElementType: tftypes.String}}}
	unknown := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	null := tftypes.NewValue(tftypes.String, nil)
	list := func(vs ...tftypes.Value) tftypes.Value {
		return tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, vs)
	}
	o := func(a, l tftypes.Value) tftypes.Value {
		return tftypes.NewValue(obj, map[string]tftypes.Value{"a": a, "l": l})
	}
	cases := []struct {
		name                string
		plan, state, config tftypes.Value
		want                tftypes.Value
	}{
		{"unknown, not configured: state", unknown, s("x"), null, s("x")},
		{"unknown in config stays", unknown, s("x"), unknown, unknown},
		{"no state", unknown, null, null, unknown},
		{"known stays", s("y"), s("x"), s("y"), s("y")},
		{"nested", o(unknown, list(unknown)), o(s("x"), list(s("e"))), o(null, list(null)), o(s("x"), list(s("e")))},
		{"lists of other lengths", o(s("a"), list(unknown)), o(s("a"), list(s("e"), s("f"))), o(s("a"), list(null)), o(s("a"), list(unknown))},
		{"config null object", o(unknown, list()), o(s("x"), list()), tftypes.NewValue(obj, nil), o(unknown, list())},
	}
	for _, c := range cases {
		if got := KeepChosen(c.plan, c.state, c.config); !got.Equal(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPrivateState(t *testing.T) {
	ps, err := decodePrivate([]byte(`{".fw":"YQ==","mine":"MQ=="}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(ps.framework[".fw"]) != "a" || string(ps.provider["mine"]) != "1" {
		t.Fatalf("decoded %v", ps)
	}
	ctx := context.Background()
	var carrier resource.ModifyPlanRequest
	if d := providerDataFor(ctx, &carrier.Private, ps.provider); d.HasError() {
		t.Fatal(d)
	}
	if v, _ := carrier.Private.GetKey(ctx, "mine"); string(v) != "1" {
		t.Fatalf("GetKey = %q", v)
	}
	carrier.Private.SetKey(ctx, "new", []byte(`{"x":1}`))
	keys := providerDataKeys(carrier.Private)
	if string(keys["new"]) != `{"x":1}` || string(keys["mine"]) != "1" {
		t.Fatalf("keys %v", keys)
	}
	ps.provider = keys
	b, err := ps.encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodePrivate(b)
	if err != nil || len(back.provider) != 2 || len(back.framework) != 1 {
		t.Fatalf("round trip: %v %v", back, err)
	}
	if b, _ := (privateState{}).encode(); b != nil {
		t.Errorf("empty private state encodes to %q, want nil", b)
	}
	if _, err := decodePrivate([]byte(`not json`)); err == nil {
		t.Errorf("bad private bytes accepted")
	}
	if keys := providerDataKeys(resource.ReadRequest{}.Private); len(keys) != 0 {
		t.Errorf("nil provider data has keys %v", keys)
	}
}

func TestHelpers(t *testing.T) {
	if err := CheckUUID(fakeUUID); err != nil {
		t.Fatalf("UUID %s refused: %v", fakeUUID, err)
	}
	for _, bad := range []string{"x", "742b4a76-5db9-4919-bdc2-4a0d431f07cz"} {
		if err := CheckUUID(bad); err == nil {
			t.Errorf("%q parsed as a UUID", bad)
		}
	}
	var diags diag.Diagnostics
	AddConversionError(&diags, "Invalid", &xmlschema.PathError{Steps: []any{"devices", "disks", 0, "type"}, Msg: "bad"})
	AddConversionError(&diags, "Invalid", errors.New("plain"))
	if p := diags[0].(diag.DiagnosticWithPath).Path(); !p.Equal(path.Root("devices")) || !strings.Contains(diags[0].Detail(), "devices") {
		t.Errorf("path error at %v: %s", p, diags[0].Detail())
	}
	if _, ok := diags[1].(diag.DiagnosticWithPath); ok || diags[1].Detail() != "plain" {
		t.Errorf("plain error: %v", diags[1])
	}
	if got := TopLevel(path.Root("ips").AtListIndex(0).AtName("mac")); !got.Equal(path.Root("ips")) {
		t.Errorf("TopLevel = %v", got)
	}
	diags = nil
	if c := ClientFrom("not a client", &diags); c != nil || !diags.HasError() {
		t.Errorf("ClientFrom accepted a string")
	}
	diags = nil
	if RequireClient(nil, &diags) || !diags.HasError() {
		t.Errorf("RequireClient(nil) passed")
	}
	ap := toAttributePath(path.Root("m").AtMapKey("k").AtSetValue(types.StringValue("v")))
	if !strings.Contains(ap.String(), "ElementKeyString") || !strings.Contains(ap.String(), "ElementKeyValue") {
		t.Errorf("path %s", ap)
	}
	if toAttributePath(path.Empty()) != nil {
		t.Errorf("empty path converted")
	}
	got := normaliseReplace(path.Paths{path.Root("b"), path.Root("a"), path.Root("b")})
	if fmt.Sprint(got) != "[a,b]" {
		t.Errorf("normaliseReplace = %v", got)
	}
	a := map[string]tftypes.Value{"id": s("x"), "name": tftypes.NewValue(tftypes.String, nil)}
	if !Importing(a, nil) {
		t.Errorf("a state with only an id is an import")
	}
	routing := map[string]schema.Attribute{"host": schema.StringAttribute{Optional: true}}
	a["host"] = s("b")
	if Importing(a, nil) || !Importing(a, routing) {
		t.Errorf("a routing attribute set beside the id: import %v without routing, %v with", Importing(a, nil), Importing(a, routing))
	}
	a["name"] = s("n")
	if Importing(a, routing) {
		t.Errorf("a full state is not an import")
	}
	if b, ok := Bool(map[string]tftypes.Value{"b": BoolValue(true)}, "b"); !b || !ok {
		t.Errorf("Bool")
	}
	if n := Nested(tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"x": tftypes.String}}, map[string]tftypes.Value{"x": s("v")}), "x"); !n.Equal(s("v")) {
		t.Errorf("Nested = %v", n)
	}
	if n := Nested(tftypes.NewValue(tftypes.String, nil), "x"); !n.IsNull() {
		t.Errorf("Nested of null = %v", n)
	}
}

func TestServerCachesAndTypes(t *testing.T) {
	fs := newFakeServers(t)
	if got := fs.ours.TreeTypes(); fmt.Sprint(got) != "[libvirt_fake]" {
		t.Errorf("TreeTypes = %v", got)
	}
	v := fs.value(map[string]tftypes.Value{"id": s(fakeUUID)})
	dv := fs.dv(t, v)
	if err := fs.ours.RememberValue("libvirt_fake", dv); err != nil {
		t.Fatal(err)
	}
	tt := fs.ours.types["libvirt_fake"]
	if got, ok := tt.values.get(dv.MsgPack); !ok || !got.Equal(v) {
		t.Errorf("RememberValue did not keep the value")
	}
	fs.ours.ForgetValues()
	if _, ok := tt.values.get(dv.MsgPack); ok {
		t.Errorf("ForgetValues kept a value")
	}
	if err := fs.ours.RememberValue("libvirt_other", dv); err == nil {
		t.Errorf("RememberValue of an unknown type passed")
	}
	// a second schema request is answered from the first
	ctx := context.Background()
	a, _ := fs.ours.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	b, _ := fs.ours.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if a != b {
		t.Errorf("schema built twice")
	}
}
