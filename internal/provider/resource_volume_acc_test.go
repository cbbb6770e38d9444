package provider

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// contentServer serves test images on 127.0.0.1:
//
//	/len/<name>     with Content-Length
//	/nolen/<name>   chunked, no Content-Length
//	/cut/<name>     announces the full length, sends half, drops the connection
//	anything else   404
type contentServer struct {
	*httptest.Server
	files    map[string][]byte
	delay    time.Duration
	inFlight atomic.Int32
	maxSeen  atomic.Int32
}

func newContentServer(t *testing.T, files map[string][]byte) *contentServer {
	s := &contentServer{files: files}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *contentServer) serve(w http.ResponseWriter, r *http.Request) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxSeen.Load()
		if n <= m || s.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(s.delay)
	mode, name, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	data, ok := s.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch mode {
	case "len":
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data)
	case "nolen":
		f := w.(http.Flusher)
		for off := 0; off < len(data); off += 64 << 10 {
			end := min(off+64<<10, len(data))
			w.Write(data[off:end])
			f.Flush()
		}
	case "cut":
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data[:len(data)/2])
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	default:
		http.NotFound(w, r)
	}
}

func randomBytes(t *testing.T, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// makeQcow2 creates a qcow2 image of the given virtual size with qemu-img and
// returns its path.
func makeQcow2(t *testing.T, dir, name, size string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if out, err := exec.Command("qemu-img", "create", "-q", "-f", "qcow2", p, size).CombinedOutput(); err != nil {
		t.Fatalf("qemu-img: %v: %s", err, out)
	}
	return p
}

// testAccPoolDir is the target directory of the test pool.
func testAccPoolDir(t *testing.T, l *libvirt.Libvirt) string {
	t.Helper()
	p, err := l.StoragePoolLookupByName(testAccPool())
	if err != nil {
		t.Fatal(err)
	}
	xml, err := l.StoragePoolGetXMLDesc(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<path>([^<]+)</path>`).FindStringSubmatch(xml)
	if m == nil {
		t.Fatalf("pool %s has no target path", testAccPool())
	}
	return m[1]
}

// checkVolumeContent compares the bytes of the volume file with want.
func checkVolumeContent(l *libvirt.Libvirt, name string, want []byte) func(*terraform.State) error {
	return func(*terraform.State) error {
		p, err := l.StoragePoolLookupByName(testAccPool())
		if err != nil {
			return err
		}
		v, err := l.StorageVolLookupByName(p, name)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(v.Key)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("volume %s holds %d bytes (sha256 %x), want %d bytes (sha256 %x)",
				name, len(got), sha256.Sum256(got), len(want), sha256.Sum256(want))
		}
		return nil
	}
}

// checkNoVolume fails when a volume of that name exists in the test pool.
func checkNoVolume(l *libvirt.Libvirt, names ...string) error {
	p, err := l.StoragePoolLookupByName(testAccPool())
	if err != nil {
		return err
	}
	for _, name := range names {
		if _, err := l.StorageVolLookupByName(p, name); !libvirtconn.IsNotFound(err) {
			return fmt.Errorf("volume %s exists (lookup error %v): a failed or destroyed volume must leave nothing", name, err)
		}
	}
	return nil
}

func volumeCheckDestroy(l *libvirt.Libvirt, names ...string) func(*terraform.State) error {
	return func(*terraform.State) error { return checkNoVolume(l, names...) }
}

var emptyPlanAfterApply = resource.ConfigPlanChecks{
	PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
}

func TestAccVolume_httpUpload(t *testing.T) {
	l := testAccStorageConn(t)
	raw := randomBytes(t, 3_000_001)
	qcow := makeQcow2(t, t.TempDir(), "img.qcow2", "96M")
	qdata, err := os.ReadFile(qcow)
	if err != nil {
		t.Fatal(err)
	}
	srv := newContentServer(t, map[string][]byte{"raw.img": raw, "img.qcow2": qdata})
	config := testConfig(`
resource "libvirt_volume" "raw" {
  name   = "tfacc-http-raw.img"
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/len/raw.img" } }
}
resource "libvirt_volume" "qcow2" {
  name   = "tfacc-http-nolen.qcow2"
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/nolen/img.qcow2" } }
}
resource "libvirt_volume" "raw_nolen" {
  name   = "tfacc-http-raw-nolen.img"
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/nolen/raw.img" } }
}
# capacity above the image's virtual size: grown after the upload
resource "libvirt_volume" "qcow2_grown" {
  name          = "tfacc-http-grown.qcow2"
  pool          = {{q .Pool}}
  capacity      = 128
  capacity_unit = "MiB"
  create        = { content = { url = "{{.URL}}/len/img.qcow2" } }
}
`, map[string]string{"Pool": testAccPool(), "URL": srv.URL})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, "tfacc-http-raw.img", "tfacc-http-nolen.qcow2", "tfacc-http-raw-nolen.img", "tfacc-http-grown.qcow2"),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.raw", tfjsonpath.New("capacity"), knownvalue.Int64Exact(int64(len(raw)))),
					statecheck.ExpectKnownValue("libvirt_volume.raw", tfjsonpath.New("target").AtMapKey("format").AtMapKey("type"), knownvalue.StringExact("raw")),
					statecheck.ExpectKnownValue("libvirt_volume.raw_nolen", tfjsonpath.New("capacity"), knownvalue.Int64Exact(int64(len(raw)))),
					statecheck.ExpectKnownValue("libvirt_volume.qcow2", tfjsonpath.New("capacity"), knownvalue.Int64Exact(96<<20)),
					statecheck.ExpectKnownValue("libvirt_volume.qcow2", tfjsonpath.New("target").AtMapKey("format").AtMapKey("type"), knownvalue.StringExact("qcow2")),
					statecheck.ExpectKnownValue("libvirt_volume.qcow2", tfjsonpath.New("path"), knownvalue.StringRegexp(regexp.MustCompile(`/tfacc-http-nolen\.qcow2$`))),
					statecheck.CompareValuePairs("libvirt_volume.qcow2", tfjsonpath.New("id"), "libvirt_volume.qcow2", tfjsonpath.New("key"), compareEqual{}),
					// the user's spelling of the size is kept
					statecheck.ExpectKnownValue("libvirt_volume.qcow2_grown", tfjsonpath.New("capacity"), knownvalue.Int64Exact(128)),
					statecheck.ExpectKnownValue("libvirt_volume.qcow2_grown", tfjsonpath.New("capacity_unit"), knownvalue.StringExact("MiB")),
				},
				Check: resource.ComposeTestCheckFunc(
					checkVolumeContent(l, "tfacc-http-raw.img", raw),
					checkVolumeContent(l, "tfacc-http-raw-nolen.img", raw),
					func(*terraform.State) error {
						// the uploaded image is still a valid qcow2 of the right size
						out, err := exec.Command("qemu-img", "info", "--output=json", filepath.Join(testAccPoolDir(t, l), "tfacc-http-nolen.qcow2")).CombinedOutput()
						if err != nil || !bytes.Contains(out, []byte(`"format": "qcow2"`)) || !bytes.Contains(out, []byte(`"virtual-size": 100663296`)) {
							return fmt.Errorf("qemu-img info: %v: %s", err, out)
						}
						out, err = exec.Command("qemu-img", "info", "--output=json", filepath.Join(testAccPoolDir(t, l), "tfacc-http-grown.qcow2")).CombinedOutput()
						if err != nil || !bytes.Contains(out, []byte(`"virtual-size": 134217728`)) {
							return fmt.Errorf("grown image: qemu-img info: %v: %s", err, out)
						}
						return nil
					},
				),
				ConfigPlanChecks: emptyPlanAfterApply,
			},
			{
				// import by key: everything but the creation source is read back
				ResourceName:            "libvirt_volume.qcow2",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"create", "allocation", "content_source", "content_bytes"},
			},
			{
				// import by pool/name
				ResourceName:            "libvirt_volume.raw",
				ImportState:             true,
				ImportStateId:           testAccPool() + "/tfacc-http-raw.img",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"create", "allocation", "content_source", "content_bytes"},
			},
		},
	})
}

// compareEqual is a compare.ValueComparer for equal values.
type compareEqual struct{}

func (compareEqual) CompareValues(values ...any) error {
	for _, v := range values[1:] {
		if fmt.Sprint(v) != fmt.Sprint(values[0]) {
			return fmt.Errorf("values differ: %v", values)
		}
	}
	return nil
}

func TestAccVolume_uploadFailuresLeaveNothing(t *testing.T) {
	l := testAccStorageConn(t)
	data := randomBytes(t, 8<<20)
	srv := newContentServer(t, map[string][]byte{"data.img": data})
	config := func(url string) string {
		return testConfig(`
resource "libvirt_volume" "fail" {
  name   = "tfacc-fail.img"
  pool   = {{q .Pool}}
  create = { content = { url = {{q .URL}} } }
}
`, map[string]string{"Pool": testAccPool(), "URL": url})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, "tfacc-fail.img"),
		Steps: []resource.TestStep{
			{
				Config:      config(srv.URL + "/len/missing.img"),
				ExpectError: regexp.MustCompile(`(?s)/len/missing\.img.*HTTP\s+status\s+404`),
			},
			{
				PreConfig: func() {
					if err := checkNoVolume(l, "tfacc-fail.img"); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config(srv.URL + "/cut/data.img"),
				ExpectError: regexp.MustCompile(`(?s)/cut/data\.img.*connection\s+closed\s+after\s+\d+\s+of\s+8388608\s+bytes.*bytes\s+transferred,\s+HTTP\s+status\s+200`),
			},
			{
				PreConfig: func() {
					if err := checkNoVolume(l, "tfacc-fail.img"); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config("/nonexistent/dir/image.qcow2"),
				ExpectError: regexp.MustCompile(`/nonexistent/dir/image\.qcow2:(?s).*no\s+such\s+file\s+or\s+directory`),
			},
			{
				PreConfig: func() {
					if err := checkNoVolume(l, "tfacc-fail.img"); err != nil {
						t.Fatal(err)
					}
				},
				Config: testConfig(`
resource "libvirt_volume" "fail" {
  name     = "tfacc-fail.img"
  pool     = {{q .Pool}}
  capacity = 1048576
  create   = { content = { url = "{{.URL}}/nolen/data.img" } }
}
`, map[string]string{"Pool": testAccPool(), "URL": srv.URL}),
				ExpectError: regexp.MustCompile(`(?s)capacity\s+1048576\s+is\s+smaller\s+than\s+the\s+uploaded\s+content's\s+size\s+8388608`),
			},
			{
				// the pool is unchanged and a good upload still works
				PreConfig: func() {
					if err := checkNoVolume(l, "tfacc-fail.img"); err != nil {
						t.Fatal(err)
					}
				},
				Config:           config(srv.URL + "/len/data.img"),
				Check:            checkVolumeContent(l, "tfacc-fail.img", data),
				ConfigPlanChecks: emptyPlanAfterApply,
			},
		},
	})
}

