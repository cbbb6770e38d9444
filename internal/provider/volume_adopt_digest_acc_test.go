package provider

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAccVolume_adoptedDigest adopts, with import blocks, two volumes written
// by `virsh vol-upload`, with a configuration giving their content with a
// checksum and verify_content = true: "whole" holds the whole image, "cut"
// only its first 2 MiB (an upload cut short). The cut one is replaced at
// once. The whole one is adopted as it is, with the checksum recorded in
// content_digest; truncated afterwards (as an interrupted write or a full
// disk leaves it), the next plan must show it as drift and replace it,
// instead of "No changes": the adopted volume is verified like one the
// provider created. "late" is another whole one whose checksum is known only
// at apply (from a terraform_data created in the same apply): Update
// compares and records it.
func TestAccVolume_adoptedDigest(t *testing.T) {
	testAccPreCheck(t)
	l := testAccStorageConn(t)
	pool := testAccPool()
	const whole, cut, late = "tfimg-adopt-whole.img", "tfimg-adopt-cut.img", "tfimg-adopt-late.img"
	for _, n := range []string{whole, cut, late} {
		_, _ = virsh("vol-delete", "--pool", pool, n)
		n := n
		t.Cleanup(func() { _, _ = virsh("vol-delete", "--pool", pool, n) })
	}
	dir := t.TempDir()
	content := randomBytes(t, 6<<20)
	src := filepath.Join(dir, "image.raw")
	mustWrite(t, src, string(content))
	head := filepath.Join(dir, "head.raw")
	mustWrite(t, head, string(content[:2<<20]))
	for _, n := range []string{whole, cut, late} {
		mustVirsh(t, "vol-create-as", pool, n, "6M", "--format", "raw")
	}
	mustVirsh(t, "vol-upload", "--pool", pool, whole, src)
	mustVirsh(t, "vol-upload", "--pool", pool, late, src)
	mustVirsh(t, "vol-upload", "--pool", pool, cut, head)
	wholeKey := strings.TrimSpace(mustVirsh(t, "vol-key", "--pool", pool, whole))
	digest := sha256Digest(content)

	tofu := tofuWorkdir(t, dir, testConfig("\n"+virtxmlRequiredProviders+`
import {
  to = libvirt_volume.whole
  id = "{{.Pool}}/{{.Whole}}"
}
import {
  to = libvirt_volume.cut
  id = "{{.Pool}}/{{.Cut}}"
}
import {
  to = libvirt_volume.late
  id = "{{.Pool}}/{{.Late}}"
}

resource "libvirt_volume" "whole" {
  name           = {{q .Whole}}
  pool           = {{q .Pool}}
  verify_content = true
  create         = { content = { url = {{q .Src}}, checksum = {{q .Digest}} } }
}

resource "libvirt_volume" "cut" {
  name           = {{q .Cut}}
  pool           = {{q .Pool}}
  verify_content = true
  create         = { content = { url = {{q .Src}}, checksum = {{q .Digest}} } }
}

resource "terraform_data" "sum" {
  input = {{q .Digest}}
}

resource "libvirt_volume" "late" {
  name           = {{q .Late}}
  pool           = {{q .Pool}}
  verify_content = true
  create         = { content = { url = {{q .Src}}, checksum = terraform_data.sum.output } }
}

output "digest" {
  value = libvirt_volume.whole.content_digest
}

output "late_digest" {
  value = libvirt_volume.late.content_digest
}
`, map[string]any{"Pool": pool, "Whole": whole, "Cut": cut, "Late": late, "Src": src, "Digest": digest}))

	changes := planChanges(t, tofu)
	if a := changes["libvirt_volume.cut"].actions; !slices.Contains(a, "delete") || !slices.Contains(a, "create") {
		t.Errorf("the volume holding 2 of 6 MiB plans %v, want a replacement", a)
	}
	for _, r := range []string{"libvirt_volume.whole", "libvirt_volume.late"} {
		if a := changes[r].actions; slices.Contains(a, "delete") || slices.Contains(a, "create") {
			t.Errorf("%s plans %v, want it adopted as it is", r, a)
		}
	}
	lateKey := strings.TrimSpace(mustVirsh(t, "vol-key", "--pool", pool, late))
	if out, code := tofu("apply", "-input=false", "-no-color", "step.plan"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	if key := strings.TrimSpace(mustVirsh(t, "vol-key", "--pool", pool, whole)); key != wholeKey {
		t.Errorf("the whole volume was replaced: key %s, was %s", key, wholeKey)
	}
	if key := strings.TrimSpace(mustVirsh(t, "vol-key", "--pool", pool, late)); key != lateKey {
		t.Errorf("the late volume was replaced: key %s, was %s", key, lateKey)
	}
	for _, o := range []string{"digest", "late_digest"} {
		if out, _ := tofu("output", "-raw", o); strings.TrimSpace(out) != digest {
			t.Errorf("output %s (content_digest of an adopted volume) is %q, want the checksum %s", o, out, digest)
		}
	}
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after adopting is not empty (exit %d):\n%s", code, out)
	}

	// the adopted volumes lose their last 3 MiB
	for _, n := range []string{whole, late} {
		if err := os.Truncate(filepath.Join(testAccPoolDir(t, l), n), 3<<20); err != nil {
			t.Fatal(err)
		}
	}
	out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode")
	flat := strings.Join(strings.Fields(out), " ")
	for _, r := range []string{"libvirt_volume.whole", "libvirt_volume.late"} {
		if code != 2 || !strings.Contains(flat, r+" must be replaced") {
			t.Errorf("the truncated adopted volume %s does not plan its replacement (exit %d, want 2):\n%s", r, code, out)
		}
	}
	if !strings.Contains(flat, "Volume content changed") {
		t.Errorf("the plan does not warn that the content changed:\n%s", out)
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	checkVolumeBytes(t, pool, whole, content)
	checkVolumeBytes(t, pool, late, content)
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("the plan after replacing is not empty (exit %d):\n%s", code, out)
	}
	if out, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Errorf("destroy failed:\n%s", out)
	}
}

// checkVolumeBytes downloads a volume with virsh and compares it with want.
func checkVolumeBytes(t *testing.T, pool, name string, want []byte) {
	t.Helper()
	got := filepath.Join(t.TempDir(), name+".down")
	mustVirsh(t, "vol-download", "--pool", pool, name, got)
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b, want) {
		t.Errorf("volume %s does not hold the content (%d bytes, want %d)", name, len(b), len(want))
	}
}
