package treeresource

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// A lookup data source over the fake tree resource (the pool document):
// found by `label` (an own attribute of the resource) with `name`, or by
// `uuid`.

type lookupFake struct {
	srv     *Server
	typ     tftypes.Object
	pools   map[string]*libvirtxml.StoragePool // by uuid
	readErr error
}

func lookupFakeSpec(lf *lookupFake) DataSpec[libvirtxml.StoragePool] {
	return DataSpec[libvirtxml.StoragePool]{
		Name: "fake", Model: xmlschema.StoragePool(), Description: "a fake lookup",
		Ways: [][]string{{"label", "name"}, {"uuid"}},
		Args: map[string]Arg{
			"label": {Description: "the label"},
			"name":  {Description: "the name"},
			"uuid":  {Description: "the uuid", Check: CheckUUID},
		},
		Reported: map[string]string{"id": "the id"},
		Find: func(_ context.Context, c *libvirtconn.Client, by map[string]string) (string, error) {
			if c == nil {
				return "", errors.New("no client")
			}
			for id, p := range lf.pools {
				if by["uuid"] == id || (by["name"] != "" && by["name"] == p.Name) {
					return id, nil
				}
			}
			return "", fmt.Errorf("no matching pool: %w", libvirtconn.ErrNotFound)
		},
		Fetch: func(_ context.Context, _ *libvirtconn.Client, id string) (*Fetched[libvirtxml.StoragePool], error) {
			if lf.readErr != nil {
				return nil, lf.readErr
			}
			p, ok := lf.pools[id]
			if !ok {
				return nil, libvirtconn.ErrNotFound
			}
			cp := *p
			return &Fetched[libvirtxml.StoragePool]{Doc: &cp, Own: map[string]tftypes.Value{"id": StringValue(id), "enabled": BoolValue(true)}}, nil
		},
	}
}

// lookupFakeServer serves the fake resource and its data source, configured
// (the client is never dialled: the fake Find and Fetch do not use it).
// schema says whether GetProviderSchema is called first.
func lookupFakeServer(t *testing.T, schema bool) *lookupFake {
	t.Helper()
	ctx := context.Background()
	lf := &lookupFake{pools: map[string]*libvirtxml.StoragePool{
		fakeUUID: {Type: "dir", Name: "images", UUID: fakeUUID, Target: &libvirtxml.StoragePoolTarget{Path: "/var/lib/images"}},
	}}
	p := &fakeProvider{resources: []func() resource.Resource{newFakeResource(func(string) (*Fetched[libvirtxml.StoragePool], error) {
		return nil, errors.New("the resource is not read here")
	})}}
	srv, err := NewServer(ctx, providerserver.NewProtocol6(p)(), "libvirt", p.resources, func() any {
		if p.client == nil {
			return nil
		}
		return p.client
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.AddDataSources(NewDataSource(lookupFakeSpec(lf))); err != nil {
		t.Fatal(err)
	}
	lf.srv = srv
	lf.typ = srv.data["libvirt_fake"].objType
	if schema {
		if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _ := tfprotov6.NewDynamicValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, map[string]tftypes.Value{}))
	if resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &cfg}); err != nil || HasError(resp.Diagnostics) {
		t.Fatalf("configure: %v %v", err, resp.Diagnostics)
	}
	return lf
}