func TestAccVolume_fileOverlayGrow(t *testing.T) {
	l := testAccStorageConn(t)
	dir := t.TempDir()
	base := makeQcow2(t, dir, "base.qcow2", "64M")
	rawPath := filepath.Join(dir, "seed.iso")
	rawData := randomBytes(t, 1<<20+17)
	if err := os.WriteFile(rawPath, rawData, 0o644); err != nil {
		t.Fatal(err)
	}
	poolDir := testAccPoolDir(t, l)
	basePath := filepath.Join(poolDir, "tfacc-base.qcow2")
	configWith := func(seedURL string, withBase bool, overlayCapacity string) string {
		return testConfig(`
resource "libvirt_volume" "seed" {
  name   = "tfacc-seed.iso"
  pool   = {{q .Pool}}
  create = { content = { url = {{q .SeedURL}} } }
}
resource "libvirt_volume" "overlay_same_size" {
  name          = "tfacc-overlay-same.qcow2"
  pool          = {{q .Pool}}
  target        = { format = { type = "qcow2" } }
  backing_store = { path = {{q .BasePath}}, format = { type = "qcow2" } }
  depends_on    = [{{if .WithBase}}libvirt_volume.base{{end}}]
}
resource "libvirt_volume" "overlay" {
  name          = "tfacc-overlay.qcow2"
  pool          = {{q .Pool}}
  capacity      = {{.OverlayCapacity}}
  target        = { format = { type = "qcow2" } }
  backing_store = { path = {{q .BasePath}}, format = { type = "qcow2" } }
  depends_on    = [{{if .WithBase}}libvirt_volume.base{{end}}]
}
{{- if .WithBase}}
resource "libvirt_volume" "base" {
  name   = "tfacc-base.qcow2"
  pool   = {{q .Pool}}
  create = { content = { url = "file://{{.Base}}" } }
}
{{- end}}
`, map[string]any{"Pool": testAccPool(), "SeedURL": seedURL, "OverlayCapacity": overlayCapacity, "BasePath": basePath,
			"WithBase": withBase, "Base": base})
	}
	config := func(withBase bool, overlayCapacity string) string {
		return configWith(rawPath, withBase, overlayCapacity)
	}
	fileURL := "file://" + rawPath
	var overlayKey string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, "tfacc-seed.iso", "tfacc-overlay.qcow2", "tfacc-overlay-same.qcow2", "tfacc-base.qcow2"),
		Steps: []resource.TestStep{
			{
				Config: config(true, "64 * 1024 * 1024"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.seed", tfjsonpath.New("capacity"), knownvalue.Int64Exact(int64(len(rawData)))),
					statecheck.ExpectKnownValue("libvirt_volume.base", tfjsonpath.New("target").AtMapKey("format").AtMapKey("type"), knownvalue.StringExact("qcow2")),
					statecheck.ExpectKnownValue("libvirt_volume.base", tfjsonpath.New("capacity"), knownvalue.Int64Exact(64<<20)),
					statecheck.ExpectKnownValue("libvirt_volume.overlay", tfjsonpath.New("backing_store").AtMapKey("path"), knownvalue.StringExact(basePath)),
					// an overlay without capacity takes the base image's size
					statecheck.ExpectKnownValue("libvirt_volume.overlay_same_size", tfjsonpath.New("capacity"), knownvalue.Int64Exact(64<<20)),
				},
				Check: resource.ComposeTestCheckFunc(
					checkVolumeContent(l, "tfacc-seed.iso", rawData),
					func(s *terraform.State) error {
						overlayKey = s.RootModule().Resources["libvirt_volume.overlay"].Primary.ID
						out, err := exec.Command("qemu-img", "info", "--output=json", overlayKey).CombinedOutput()
						if err != nil || !bytes.Contains(out, []byte(basePath)) {
							return fmt.Errorf("overlay does not use the base image: %v: %s", err, out)
						}
						return nil
					},
				),
				ConfigPlanChecks: emptyPlanAfterApply,
			},
			{
				// grow in place: same volume, new size
				Config: config(true, "128 * 1024 * 1024"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_volume.overlay", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.overlay", tfjsonpath.New("capacity"), knownvalue.Int64Exact(128<<20)),
				},
				Check: func(s *terraform.State) error {
					if id := s.RootModule().Resources["libvirt_volume.overlay"].Primary.ID; id != overlayKey {
						return fmt.Errorf("volume key changed from %s to %s: grow replaced the volume", overlayKey, id)
					}
					_, capacity, _, err := l.StorageVolGetInfo(libvirt.StorageVol{Pool: testAccPool(), Name: "tfacc-overlay.qcow2", Key: overlayKey})
					if err != nil || capacity != 128<<20 {
						return fmt.Errorf("libvirt reports capacity %d (%v), want %d", capacity, err, 128<<20)
					}
					return nil
				},
			},
			{
				// import the overlay by key (step config: the grown overlay): the import plan is a no-op
				ResourceName:    "libvirt_volume.overlay",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
			},
			{
				Config:      config(true, "32 * 1024 * 1024"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Volume cannot shrink.*capacity\s+33554432\s+bytes\s+is\s+smaller`),
			},
			{
				// another content source replaces the volume (same bytes, file:// form)
				Config: configWith(fileURL, true, "128 * 1024 * 1024"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_volume.seed", plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectResourceAction("libvirt_volume.overlay", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkVolumeContent(l, "tfacc-seed.iso", rawData),
			},
			{
				// the base still backs the overlay: deleting it must refuse
				Config:      configWith(fileURL, false, "128 * 1024 * 1024"),
				ExpectError: regexp.MustCompile(`(?s)is\s+the\s+backing\s+file\s+of.*tfacc-overlay\.qcow2`),
			},
			{
				Config:           configWith(fileURL, true, "128 * 1024 * 1024"),
				ConfigPlanChecks: emptyPlanAfterApply,
				Check: func(*terraform.State) error {
					if _, err := os.Stat(basePath); err != nil {
						return fmt.Errorf("base image damaged by the refused delete: %v", err)
					}
					return nil
				},
			},
		},
	})
}
