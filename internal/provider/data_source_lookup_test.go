package provider

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// TestLookupShippedDataSources: the shipped server answers the four lookup
// data sources, each with its resource's document tree (same types), every
// attribute computed and only the lookup arguments configurable.
func TestLookupShippedDataSources(t *testing.T) {
	s, err := newProtocolServer(&libvirtProvider{version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(s.DataTypes(), " "), "libvirt_domain libvirt_network libvirt_pool libvirt_volume"; got != want {
		t.Errorf("data sources %q, want %q", got, want)
	}
	resp, err := s.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || lookupErrors(resp.Diagnostics) != "" {
		t.Fatalf("schema: %v %v", err, resp.Diagnostics)
	}
	if resp.DataSourceSchemas["libvirt_domain_interface_addresses"] == nil {
		t.Errorf("the framework's data source is gone")
	}
	args := map[string][]string{
		"libvirt_domain": {"name", "uuid"}, "libvirt_network": {"name", "uuid"},
		"libvirt_pool": {"name", "uuid"}, "libvirt_volume": {"key", "name", "pool"},
	}
	docTypes := map[string]map[string]tftypes.Type{
		"libvirt_domain": xmlschema.Domain().AttributeTypes(), "libvirt_network": xmlschema.Network().AttributeTypes(),
		"libvirt_pool": xmlschema.StoragePool().AttributeTypes(), "libvirt_volume": xmlschema.StorageVolume().AttributeTypes(),
	}
	for name, want := range args {
		ds := resp.DataSourceSchemas[name]
		if ds == nil {
			t.Errorf("%s: no schema", name)
			continue
		}
		if !strings.Contains(ds.Block.Description, "exactly one") {
			t.Errorf("%s: the description does not say how to look it up: %q", name, ds.Block.Description)
		}
		var optional []string
		lookupWalkSchema("", ds.Block.Attributes, func(p string, a *tfprotov6.SchemaAttribute) {
			if !a.Computed || a.Required {
				t.Errorf("%s.%s is not computed-only (required %v computed %v)", name, p, a.Required, a.Computed)
			}
			if a.Optional {
				optional = append(optional, p)
			}
			if a.Description == "" {
				t.Errorf("%s.%s has no description", name, p)
			}
			// the resource's descriptions, without what they say about configuring
			if strings.Contains(a.Description, "when not set") || strings.Contains(a.Description, "setting it") {
				t.Errorf("%s.%s: a description about setting a value: %q", name, p, a.Description)
			}
		})
		sort.Strings(optional)
		if strings.Join(optional, " ") != strings.Join(want, " ") {
			t.Errorf("%s: configurable %v, want the lookup arguments %v", name, optional, want)
		}
		typ := ds.ValueType().(tftypes.Object).AttributeTypes
		for doc, dt := range docTypes[name] {
			if got, ok := typ[doc]; !ok || !got.Equal(dt) {
				t.Errorf("%s.%s: not the resource's document type", name, doc)
			}
		}
	}
}

func lookupWalkSchema(prefix string, attrs []*tfprotov6.SchemaAttribute, f func(string, *tfprotov6.SchemaAttribute)) {
	for _, a := range attrs {
		f(prefix+a.Name, a)
		if a.NestedType != nil {
			lookupWalkSchema(prefix+a.Name+".", a.NestedType.Attributes, f)
		}
	}
}

// BenchmarkLookupReadDomain measures the provider side of reading the domain
// data source: ReadDataSource on a server with the shipped resources and the
// shipped domain data source, with the libvirt calls
// replaced by the domain XML of the largest domain in the corpus (parsed on
// every read, as Fetch does): config decode, argument checks, XML parse,
// conversion to state values and msgpack encoding of the state.
func BenchmarkLookupReadDomain(b *testing.B) {
	file := filepath.Join("..", "..", "..", "shared", "corpus", "libvirt-xml", "domain", "pci-bridge.xml")
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatalf("the corpus is needed: %v", err)
	}
	var doc libvirtxml.Domain
	if err := doc.Unmarshal(string(data)); err != nil {
		b.Fatal(err)
	}
	// the shipped spec with its libvirt calls replaced, on a server with the
	// shipped resources
	spec := domainDataSpec()
	spec.Find = func(context.Context, *libvirtconn.Client, map[string]string) (string, error) { return doc.UUID, nil }
	spec.Fetch = func(_ context.Context, _ *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.Domain], error) {
		var d libvirtxml.Domain
		if err := d.Unmarshal(string(data)); err != nil {
			return nil, err
		}
		return &treeresource.Fetched[libvirtxml.Domain]{Doc: &d, Own: map[string]tftypes.Value{
			"id": treeresource.StringValue(id), attrRunning: treeresource.BoolValue(false), attrAutostart: treeresource.BoolValue(false),
			attrConsoleURLs: tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{}),
		}}, nil
	}
	// the provider needs a client; it is never dialled (Find and Fetch are replaced)
	client, err := libvirtconn.New("test:///default")
	if err != nil {
		b.Fatal(err)
	}
	p := &libvirtProvider{version: "bench"}
	srv, err := treeresource.NewServer(context.Background(), providerserver.NewProtocol6(p)(), "libvirt", p.Resources(context.Background()),
		func() any { return client })
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.AddDataSources(treeresource.NewDataSource(spec)); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	typ := sch.DataSourceSchemas["libvirt_domain"].ValueType().(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(t, nil)
	}
	vals["name"] = tftypes.NewValue(tftypes.String, doc.Name)
	cfg, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	if err != nil {
		b.Fatal(err)
	}
	req := &tfprotov6.ReadDataSourceRequest{TypeName: "libvirt_domain", Config: &cfg}
	read := func() *tfprotov6.ReadDataSourceResponse {
		resp, err := srv.ReadDataSource(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		if lookupErrors(resp.Diagnostics) != "" {
			b.Fatal(lookupErrors(resp.Diagnostics))
		}
		return resp
	}
	resp := read()
	state, err := resp.State.Unmarshal(typ)
	if err != nil {
		b.Fatal(err)
	}
	attrs := treeresource.ObjectAttrs(state)
	if got, _ := treeresource.String(attrs, "uuid"); got != doc.UUID {
		b.Fatalf("uuid %q, want the XML's %q", got, doc.UUID)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		read()
	}
	b.ReportMetric(float64(len(resp.State.MsgPack)), "state-bytes")
}

