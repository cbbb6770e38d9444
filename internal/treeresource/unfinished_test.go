package treeresource

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestUnfinished(t *testing.T) {
	nested := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"path": tftypes.String}}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String, "name": tftypes.String, "target": nested}}
	plan := tftypes.NewValue(typ, map[string]tftypes.Value{
		"id":     tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
		"name":   tftypes.NewValue(tftypes.String, "vm"),
		"target": tftypes.NewValue(nested, map[string]tftypes.Value{"path": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}),
	})
	got, err := Unfinished(plan, "pool/vm.img")
	if err != nil {
		t.Fatal(err)
	}
	if !got.IsFullyKnown() {
		t.Fatalf("unknown values left: %v", got)
	}
	attrs := ObjectAttrs(got)
	if id, _ := String(attrs, "id"); id != "pool/vm.img" {
		t.Errorf("id = %q", id)
	}
	if name, _ := String(attrs, "name"); name != "vm" {
		t.Errorf("name = %q, want the planned value", name)
	}
	if p := ObjectAttrs(attrs["target"])["path"]; !p.IsNull() {
		t.Errorf("target.path = %v, want null", p)
	}
}
