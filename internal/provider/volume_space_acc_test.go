package provider

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestAccVolume_contentLargerThanPool: content that cannot fit the pool's
// free space fails before anything is created or streamed. A file on this
// machine is refused at plan; a URL whose Content-Length is too large fails
// at apply with 0 bytes transferred, and the pool holds no volume after it.
// The pool is a dir pool on an 8 MiB tmpfs, the content 16 MiB.
func TestAccVolume_contentLargerThanPool(t *testing.T) {
	testAccPreCheck(t)
	const pool = "tfacc-small-pool"
	removePoolLeftovers(pool)
	dir := t.TempDir()
	mnt := filepath.Join(dir, "pool")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mounting an 8 MiB tmpfs (the test runs as root): %v %s", err, out)
	}
	t.Cleanup(func() {
		removePoolLeftovers(pool)
		_ = exec.Command("umount", mnt).Run()
	})
	big := filepath.Join(dir, "big.raw")
	if err := os.WriteFile(big, make([]byte, 16<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(16<<20))
		n, _ := w.Write(make([]byte, 16<<20))
		served.Add(int64(n))
	}))
	defer srv.Close()

	config := func(url string) string {
		return renderConfig(`
resource "libvirt_pool" "p" {
  name   = {{q .Pool}}
  type   = "dir"
  target = { path = {{q .Dir}} }
}

resource "libvirt_volume" "v" {
  name   = "big.raw"
  pool   = libvirt_pool.p.name
  create = { content = { url = {{q .URL}} } }
}
`, map[string]any{"Pool": pool, "Dir": mnt, "URL": url})
	}
	tofu := tofuWorkdir(t, dir, config(big))
	// the pool first, so that the volume's plan can read its free space
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve", "-target=libvirt_pool.p"); code != 0 {
		t.Fatalf("pool apply failed (exit %d):\n%s", code, out)
	}
	out, code := tofu("plan", "-input=false", "-no-color")
	if code == 0 || !strings.Contains(out, "Content larger than the pool's free space") || !strings.Contains(out, "16.0 MiB") {
		t.Errorf("a 16 MiB file planned into an 8 MiB pool: exit %d\n%s", code, out)
	}

	tofu = tofuWorkdir(t, dir, config(srv.URL+"/big.raw"))
	out, code = tofu("apply", "-input=false", "-no-color", "-auto-approve")
	if code == 0 || !strings.Contains(out, "nothing was created") || !strings.Contains(out, "(0 bytes transferred") {
		t.Errorf("a 16 MiB download into an 8 MiB pool: exit %d\n%s", code, out)
	}
	if vols := mustVirsh(t, "vol-list", pool); strings.Contains(vols, "big.raw") {
		t.Errorf("the failed create left a volume:\n%s", vols)
	}
	t.Logf("16 MiB content, 8 MiB pool: refused at plan (file) and before streaming (URL); the test server got %d bytes into the socket before the provider closed it, none reached libvirt", served.Load())
	if out, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Errorf("destroy failed (exit %d):\n%s", code, out)
	}
}