// lookupConfig is a data source configuration: attrs set, the rest null.
func (lf *lookupFake) lookupConfig(t *testing.T, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	vals := map[string]tftypes.Value{}
	for name, typ := range lf.typ.AttributeTypes {
		vals[name] = tftypes.NewValue(typ, nil)
	}
	for k, v := range attrs {
		vals[k] = v
	}
	dv, err := tfprotov6.NewDynamicValue(lf.typ, tftypes.NewValue(lf.typ, vals))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// lookupWalk calls f for every attribute of a schema, nested ones included,
// with its dotted path.
func lookupWalk(prefix string, attrs []*tfprotov6.SchemaAttribute, f func(string, *tfprotov6.SchemaAttribute)) {
	for _, a := range attrs {
		p := prefix + a.Name
		f(p, a)
		if a.NestedType != nil {
			lookupWalk(p+".", a.NestedType.Attributes, f)
		}
	}
}

func TestLookupDataSchema(t *testing.T) {
	lf := lookupFakeServer(t, true)
	ctx := context.Background()
	resp, err := lf.srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || HasError(resp.Diagnostics) {
		t.Fatalf("schema: %v %v", err, resp.Diagnostics)
	}
	ds := resp.DataSourceSchemas["libvirt_fake"]
	if ds == nil {
		t.Fatalf("no data source schema; have %v", resp.DataSourceSchemas)
	}
	if ds.Block.Description != "a fake lookup" {
		t.Errorf("description %q", ds.Block.Description)
	}
	// the document's attributes, the reported id and the own lookup argument; not the resource's other own attributes
	var top []string
	for _, a := range ds.Block.Attributes {
		top = append(top, a.Name)
	}
	var want []string
	for name := range xmlschema.StoragePool().AttributeTypes() {
		want = append(want, name)
	}
	want = append(want, "id", "label")
	sort.Strings(want)
	if strings.Join(top, " ") != strings.Join(want, " ") {
		t.Errorf("attributes\n %v\nwant\n %v", top, want)
	}
	n := 0
	lookupWalk("", ds.Block.Attributes, func(p string, a *tfprotov6.SchemaAttribute) {
		n++
		arg := p == "label" || p == "name" || p == "uuid"
		if !a.Computed || a.Required || a.Optional != arg || a.WriteOnly {
			t.Errorf("%s: required %v optional %v computed %v write-only %v; want computed%s", p, a.Required, a.Optional, a.Computed, a.WriteOnly,
				map[bool]string{true: " and optional (a lookup argument)", false: " only"}[arg])
		}
	})
	if n < 30 {
		t.Errorf("only %d attributes walked: the nested document tree is missing", n)
	}
	for _, a := range ds.Block.Attributes {
		switch a.Name {
		case "uuid":
			if a.Description != "the uuid" {
				t.Errorf("uuid description %q", a.Description)
			}
		case "id":
			if a.Description != "the id" {
				t.Errorf("id description %q", a.Description)
			}
		case "target":
			if !strings.Contains(a.Description, "<target>") {
				t.Errorf("target keeps the resource's description, got %q", a.Description)
			}
		}
	}
	if !ds.ValueType().Equal(lf.typ) {
		t.Errorf("the schema's type differs from the type requests are decoded with")
	}
	// the resource's schema is untouched: its document attributes stay configurable
	for _, a := range resp.ResourceSchemas["libvirt_fake"].Block.Attributes {
		if a.Name == "target" && !a.Optional {
			t.Errorf("the resource's target became read-only")
		}
	}
	md, err := lf.srv.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range md.DataSources {
		found = found || d.TypeName == "libvirt_fake"
	}
	if !found {
		t.Errorf("GetMetadata lists %v, not libvirt_fake", md.DataSources)
	}
	if got := lf.srv.DataTypes(); strings.Join(got, " ") != "libvirt_fake" {
		t.Errorf("DataTypes %v", got)
	}
}

func TestLookupDataValidate(t *testing.T) {
	lf := lookupFakeServer(t, false) // tofu may validate without asking for the schema first
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	unknown := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	cases := map[string]struct {
		attrs map[string]tftypes.Value
		want  []string // summary|attribute path|detail fragment
	}{
		"by uuid":               {map[string]tftypes.Value{"uuid": str(fakeUUID)}, nil},
		"by label and name":     {map[string]tftypes.Value{"label": str("l"), "name": str("images")}, nil},
		"unknown is given":      {map[string]tftypes.Value{"uuid": unknown}, nil},
		"unknown half of a way": {map[string]tftypes.Value{"label": unknown, "name": str("images")}, nil},
		"none":                  {nil, []string{"Missing lookup argument||Give `label` with `name`, or `uuid` to find the fake."}},
		"two ways": {map[string]tftypes.Value{"name": str("images"), "uuid": str(fakeUUID)},
			[]string{"Ambiguous lookup|AttributeName(\"uuid\")|`uuid` cannot be combined with `name`: give exactly one of `label` with `name`, or `uuid` to find the fake."}},
		"half a way": {map[string]tftypes.Value{"name": str("images")},
			[]string{"Incomplete lookup|AttributeName(\"label\")|`label` is required with `name` to find the fake."}},
		"bad uuid": {map[string]tftypes.Value{"uuid": str("nope")},
			[]string{"Invalid lookup argument|AttributeName(\"uuid\")|`uuid`: \"nope\" is not a UUID"}},
		"empty": {map[string]tftypes.Value{"uuid": str("")},
			[]string{"Invalid lookup argument|AttributeName(\"uuid\")|`uuid` is empty."}},
		"read-only attribute": {map[string]tftypes.Value{"uuid": str(fakeUUID), "type": str("dir")},
			[]string{"Invalid Configuration for Read-Only Attribute|AttributeName(\"type\")|`type` is read-only"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resp, err := lf.srv.ValidateDataResourceConfig(context.Background(), &tfprotov6.ValidateDataResourceConfigRequest{
				TypeName: "libvirt_fake", Config: lf.lookupConfig(t, c.attrs)})
			if err != nil {
				t.Fatal(err)
			}
			lookupSameDiags(t, resp.Diagnostics, c.want)
		})
	}
}

// lookupSameDiags compares error diagnostics with summary|path|detail
// fragments.
func lookupSameDiags(t *testing.T, got []*tfprotov6.Diagnostic, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("diagnostics %v, want %v", DiagStrings(got), want)
	}
	for i, w := range want {
		parts := strings.SplitN(w, "|", 3)
		d := got[i]
		p := ""
		if d.Attribute != nil {
			p = d.Attribute.String()
		}
		if d.Severity != tfprotov6.DiagnosticSeverityError || d.Summary != parts[0] || p != parts[1] || !strings.Contains(d.Detail, parts[2]) {
			t.Errorf("diagnostic %d: %v %q at %q: %q; want %q", i, d.Severity, d.Summary, p, d.Detail, w)
		}
	}
}

