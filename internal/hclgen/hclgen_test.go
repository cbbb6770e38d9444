package hclgen

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestResource(t *testing.T) {
	inner := &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingModeList, Attributes: []*tfprotov6.SchemaAttribute{
		{Name: "dev", Type: tftypes.String, Optional: true},
		{Name: "bus", Type: tftypes.String, Optional: true},
	}}
	elemType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"dev": tftypes.String, "bus": tftypes.String}}
	sch := &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{Attributes: []*tfprotov6.SchemaAttribute{
		{Name: "id", Type: tftypes.String, Computed: true},
		{Name: "name", Type: tftypes.String, Required: true},
		{Name: "memory", Type: tftypes.Number, Optional: true},
		{Name: "title", Type: tftypes.String, Optional: true},
		{Name: "secret", Type: tftypes.String, Optional: true, Sensitive: true},
		{Name: "tags", Type: tftypes.List{ElementType: tftypes.String}, Optional: true},
		{Name: "disks", Optional: true, NestedType: inner},
	}}}
	typ := sch.ValueType().(tftypes.Object)
	v := tftypes.NewValue(typ, map[string]tftypes.Value{
		"id":     tftypes.NewValue(tftypes.String, "computed-only"),
		"name":   tftypes.NewValue(tftypes.String, "a \"b\"\n${x} %{y}"),
		"memory": tftypes.NewValue(tftypes.Number, 65536),
		"title":  tftypes.NewValue(tftypes.String, nil),
		"secret": tftypes.NewValue(tftypes.String, "hidden"),
		"tags":   tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, "x")}),
		"disks": tftypes.NewValue(typ.AttributeTypes["disks"], []tftypes.Value{
			tftypes.NewValue(elemType, map[string]tftypes.Value{"dev": tftypes.NewValue(tftypes.String, "vda"), "bus": tftypes.NewValue(tftypes.String, nil)}),
		}),
	})
	want := `resource "libvirt_domain" "web-1" {
  disks  = [{ dev = "vda" }]
  memory = 65536
  name   = "a \"b\"\n$${x} %%{y}"
  tags   = ["x"]
}
`
	if got := Resource("libvirt_domain", "web-1", sch, v); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A value too long for one line is spread over lines, an element of a list
// at a time.
func TestResourceLongValues(t *testing.T) {
	source := &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingModeSingle, Attributes: []*tfprotov6.SchemaAttribute{
		{Name: "file", Type: tftypes.String, Optional: true},
	}}
	disk := &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingModeList, Attributes: []*tfprotov6.SchemaAttribute{
		{Name: "dev", Type: tftypes.String, Optional: true},
		{Name: "source", Optional: true, NestedType: source},
	}}
	sch := &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{Attributes: []*tfprotov6.SchemaAttribute{
		{Name: "disks", Optional: true, NestedType: disk},
		{Name: "name", Type: tftypes.String, Required: true},
	}}}
	typ := sch.ValueType().(tftypes.Object)
	elemType := typ.AttributeTypes["disks"].(tftypes.List).ElementType.(tftypes.Object)
	srcType := elemType.AttributeTypes["source"]
	elem := func(dev, file string) tftypes.Value {
		return tftypes.NewValue(elemType, map[string]tftypes.Value{
			"dev":    tftypes.NewValue(tftypes.String, dev),
			"source": tftypes.NewValue(srcType, map[string]tftypes.Value{"file": tftypes.NewValue(tftypes.String, file)}),
		})
	}
	long := "/var/lib/libvirt/images/" + strings.Repeat("x", 60) + ".qcow2"
	v := tftypes.NewValue(typ, map[string]tftypes.Value{
		"name":  tftypes.NewValue(tftypes.String, "d"),
		"disks": tftypes.NewValue(typ.AttributeTypes["disks"], []tftypes.Value{elem("vda", "/a.qcow2"), elem("vdb", long)}),
	})
	want := `resource "libvirt_domain" "d" {
  disks = [
    { dev = "vda", source = { file = "/a.qcow2" } },
    {
      dev = "vdb"
      source = {
        file = "` + long + `"
      }
    },
  ]
  name = "d"
}
`
	if got := Resource("libvirt_domain", "d", sch, v); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{"web-1": "web-1", "1st": "_1st", "a.b/c": "a_b_c", "": "_"} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}
