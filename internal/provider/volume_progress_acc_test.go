package provider

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestAccVolume_uploadProgressLogged uploads 48 MiB served at 8 MiB/s with
// TF_LOG=INFO: the log shows the upload's progress while it runs (bytes
// done, total, rate) and its final figure.
func TestAccVolume_uploadProgressLogged(t *testing.T) {
	testAccPreCheck(t)
	const name = "tfacc-progress.img"
	pool := testAccPool()
	_, _ = virsh("vol-delete", "--pool", pool, name)
	t.Cleanup(func() { _, _ = virsh("vol-delete", "--pool", pool, name) })
	const size = 48 << 20
	srv := slowContent(t, size, 0)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "tofu.log")
	t.Setenv("TF_LOG", "INFO")
	t.Setenv("TF_LOG_PATH", logFile)
	tofu := tofuWorkdir(t, dir, renderConfig(`
resource "libvirt_volume" "v" {
  name   = {{q .Name}}
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/image.raw" } }
}
`, map[string]any{"Name": name, "Pool": pool, "URL": srv.URL}))
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	running := regexp.MustCompile(`volume upload progress: .*progress="(\d+\.\d MiB) \(\d+ bytes\) of 48\.0 MiB \(50331648 bytes\) \((\d+)%\), ([\d.]+) MiB/s"`).FindAllSubmatch(log, -1)
	if len(running) == 0 {
		t.Fatalf("no progress line while the upload ran in the INFO log")
	}
	for _, m := range running {
		if pct, _ := strconv.Atoi(string(m[2])); pct <= 0 || pct >= 100 {
			t.Errorf("a progress line during the upload says %s%%", m[2])
		}
	}
	if !regexp.MustCompile(`volume upload ended: .*progress="48\.0 MiB \(50331648 bytes\) of 48\.0 MiB \(50331648 bytes\) \(100%\)`).Match(log) {
		t.Errorf("no final progress line in the INFO log")
	}
	t.Logf("progress lines while running: %d, e.g. %s at %s MiB/s", len(running), running[0][1], running[0][3])
	if out, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Errorf("destroy failed:\n%s", out)
	}
}

// slowContent serves size bytes of fill with a Content-Length at about
// 8 MiB/s (1 MiB every 125 ms): long enough for a test to act while an
// upload runs.
func slowContent(t *testing.T, size int, fill byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		chunk := bytes.Repeat([]byte{fill}, 1<<20)
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(125 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}
