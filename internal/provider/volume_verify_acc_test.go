package provider

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAccVolume_importVerifiesContent adopts two volumes with import blocks
// and a configuration that gives them their content: one holds the whole
// content, one only its first 2 MiB (as an upload cut short leaves it). The
// truncated one must never be taken for complete: the plan replaces it, with
// a warning naming the byte where it differs; the complete one is adopted as
// it is. After the apply both hold the content and the next plan is empty.
func TestAccVolume_importVerifiesContent(t *testing.T) {
	testAccPreCheck(t)
	pool := testAccPool()
	const full, cut = "tfacc-verify-full.img", "tfacc-verify-cut.img"
	for _, n := range []string{full, cut} {
		_, _ = virsh("vol-delete", "--pool", pool, n)
		n := n
		t.Cleanup(func() { _, _ = virsh("vol-delete", "--pool", pool, n) })
	}
	dir := t.TempDir()
	content := make([]byte, 6<<20)
	if _, err := rand.Read(content); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "image.raw")
	mustWrite(t, src, string(content))
	head := filepath.Join(dir, "head.raw")
	mustWrite(t, head, string(content[:2<<20]))
	for _, n := range []string{full, cut} {
		mustVirsh(t, "vol-create-as", pool, n, "6M", "--format", "raw")
	}
	mustVirsh(t, "vol-upload", "--pool", pool, full, src)
	mustVirsh(t, "vol-upload", "--pool", pool, cut, head)
	fullKey := strings.TrimSpace(mustVirsh(t, "vol-key", "--pool", pool, full))

	tofu := tofuWorkdir(t, dir, renderConfig(`
import {
  to = libvirt_volume.full
  id = "{{.Pool}}/{{.Full}}"
}
import {
  to = libvirt_volume.cut
  id = "{{.Pool}}/{{.Cut}}"
}

resource "libvirt_volume" "full" {
  name   = {{q .Full}}
  pool   = {{q .Pool}}
  create = { content = { url = {{q .URL}} } }
}

resource "libvirt_volume" "cut" {
  name   = {{q .Cut}}
  pool   = {{q .Pool}}
  create = { content = { url = {{q .URL}} } }
}
`, map[string]any{"Pool": pool, "Full": full, "Cut": cut, "URL": src}))

	out, code := tofu("plan", "-input=false", "-no-color")
	if code != 0 {
		t.Fatalf("plan failed (exit %d):\n%s", code, out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	if want := fmt.Sprintf("differs from the content at byte %d", 2<<20); !strings.Contains(flat, want) {
		t.Errorf("the plan does not warn %q:\n%s", want, out)
	}
	changes := planChanges(t, tofu)
	if a := changes["libvirt_volume.cut"].actions; !slices.Contains(a, "delete") || !slices.Contains(a, "create") {
		t.Errorf("the truncated volume plans %v, want a replacement", a)
	}
	if a := changes["libvirt_volume.full"].actions; slices.Contains(a, "delete") || slices.Contains(a, "create") {
		t.Errorf("the complete volume plans %v, want it adopted as it is", a)
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "step.plan"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	if key := strings.TrimSpace(mustVirsh(t, "vol-key", "--pool", pool, full)); key != fullKey {
		t.Errorf("the complete volume was replaced: key %s, was %s", key, fullKey)
	}
	for _, n := range []string{full, cut} {
		got := filepath.Join(dir, n+".down")
		mustVirsh(t, "vol-download", "--pool", pool, n, got)
		b, err := os.ReadFile(got)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, content) {
			t.Errorf("volume %s does not hold the content after the apply (%d bytes)", n, len(b))
		}
	}
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("the plan after the apply is not empty (exit %d):\n%s", code, out)
	}
	if out, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Errorf("destroy failed:\n%s", out)
	}
}
