package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func mustConvert(t *testing.T) *providerSchemas {
	t.Helper()
	s, err := convertSchemaJSON(schemaJSON, providerAddress)
	if err != nil {
		t.Fatalf("convertSchemaJSON: %v", err)
	}
	return s
}

// countAttributes counts attributes in the generic decoding of the JSON,
// recursing into nested_type, independently of the typed conversion.
func countAttributes(attrs map[string]any) int {
	n := 0
	for _, v := range attrs {
		n++
		if nt, ok := v.(map[string]any)["nested_type"].(map[string]any); ok {
			n += countAttributes(nt["attributes"].(map[string]any))
		}
	}
	return n
}

func countProtoAttributes(attrs []*tfprotov6.SchemaAttribute) int {
	n := 0
	for _, a := range attrs {
		n++
		if a.NestedType != nil {
			n += countProtoAttributes(a.NestedType.Attributes)
		}
	}
	return n
}

func findAttr(attrs []*tfprotov6.SchemaAttribute, name string) *tfprotov6.SchemaAttribute {
	for _, a := range attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

func TestConvertCountsMatchJSON(t *testing.T) {
	got := mustConvert(t)
	var generic map[string]any
	if err := json.Unmarshal(schemaJSON, &generic); err != nil {
		t.Fatal(err)
	}
	ps := generic["provider_schemas"].(map[string]any)[providerAddress].(map[string]any)
	for kind, converted := range map[string]map[string]*tfprotov6.Schema{
		"resource_schemas":    got.Resources,
		"data_source_schemas": got.DataSources,
	} {
		want := ps[kind].(map[string]any)
		if len(converted) != len(want) {
			t.Errorf("%s: converted %d schemas, JSON has %d", kind, len(converted), len(want))
		}
		for name, raw := range want {
			s, ok := converted[name]
			if !ok {
				t.Errorf("%s: %s missing after conversion", kind, name)
				continue
			}
			schema := raw.(map[string]any)
			wantAttrs := countAttributes(schema["block"].(map[string]any)["attributes"].(map[string]any))
			if gotAttrs := countProtoAttributes(s.Block.Attributes); gotAttrs != wantAttrs {
				t.Errorf("%s %s: %d attributes (with nested), JSON has %d", kind, name, gotAttrs, wantAttrs)
			}
			if wantVersion := int64(schema["version"].(float64)); s.Version != wantVersion {
				t.Errorf("%s %s: version %d, JSON has %d", kind, name, s.Version, wantVersion)
			}
		}
	}
	// The reference README promises 5 resources and 5 data sources.
	if len(got.Resources) != 5 || len(got.DataSources) != 5 {
		t.Errorf("got %d resources and %d data sources, want 5 and 5", len(got.Resources), len(got.DataSources))
	}
	if findAttr(got.Provider.Block.Attributes, "image_factory_url") == nil {
		t.Error("provider schema lost image_factory_url")
	}
}

func TestConvertNestedSensitiveWriteOnly(t *testing.T) {
	got := mustConvert(t)
	apply := got.Resources["talos_machine_configuration_apply"]
	if apply == nil {
		t.Fatal("talos_machine_configuration_apply missing")
	}
	cc := findAttr(apply.Block.Attributes, "client_configuration")
	if cc == nil || cc.NestedType == nil {
		t.Fatalf("client_configuration should be a nested attribute, got %+v", cc)
	}
	if cc.NestedType.Nesting != tfprotov6.SchemaObjectNestingModeSingle || !cc.Optional || cc.Required {
		t.Errorf("client_configuration: nesting %v optional %v required %v, want single/optional", cc.NestedType.Nesting, cc.Optional, cc.Required)
	}
	key := findAttr(cc.NestedType.Attributes, "client_key")
	if key == nil || !key.Sensitive || !key.Required || !key.Type.Equal(tftypes.String) {
		t.Errorf("client_configuration.client_key should be a required sensitive string, got %+v", key)
	}
	if input := findAttr(apply.Block.Attributes, "machine_configuration_input"); input == nil || !input.Sensitive {
		t.Errorf("machine_configuration_input should be sensitive, got %+v", input)
	}
	wo := findAttr(apply.Block.Attributes, "client_configuration_wo")
	if wo == nil || !wo.WriteOnly || wo.NestedType == nil || !findAttr(wo.NestedType.Attributes, "client_key").WriteOnly {
		t.Errorf("client_configuration_wo and its children should be write-only, got %+v", wo)
	}
	patches := findAttr(apply.Block.Attributes, "config_patches")
	if patches == nil || !patches.Type.Equal(tftypes.List{ElementType: tftypes.String}) {
		t.Errorf("config_patches should be list(string), got %+v", patches)
	}
	if id := findAttr(apply.Block.Attributes, "id"); id == nil || !id.Computed || id.Optional {
		t.Errorf("id should be computed only, got %+v", id)
	}
	if !strings.Contains(apply.Block.Description, "machine configuration") {
		t.Errorf("resource description not carried over: %q", apply.Block.Description)
	}
	disks := findAttr(got.DataSources["talos_machine_disks"].Block.Attributes, "disks")
	if disks == nil || disks.NestedType == nil || disks.NestedType.Nesting != tfprotov6.SchemaObjectNestingModeList || !disks.Computed {
		t.Errorf("talos_machine_disks.disks should be a computed list-nested attribute, got %+v", disks)
	}
}

func TestParseJSONType(t *testing.T) {
	cases := map[string]tftypes.Type{
		`"string"`:                    tftypes.String,
		`["map","string"]`:            tftypes.Map{ElementType: tftypes.String},
		`["set",["list","number"]]`:   tftypes.Set{ElementType: tftypes.List{ElementType: tftypes.Number}},
		`["object",{"a":"bool"}]`:     tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.Bool}},
		`["tuple",["string","bool"]]`: tftypes.Tuple{ElementTypes: []tftypes.Type{tftypes.String, tftypes.Bool}},
	}
	for in, want := range cases {
		got, err := parseJSONType(json.RawMessage(in))
		if err != nil || !got.Equal(want) {
			t.Errorf("parseJSONType(%s) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{`"strng"`, `["list"]`, `["frob","string"]`, `42`} {
		if _, err := parseJSONType(json.RawMessage(bad)); err == nil {
			t.Errorf("parseJSONType(%s) should fail", bad)
		}
	}
}

func TestServerRefusesDataOperations(t *testing.T) {
	srv := newServer(mustConvert(t))
	ctx := context.Background()
	plan, _ := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "talos_machine_secrets"})
	read, _ := srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "talos_machine_configuration"})
	apply, _ := srv.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: "talos_machine_secrets"})
	imp, _ := srv.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: "talos_machine_secrets"})
	for name, diags := range map[string][]*tfprotov6.Diagnostic{
		"plan": plan.Diagnostics, "read data": read.Diagnostics, "apply": apply.Diagnostics, "import": imp.Diagnostics,
	} {
		if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError || !strings.Contains(diags[0].Detail, "schema-only test stand-in") {
			t.Errorf("%s: want one stand-in error diagnostic, got %+v", name, diags)
		}
	}
	validate, _ := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "talos_machine_secrets"})
	configure, _ := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{})
	if len(validate.Diagnostics) != 0 || len(configure.Diagnostics) != 0 {
		t.Errorf("validate and configure must succeed, got %+v / %+v", validate.Diagnostics, configure.Diagnostics)
	}
	schema, _ := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if schema.ResourceSchemas["talos_machine_bootstrap"] == nil || schema.DataSourceSchemas["talos_client_configuration"] == nil {
		t.Error("GetProviderSchema is missing schemas")
	}
}

func TestServerUpgradeResourceStateDecodesCurrentVersion(t *testing.T) {
	srv := newServer(mustConvert(t))
	ctx := context.Background()
	raw := &tfprotov6.RawState{JSON: []byte(`{"id":"abc","talos_version":"v1.9","client_configuration":null,"machine_secrets":null,"dropped_attr":1}`)}
	resp, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: "talos_machine_secrets", Version: 1, RawState: raw})
	if err != nil || len(resp.Diagnostics) != 0 {
		t.Fatalf("upgrade failed: %v %+v", err, resp.Diagnostics)
	}
	typ := srv.schemas.Resources["talos_machine_secrets"].ValueType()
	value, err := resp.UpgradedState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := value.As(&attrs); err != nil {
		t.Fatal(err)
	}
	var version string
	if err := attrs["talos_version"].As(&version); err != nil || version != "v1.9" {
		t.Errorf("talos_version = %q (%v), want v1.9", version, err)
	}
	old, _ := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: "talos_machine_secrets", Version: 0, RawState: raw})
	if len(old.Diagnostics) != 1 {
		t.Errorf("an older schema version must be refused, got %+v", old.Diagnostics)
	}
}