// lookupErrors joins the error diagnostics; empty when there are none.
func lookupErrors(ds []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range ds {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, d.Summary+": "+d.Detail)
		}
	}
	return strings.Join(out, "; ")
}

// BenchmarkLookupColdSchema measures the first GetProviderSchema of a new
// server (the framework's schema built, the data sources' derived from it).
func BenchmarkLookupColdSchema(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		srv := ProtocolServer("bench")()
		if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLookupArgumentErrors: a configuration that gives no way, two ways or
// half a way to find the object is refused at validation, naming the
// attribute (tofu only, no libvirtd: make unit).
func TestLookupArgumentErrors(t *testing.T) {
	cases := map[string]struct{ config, want string }{
		"network: none": {`data "libvirt_network" "x" {}`, `Missing lookup argument.*Give\s+` + "`name` or `uuid`" + `\s+to\s+find\s+the\s+network`},
		"network: both": {renderConfig(`data "libvirt_network" "x" {
  name = "a"
  uuid = {{q .}}
}`, lookupMissing), `Ambiguous lookup.*` + "`uuid` cannot be combined with `name`"},
		"domain: both": {renderConfig(`data "libvirt_domain" "x" {
  name = "a"
  uuid = {{q .}}
}`, lookupMissing), `Ambiguous lookup.*` + "`uuid` cannot be combined with `name`"},
		"pool: bad uuid":   {`data "libvirt_pool" "x" { uuid = "not-a-uuid" }`, `Invalid lookup argument.*` + "`uuid`" + `: "not-a-uuid" is not a UUID`},
		"pool: empty name": {`data "libvirt_pool" "x" { name = "" }`, `Invalid lookup argument.*` + "`name` is empty"},
		"volume: no pool":  {`data "libvirt_volume" "x" { name = "a.qcow2" }`, `Incomplete lookup.*` + "`pool` is required with `name`"},
		"volume: no name":  {`data "libvirt_volume" "x" { pool = "p" }`, `Incomplete lookup.*` + "`name` is required with `pool`"},
		"volume: key+name": {`data "libvirt_volume" "x" {
  name = "a.qcow2"
  key  = "/k"
}`, `Ambiguous lookup.*` + "`key` cannot be combined with `name`"},
		"volume: none": {`data "libvirt_volume" "x" {}`, "Give `pool` with `name`, or `key`" + `\s+to\s+find\s+the\s+volume`},
		"domain: read-only": {`data "libvirt_domain" "x" {
  name   = "a"
  memory = 64
}`, `Invalid Configuration for Read-Only Attribute.*` + "`memory` is read-only"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			testUnitPlanError(t, c.config, `(?s)`+c.want)
		})
	}
}
