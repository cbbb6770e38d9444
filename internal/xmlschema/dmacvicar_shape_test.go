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

// TestMetadataCacheMaxSizeIsAnObject: a disk's metadata cache size, whose
// text libvirtxml writes as CDATA, is an object { value, unit } as in
// dmacvicar/libvirt 0.9.7 (not flattened like memory), reaches the XML,
// and keeps the user's unit when libvirt reports the same size in bytes.
func TestMetadataCacheMaxSizeIsAnObject(t *testing.T) {
	disk := func(value, unit string) string {
		return `<domain type='qemu'><name>c</name><devices><disk type='file' device='disk'>
  <driver name='qemu' type='qcow2'><metadata_cache><max_size unit='` + unit + `'>` + value + `</max_size></metadata_cache></driver>
  <source file='/var/lib/libvirt/images/c.qcow2'/><target dev='vda' bus='virtio'/>
</disk></devices></domain>`
	}
	m := Domain()
	values := func(x string) map[string]tftypes.Value {
		var d libvirtxml.Domain
		if err := d.Unmarshal(x); err != nil {
			t.Fatal(err)
		}
		return m.ToValues(&d)
	}
	user := values(disk("64", "MiB"))
	maxSize := valueAt(t, user["devices"], "disks", 0, "driver", "metadata_cache", "max_size")
	if !maxSize.Type().Is(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"value": tftypes.Number, "unit": tftypes.String}}) {
		t.Fatalf("metadata_cache.max_size is %s, want an object of value and unit", maxSize.Type())
	}
	back, err := m.FromValues(user)
	if err != nil {
		t.Fatal(err)
	}
	out, err := back.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var again libvirtxml.Domain
	if err := again.Unmarshal(out); err != nil {
		t.Fatal(err)
	}
	if ms := again.Devices.Disks[0].Driver.MetadataCache.MaxSize; ms == nil || ms.Value != 64 || ms.Unit != "MiB" {
		t.Errorf("the XML written does not hold max_size 64 MiB:\n%s", out)
	}

	// libvirt writes the size in bytes: the same quantity keeps the user's form
	kept := m.Reconcile(user, values(disk("67108864", "bytes")))
	if !kept["devices"].Equal(user["devices"]) {
		t.Errorf("64 MiB read back as 67108864 bytes shows as a change: %s", valueAt(t, kept["devices"], "disks", 0, "driver", "metadata_cache"))
	}
	other := m.Reconcile(user, values(disk("1", "GiB")))
	if other["devices"].Equal(user["devices"]) {
		t.Errorf("another size (1 GiB) did not show as drift")
	}
}

// TestUpgradeMetadataCacheMaxSize: the flattened max_size and max_size_unit
// of versions 0 and 1 become the object; 0.9.7's object is kept.
func TestUpgradeMetadataCacheMaxSize(t *testing.T) {
	for name, cache := range map[string]map[string]any{
		"versions 0 and 1": {"max_size": 64.0, "max_size_unit": "MiB"},
		"dmacvicar 0.9.7":  {"max_size": map[string]any{"value": 64.0, "unit": "MiB"}},
	} {
		t.Run(name, func(t *testing.T) {
			old := map[string]any{"devices": map[string]any{"disks": []any{map[string]any{
				"driver": map[string]any{"metadata_cache": cache},
			}}}}
			got := Domain().UpgradeJSON(old)
			js, _ := json.Marshal(got)
			want := `{"devices":{"disks":[{"driver":{"metadata_cache":{"max_size":{"unit":"MiB","value":64}}}}]}}`
			if string(js) != want {
				t.Errorf("upgraded to %s, want %s", js, want)
			}
		})
	}
}