func TestLookupDataRead(t *testing.T) {
	lf := lookupFakeServer(t, false)
	ctx := context.Background()
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	read := func(attrs map[string]tftypes.Value) *tfprotov6.ReadDataSourceResponse {
		t.Helper()
		resp, err := lf.srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "libvirt_fake", Config: lf.lookupConfig(t, attrs)})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	// found by label and name: the document as fetched, the id reported,
	// the label as configured; what Fetch reports beyond Reported is left out
	resp := read(map[string]tftypes.Value{"label": str("mine"), "name": str("images")})
	if HasError(resp.Diagnostics) || resp.State == nil {
		t.Fatalf("read: %v", DiagStrings(resp.Diagnostics))
	}
	state, err := resp.State.Unmarshal(lf.typ)
	if err != nil {
		t.Fatal(err)
	}
	attrs := ObjectAttrs(state)
	for name, want := range map[string]string{"id": fakeUUID, "uuid": fakeUUID, "name": "images", "type": "dir", "label": "mine"} {
		if got, _ := String(attrs, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got, _ := String(ObjectAttrs(attrs["target"]), "path"); got != "/var/lib/images" {
		t.Errorf("target.path = %q", got)
	}
	if _, ok := attrs["enabled"]; ok {
		t.Errorf("an own attribute of the resource that the data source does not report is in its state")
	}
	if !state.IsFullyKnown() {
		t.Errorf("the state has unknown values")
	}

	// not found: the message names what was looked up, at the argument
	resp = read(map[string]tftypes.Value{"uuid": str("6c6b7000-74fa-4c6b-9000-0000000000ff")})
	lookupSameDiags(t, resp.Diagnostics, []string{`Cannot find fake|AttributeName("uuid")|No fake with uuid "6c6b7000-74fa-4c6b-9000-0000000000ff" on this libvirt host`})
	if resp.State != nil {
		t.Errorf("a state for an object not found")
	}
	resp = read(map[string]tftypes.Value{"label": str("l"), "name": str("nothing")})
	lookupSameDiags(t, resp.Diagnostics, []string{`Cannot find fake|AttributeName("label")|No fake with label "l" and name "nothing"`})

	// another error reading it
	lf.readErr = errors.New("connection reset")
	resp = read(map[string]tftypes.Value{"uuid": str(fakeUUID)})
	lookupSameDiags(t, resp.Diagnostics, []string{`Cannot read fake||Reading the fake with uuid "` + fakeUUID + `": connection reset`})
	lf.readErr = nil

	// the same argument checks as validation
	resp = read(map[string]tftypes.Value{"name": str("images"), "uuid": str(fakeUUID)})
	lookupSameDiags(t, resp.Diagnostics, []string{"Ambiguous lookup|AttributeName(\"uuid\")|cannot be combined"})
}

func TestLookupAddDataSourcesRefuses(t *testing.T) {
	ctx := context.Background()
	p := &fakeProvider{resources: []func() resource.Resource{newFakeResource(nil)}}
	srv, err := NewServer(ctx, providerserver.NewProtocol6(p)(), "libvirt", p.resources, func() any { return nil })
	if err != nil {
		t.Fatal(err)
	}
	lf := &lookupFake{}
	type spec = DataSpec[libvirtxml.StoragePool]
	cases := map[string]struct {
		mutate func(*spec)
		want   string
	}{
		"no resource":        {func(s *spec) { s.Name = "other" }, "no tree resource libvirt_other"},
		"unknown reported":   {func(s *spec) { s.Reported = map[string]string{"nope": ""} }, `"nope" is not an attribute of the resource`},
		"argument not Arg":   {func(s *spec) { s.Ways = [][]string{{"type"}, {"label", "name", "uuid"}} }, `lookup argument "type" has no Arg`},
		"not a string":       {func(s *spec) { s.Ways, s.Args = [][]string{{"enabled"}}, map[string]Arg{"enabled": {}} }, `lookup argument "enabled" is not a string`},
		"argument in no way": {func(s *spec) { s.Ways = [][]string{{"uuid"}, {"name"}} }, `argument "label" is in no way`},
		"no way":             {func(s *spec) { s.Ways = nil }, "no way to find the object"},
	}
	for name, c := range cases {
		sp := lookupFakeSpec(lf)
		c.mutate(&sp)
		err := srv.AddDataSources(NewDataSource(sp))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %s", name, err, c.want)
		}
	}
	if err := srv.AddDataSources(NewDataSource(lookupFakeSpec(lf))); err != nil {
		t.Fatalf("the unchanged spec: %v", err)
	}
	if err := srv.AddDataSources(NewDataSource(lookupFakeSpec(lf))); err == nil || !strings.Contains(err.Error(), "added twice") {
		t.Errorf("a second libvirt_fake: %v", err)
	}
}

func TestLookupDescribeWays(t *testing.T) {
	for want, ways := range map[string][][]string{
		"`name` or `uuid`":             {{"name"}, {"uuid"}},
		"`pool` with `name`, or `key`": {{"pool", "name"}, {"key"}},
		"`key`":                        {{"key"}},
		"`a`, `b`, or `c`":             {{"a"}, {"b"}, {"c"}},
	} {
		d := &dataType{dataSpec: dataSpec{ways: ways}}
		if got := d.describeWays(); got != want {
			t.Errorf("%v: %q, want %q", ways, got, want)
		}
	}
}
