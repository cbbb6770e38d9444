package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaFileIsCurrent fails while the tree the TFLint ruleset embeds
// differs from the provider's schema: a renamed, added or removed attribute
// must reach the ruleset (`make lint-rules`) in the same change.
func TestSchemaFileIsCurrent(t *testing.T) {
	want, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	committed := filepath.Join("..", "..", DefaultOutput)
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Fatalf("%v (run `make lint-rules`)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gotLines) || i < len(wantLines); i++ {
		var g, w string
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if g != w {
			t.Fatalf("%s is stale against the provider's schema (run `make lint-rules`); first difference at line %d:\n  committed: %q\n  schema:    %q",
				DefaultOutput, i+1, g, w)
		}
	}
}

// TestGenerateShape checks a few attributes whose shape the ruleset's rules
// rely on, read from the real schema.
func TestGenerateShape(t *testing.T) {
	text, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	for _, want := range []string{
		"\nresource libvirt_domain\n",
		"\n memory number\n",
		"\n memory_unit string\n",
		"\n devices single\n",
		"\n  disks list\n",
		"\nresource libvirt_volume\n",
		"\n capacity_unit string\n",
		"\ndata libvirt_node_info\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("generated schema lacks %q", want)
		}
	}
}
