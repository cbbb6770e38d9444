package xmlschema

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"
)

// attrAt follows object attribute names and list indexes (ints) from vals.
func attrAt(t *testing.T, vals map[string]tftypes.Value, path ...any) tftypes.Value {
	t.Helper()
	v := tftypes.NewValue(tftypes.Object{}, nil)
	cur := vals
	for i, p := range path {
		switch p := p.(type) {
		case string:
			v = cur[p]
		case int:
			var elems []tftypes.Value
			if err := v.As(&elems); err != nil || p >= len(elems) {
				t.Fatalf("%v: not a list with element %d", path[:i+1], p)
			}
			v = elems[p]
		}
		if i < len(path)-1 {
			if _, isInt := path[i+1].(int); !isInt {
				cur = nil
				if !v.IsNull() {
					_ = v.As(&cur)
				}
			}
		}
	}
	return v
}

func TestShortenChoicesAndUnits(t *testing.T) {
	m := Domain()
	doc := &libvirtxml.Domain{Type: "qemu", Name: "d",
		Memory:        &libvirtxml.DomainMemory{Value: 131072, Unit: "KiB"},
		MaximumMemory: &libvirtxml.DomainMaxMemory{Value: 4, Unit: "GiB", Slots: 2},
		Devices: &libvirtxml.DomainDeviceList{
			Disks: []libvirtxml.DomainDisk{{Device: "disk",
				Source: &libvirtxml.DomainDiskSource{File: &libvirtxml.DomainDiskSourceFile{File: "/a.qcow2"}},
				Target: &libvirtxml.DomainDiskTarget{Dev: "vda"}}},
			TPMs: []libvirtxml.DomainTPM{{Model: "tpm-crb",
				Backend: &libvirtxml.DomainTPMBackend{Emulator: &libvirtxml.DomainTPMBackendEmulator{}}}},
			Graphics: []libvirtxml.DomainGraphic{{VNC: &libvirtxml.DomainGraphicVNC{}}},
		}}
	full := m.ToValues(doc)
	short := m.Shorten(full)
	for _, c := range []struct {
		path []any
		null bool
	}{
		{[]any{"memory_unit"}, true},                               // KiB: libvirt's unit
		{[]any{"maximum_memory_unit"}, false},                      // GiB stays
		{[]any{"devices", "disks", 0, "type"}, true},               // the member says file
		{[]any{"devices", "disks", 0, "source", "file"}, false},    // the member stays
		{[]any{"devices", "tpms", 0, "backend", "type"}, false},    // names the empty member
		{[]any{"devices", "tpms", 0, "backend", "emulator"}, true}, // empty: the type names it
		{[]any{"devices", "graphics", 0, "type"}, false},
		{[]any{"devices", "graphics", 0, "vnc"}, true},
	} {
		if got := attrAt(t, short, c.path...).IsNull(); got != c.null {
			t.Errorf("%v: null %t, want %t", c.path, got, c.null)
		}
		if attrAt(t, full, c.path...).IsNull() {
			t.Errorf("%v: null before shortening; the case tests nothing", c.path)
		}
	}

	// what is left defines the same document, up to the unit libvirt assumes
	back, err := m.FromValues(short)
	if err != nil {
		t.Fatal(err)
	}
	doc.Memory.Unit = ""
	want, _ := doc.Marshal()
	got, _ := back.Marshal()
	if got != want {
		t.Errorf("the shortened values define another document:\n%s\nwant:\n%s", got, want)
	}
}
