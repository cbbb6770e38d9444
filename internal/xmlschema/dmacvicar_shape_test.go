package xmlschema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"
)

// valueAt walks a value by attribute names and list indices.
func valueAt(t *testing.T, v tftypes.Value, path ...any) tftypes.Value {
	t.Helper()
	for _, p := range path {
		switch p := p.(type) {
		case string:
			var m map[string]tftypes.Value
			if err := v.As(&m); err != nil {
				t.Fatalf("%v: not an object at %q: %v", path, p, err)
			}
			v = m[p]
		case int:
			var l []tftypes.Value
			if err := v.As(&l); err != nil || p >= len(l) {
				t.Fatalf("%v: no element %d: %v", path, p, err)
			}
			v = l[p]
		}
	}
	return v
}

// TestRNGBackendRandomIsText: an RNG backend of model random is its device
// path, a string (`backend = { random = "/dev/urandom" }`), as
// dmacvicar/libvirt 0.9.7 has it and virt-install writes it for every VM:
// a choice member that is text only flattens like any other element of text
// and attributes. Both ways: libvirt's XML to the value, the value to XML.
func TestRNGBackendRandomIsText(t *testing.T) {
	const x = `<domain type='qemu'><name>r</name><devices>
  <rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>
</devices></domain>`
	var d libvirtxml.Domain
	if err := d.Unmarshal(x); err != nil {
		t.Fatal(err)
	}
	m := Domain()
	vals := m.ToValues(&d)
	random := valueAt(t, vals["devices"], "rngs", 0, "backend", "random")
	if !random.Type().Is(tftypes.String) {
		t.Fatalf("devices.rngs[0].backend.random is %s, want a string", random.Type())
	}
	var s string
	if err := random.As(&s); err != nil || s != "/dev/urandom" {
		t.Fatalf("devices.rngs[0].backend.random = %q (%v), want /dev/urandom", s, err)
	}

	// the configuration's value, alone: the backend it writes
	back, err := m.FromValues(map[string]tftypes.Value{"name": vals["name"], "type": vals["type"], "devices": vals["devices"]})
	if err != nil {
		t.Fatal(err)
	}
	out, err := back.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `<backend model="random">/dev/urandom</backend>`) {
		t.Errorf("the XML written has no random backend with its device:\n%s", out)
	}
}

// TestUpgradeRNGBackendRandom: the random backend, an object holding
// `device` in schema versions 0 and 1, is its text now; 0.9.7's state
// already has the text.
func TestUpgradeRNGBackendRandom(t *testing.T) {
	for name, random := range map[string]any{
		"versions 0 and 1": map[string]any{"device": "/dev/urandom"},
		"dmacvicar 0.9.7":  "/dev/urandom",
	} {
		t.Run(name, func(t *testing.T) {
			old := map[string]any{"devices": map[string]any{"rngs": []any{map[string]any{
				"model": "virtio", "backend": map[string]any{"random": random, "egd": nil},
			}}}}
			got := Domain().UpgradeJSON(old)
			js, _ := json.Marshal(got)
			rngs, _ := got["devices"].(map[string]any)["rngs"].([]any)
			if len(rngs) != 1 {
				t.Fatalf("rngs lost: %s", js)
			}
			backend, _ := rngs[0].(map[string]any)["backend"].(map[string]any)
			if backend["random"] != "/dev/urandom" {
				t.Errorf("backend.random = %#v, want \"/dev/urandom\" (%s)", backend["random"], js)
			}
		})
	}
}
