package rules

import (
	"strings"
	"testing"

	"github.com/terraform-linters/tflint-plugin-sdk/helper"
	"github.com/terraform-linters/tflint-plugin-sdk/tflint"

	"github.com/virtxml/terraform-provider-libvirt/tflint-ruleset-libvirt/schema"
)

// lookup resolves a dotted attribute path in a type's schema.
func lookup(typeName, path string) *schema.Node {
	n := providerSchema.Resources[typeName]
	for _, part := range strings.Split(path, ".") {
		if n == nil || n.Children == nil {
			return nil
		}
		n = n.Children[part]
	}
	return n
}

// TestHistoryMatchesSchema checks the hand-written table of former shapes
// against the generated schema: a former key must be gone (else it would be
// valid, and no finding would use the entry), a changed shape's key must
// exist, and every attribute the suggested form names must exist. A rename
// in the schema that makes a suggestion wrong fails here.
func TestHistoryMatchesSchema(t *testing.T) {
	for key, f := range formerShapes {
		typeName, path, ok := strings.Cut(key, ":")
		if !ok || providerSchema.Resources[typeName] == nil {
			t.Errorf("%s: no resource type %q", key, typeName)
			continue
		}
		switch n := lookup(typeName, path); {
		case f.shape && n == nil:
			t.Errorf("%s: marked as a changed shape, but %s has no attribute %s", key, typeName, path)
		case !f.shape && n != nil:
			t.Errorf("%s: marked as a former key, but %s has the attribute %s (kind %s)", key, typeName, path, n.Kind)
		}
		if len(f.uses) == 0 {
			t.Errorf("%s: names no attribute of the form to write", key)
		}
		for _, u := range f.uses {
			if lookup(typeName, u) == nil {
				t.Errorf("%s: the suggested form uses %s, which %s does not have", key, u, typeName)
			}
		}
	}
}

