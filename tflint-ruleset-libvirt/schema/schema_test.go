package schema

import "testing"

func TestEmbeddedParses(t *testing.T) {
	s := Embedded()
	dom := s.Resources["libvirt_domain"]
	if dom == nil {
		t.Fatal("no libvirt_domain in the embedded schema")
	}
	disks := dom.Children["devices"].Children["disks"]
	if disks == nil || disks.Kind != "list" || !disks.Collection() {
		t.Fatalf("devices.disks = %+v, want a list of objects", disks)
	}
	if tgt := disks.Children["target"]; tgt == nil || tgt.Children["dev"] == nil || tgt.Children["dev"].Kind != "string" {
		t.Fatalf("devices.disks.target.dev missing or not a string: %+v", tgt)
	}
	if id := dom.Children["id"]; id == nil || !id.ReadOnly {
		t.Fatalf("id = %+v, want read-only", id)
	}
	if s.DataSources["libvirt_node_info"] == nil {
		t.Fatal("no data source libvirt_node_info")
	}
}

func TestParseRejectsMalformed(t *testing.T) {
	for _, text := range []string{
		"resource\n",
		"resource a\n x string\n  y string\n", // y under a leaf
		"resource a\n x string rw\n",
		"module a\n",
	} {
		if _, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", text)
		}
	}
}
