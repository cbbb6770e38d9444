package rngwords

import (
	"os"
	"testing"
)

const schemas = "/usr/share/libvirt/schemas"

// The committed table is what the installed grammar gives: regenerate with
// `go run ./tools/rngwords` after a libvirt upgrade.
func TestGeneratedTableIsFresh(t *testing.T) {
	if _, err := os.Stat(schemas); err != nil {
		t.Skipf("libvirt's schemas are not installed here (%v); scripts/testenv.sh installs them", err)
	}
	table, err := Table(schemas)
	if err != nil {
		t.Fatal(err)
	}
	src, err := GoSource(table, "xmlschema")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../xmlschema/words_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(src) != string(committed) {
		t.Errorf("internal/xmlschema/words_gen.go differs from what %s gives: run go run ./tools/rngwords", schemas)
	}
	for root, want := range map[string]map[string]Words{
		"domain":  {"driver@iommu": OnOff, "graphics@autoport": YesNo, "address@multifunction": OnOff, "memballoon@autodeflate": OnOff},
		"network": {"ip@localPtr": YesNo, "forward@managed": YesNo},
	} {
		for key, w := range want {
			if got := table[root][key]; got != w {
				t.Errorf("%s %s: %q, want %q", root, key, got, w)
			}
		}
	}
	// enumerations of other words, and free text, are not listed
	for _, key := range []string{"disk@device", "disk@type", "domain@type", "source@file"} {
		if w, ok := table["domain"][key]; ok {
			t.Errorf("domain %s listed as %q", key, w)
		}
	}
}