func TestClosestName(t *testing.T) {
	disk := lookup("libvirt_domain", "devices.disks")
	vnc := lookup("libvirt_domain", "devices.graphics.vnc")
	source := lookup("libvirt_domain", "devices.disks.source")
	for _, c := range []struct {
		node      *schema.Node
		key, want string
	}{
		{disk, "targte", "target"},      // swapped letters
		{disk, "traget", "target"},      // swapped letters
		{disk, "readonly", "read_only"}, // underscores
		{disk, "Device", "device"},      // case
		{vnc, "autoport", "auto_port"},
		{source, "v_host_user", "vhost_user"}, // virtxml/libvirt 0.1's spelling
		{disk, "completely_unrelated", ""},
	} {
		if got := closestName(c.node, c.key); got != c.want {
			t.Errorf("closestName(%s) = %q, want %q", c.key, got, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"target", "target", 0}, {"targte", "target", 1}, {"bsu", "bus", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func run(t *testing.T, rule tflint.Rule, src string) helper.Issues {
	t.Helper()
	runner := helper.TestRunner(t, map[string]string{"main.tf": src})
	if err := rule.Check(runner); err != nil {
		t.Fatal(err)
	}
	return runner.Issues
}

func TestUnknownAttributeIgnoresWhatIsNotTheProviders(t *testing.T) {
	issues := run(t, &UnknownAttributeRule{}, `
resource "libvirt_domain" "a" {
  count      = 1
  depends_on = []
  provider   = libvirt.other
  name       = "a"
  devices    = { disks = [{ (var.k) = 1, target = { dev = "vda" } }] }
  lifecycle {
    ignore_changes = [devices]
  }
}
resource "other_thing" "b" {
  devices = { disks = [{ targte = {} }] }
}
`)
	if len(issues) != 0 {
		t.Fatalf("want no issues, got %v", issues)
	}
}

func TestUnknownAttributeRange(t *testing.T) {
	issues := run(t, &UnknownAttributeRule{}, `resource "libvirt_volume" "v" {
  name   = "v"
  target = { format = { tyep = "qcow2" } }
}
`)
	if len(issues) != 1 {
		t.Fatalf("want 1 issue, got %v", issues)
	}
	r := issues[0].Range
	if r.Start.Line != 3 || r.Start.Column != 25 || r.End.Column != 29 {
		t.Errorf("issue range %s, want line 3 columns 25-29 (the key tyep)", r)
	}
	if !strings.Contains(issues[0].Message, "`target.format.tyep`") || !strings.Contains(issues[0].Message, "Did you mean `type`?") {
		t.Errorf("message %q lacks the path or the suggestion", issues[0].Message)
	}
}

func TestUnknownAttributeFarFromEverything(t *testing.T) {
	issues := run(t, &UnknownAttributeRule{}, `resource "libvirt_domain" "a" {
  name = "a"
  os   = { zzzzzzzz = 1 }
}
`)
	if len(issues) != 1 || !strings.Contains(issues[0].Message, "attributes") || strings.Contains(issues[0].Message, "Did you mean") {
		t.Fatalf("want one issue listing valid names and no suggestion, got %v", issues)
	}
}

func TestValueShapeAcceptsConvertibleLiterals(t *testing.T) {
	issues := run(t, &ValueShapeRule{}, `resource "libvirt_domain" "a" {
  name    = "a"
  vcpu    = "2"
  running = "true"
  cpu     = { migratable = var.m }
  os      = { type = "hvm", boot_devices = var.boot }
  devices = { disks = [null], serials = [{ target = { port = "0" } }] }
}
`)
	if len(issues) != 0 {
		t.Fatalf("want no issues, got %v", issues)
	}
}

func TestValueShapeRefusesNonNumericNumber(t *testing.T) {
	issues := run(t, &ValueShapeRule{}, `resource "libvirt_domain" "a" {
  name = "a"
  vcpu = "two"
  os   = { type = "hvm", boot_devices = { dev = "hd" } }
}
`)
	if len(issues) != 2 {
		t.Fatalf("want 2 issues, got %v", issues)
	}
	if !strings.Contains(issues[0].Message, "`vcpu` is a number, written as a string") {
		t.Errorf("first issue %q", issues[0].Message)
	}
	if !strings.Contains(issues[1].Message, "`os.boot_devices` is written as an object") {
		t.Errorf("second issue %q", issues[1].Message)
	}
}

func TestSizeUnitSkipsZeroAndLarge(t *testing.T) {
	issues := run(t, &SizeUnitRule{}, `resource "libvirt_volume" "a" {
  name       = "a"
  capacity   = 1048576
  allocation = 0
}
resource "libvirt_volume" "b" {
  name     = "b"
  capacity = 1048575
}
`)
	if len(issues) != 1 || issues[0].Range.Start.Line != 8 {
		t.Fatalf("want one issue on line 8, got %v", issues)
	}
}

// TestMapNesting uses a made-up schema: no libvirt resource has a map of
// objects today, but the walk must read one when the schema gets one.
func TestMapNesting(t *testing.T) {
	made, err := schema.Parse("resource libvirt_made_up\n items map\n  name string\n  on bool\n")
	if err != nil {
		t.Fatal(err)
	}
	saved := providerSchema
	providerSchema = made
	defer func() { providerSchema = saved }()
	src := `resource "libvirt_made_up" "a" {
  items = {
    first  = { name = "a", nmae = "b" }
    second = { on = "yes" }
  }
}
`
	unknown := run(t, &UnknownAttributeRule{}, src)
	if len(unknown) != 1 || !strings.HasPrefix(unknown[0].Message, "`items[\"first\"].nmae` is not an attribute") {
		t.Fatalf("want the misspelt key in items[\"first\"], got %v", unknown)
	}
	shape := run(t, &ValueShapeRule{}, src)
	if len(shape) != 1 || !strings.HasPrefix(shape[0].Message, "`items[\"second\"].on` is a bool, written as the string \"yes\"") {
		t.Fatalf("want the yes/no string in items[\"second\"], got %v", shape)
	}
}
