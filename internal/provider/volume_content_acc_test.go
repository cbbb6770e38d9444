package provider

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
)

// imageServer serves images on 127.0.0.1 the way mirrors do, and misbehaves
// on request:
//
//	/img/<name>          the file, with Range support and an ETag
//	/SHA256SUMS          the GNU checksum list of all files (plus another entry)
//	/drop-once/<name>    the first request sends half and drops the connection
//	/drop-always/<name>  every request sends half of what it asked for and drops
//
// It counts GET requests per path.
type imageServer struct {
	*httptest.Server
	files map[string][]byte
	mu    sync.Mutex
	gets  map[string]int
	drops map[string]int
	delay time.Duration // before each answer, as a distant server
}

func newImageServer(t *testing.T, files map[string][]byte) *imageServer {
	s := &imageServer{files: files, gets: map[string]int{}, drops: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *imageServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets[path]
}

func (s *imageServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.gets[r.URL.Path]++
	drops := s.drops[r.URL.Path]
	s.mu.Unlock()
	time.Sleep(s.delay)
	if r.URL.Path == "/SHA256SUMS" {
		fmt.Fprintf(w, "%s  unrelated.iso\n", strings.Repeat("0", 64))
		for name, data := range s.files {
			sum := sha256.Sum256(data)
			fmt.Fprintf(w, "%s *%s\n", hex.EncodeToString(sum[:]), name)
		}
		return
	}
	mode, name, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	data, ok := s.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if mode == "drop-always" || (mode == "drop-once" && drops == 0) {
		s.mu.Lock()
		s.drops[r.URL.Path]++
		s.mu.Unlock()
		from := 0
		if rg := r.Header.Get("Range"); rg != "" {
			fmt.Sscanf(rg, "bytes=%d-", &from)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(data)-1, len(data)))
			w.Header().Set("Content-Length", fmt.Sprint(len(data)-from))
			w.WriteHeader(http.StatusPartialContent)
		} else {
			w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		}
		w.Write(data[from : from+(len(data)-from)/2])
		w.(http.Flusher).Flush()
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
		return
	}
	w.Header().Set("ETag", `"v1"`)
	http.ServeContent(w, r, name, time.Unix(1700000000, 0), bytes.NewReader(data))
}

func sha256Digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// TestAccVolume_checksums creates volumes whose content is checked against
// a checksum (given, or from a SHA256SUMS file), one of them through a
// connection dropped after half the bytes (resumed with a Range request);
// a wrong digest, and a connection that drops on every try, fail and leave
// no volume; a malformed checksum is refused at plan naming the attribute.
func TestAccVolume_checksums(t *testing.T) {
	l := testAccStorageConn(t)
	old := storage.RetryBackoff
	storage.RetryBackoff = 20 * time.Millisecond
	t.Cleanup(func() { storage.RetryBackoff = old })

	a, b := randomBytes(t, 5<<20), randomBytes(t, 3<<20+17)
	srv := newImageServer(t, map[string][]byte{"a.img": a, "b.img": b})
	local := filepath.Join(t.TempDir(), "local.img")
	if err := os.WriteFile(local, b, 0o644); err != nil {
		t.Fatal(err)
	}
	pool := testAccPool()
	// one volume from url, checked against checksum unless it is ""
	one := func(name, url, checksum string) string {
		return testConfig(`
resource "libvirt_volume" "v" {
  name   = {{q .Name}}
  pool   = {{q .Pool}}
  create = { content = { url = {{q .URL}}{{if .Checksum}}, checksum = {{q .Checksum}}{{end}} } }
}
`, map[string]any{"Name": name, "Pool": pool, "URL": url, "Checksum": checksum})
	}
	good := testConfig(`
resource "libvirt_volume" "sums" {
  name   = "img-sums.img"
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/img/a.img", checksum_url = "{{.URL}}/SHA256SUMS" } }
}
resource "libvirt_volume" "resumed" {
  name   = "img-resumed.img"
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/drop-once/b.img", checksum = {{q .Digest}} } }
}
resource "libvirt_volume" "local" {
  name   = "img-local.img"
  pool   = {{q .Pool}}
  create = { content = { url = {{q .Local}}, checksum = {{q .Digest}} } }
}
`, map[string]any{"Pool": pool, "URL": srv.URL, "Digest": sha256Digest(b), "Local": local})
	noVolume := func(names ...string) func() {
		return func() {
			if err := checkNoVolume(l, names...); err != nil {
				t.Fatal(err)
			}
		}
	}
	wrong := "sha256:" + strings.Repeat("ab", 32)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, "img-wrong.img", "img-sums.img", "img-resumed.img", "img-local.img", "img-dropped.img"),
		Steps: []resource.TestStep{
			{
				Config:      one("img-wrong.img", srv.URL+"/img/a.img", wrong),
				ExpectError: regexp.MustCompile(`(?s)/img/a\.img.*checksum\s+mismatch.*` + sha256Digest(a)[:20] + `.*expected\s+` + wrong[:20]),
			},
			{
				PreConfig:   noVolume("img-wrong.img"),
				Config:      one("img-wrong.img", local, wrong),
				ExpectError: regexp.MustCompile(`(?s)local\.img.*checksum\s+mismatch`),
			},
			{
				PreConfig:   noVolume("img-wrong.img"),
				Config:      one("img-wrong.img", local, "sha256:1234"),
				ExpectError: regexp.MustCompile(`(?s)create\.content\.checksum.*a\s+sha256\s+digest\s+is\s+64\s+hexadecimal\s+digits`),
			},
			{
				Config:      one("img-dropped.img", srv.URL+"/drop-always/a.img", ""),
				ExpectError: regexp.MustCompile(`(?s)/drop-always/a\.img.*connection\s+closed\s+after\s+\d+\s+of\s+5242880\s+bytes.*after\s+4\s+retries.*bytes\s+transferred`),
			},
			{
				PreConfig: func() {
					noVolume("img-wrong.img", "img-dropped.img")()
					if n := srv.count("/drop-always/a.img"); n != storage.Retries+1 {
						t.Errorf("drop-always: %d requests, want %d", n, storage.Retries+1)
					}
				},
				Config: good,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.sums", tfjsonpath.New("content_digest"), knownvalue.StringExact(sha256Digest(a))),
					statecheck.ExpectKnownValue("libvirt_volume.resumed", tfjsonpath.New("content_digest"), knownvalue.StringExact(sha256Digest(b))),
					statecheck.ExpectKnownValue("libvirt_volume.local", tfjsonpath.New("content_digest"), knownvalue.StringExact(sha256Digest(b))),
				},
				Check: func(st *terraform.State) error {
					for name, want := range map[string][]byte{"img-sums.img": a, "img-resumed.img": b, "img-local.img": b} {
						if err := checkVolumeContent(l, name, want)(st); err != nil {
							return err
						}
					}
					if n := srv.count("/drop-once/b.img"); n != 2 {
						return fmt.Errorf("drop-once: %d requests, want 2 (one dropped, one Range request resuming it)", n)
					}
					return nil
				},
				ConfigPlanChecks: emptyPlanAfterApply,
			},
			{
				// how content is fetched is not which content: nothing is replaced
				Config: strings.Replace(good, `checksum_url = "`, `tls_insecure = true, checksum_url = "`, 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("libvirt_volume.sums", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("libvirt_volume.resumed", plancheck.ResourceActionNoop),
				}, PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.sums", tfjsonpath.New("content_digest"), knownvalue.StringExact(sha256Digest(a))),
					statecheck.ExpectKnownValue("libvirt_volume.sums", tfjsonpath.New("create").AtMapKey("content").AtMapKey("tls_insecure"), knownvalue.Bool(true)),
				},
			},
			{
				// a different checksum is different content: replaced
				Config: strings.Replace(good, `checksum = "`+sha256Digest(b)+`" } }
}
resource "libvirt_volume" "local"`, `checksum = "`+wrong+`" } }
}
resource "libvirt_volume" "local"`, 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("libvirt_volume.resumed", plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ExpectError: regexp.MustCompile(`checksum\s+mismatch`),
			},
		},
	})
}

// sharedDownloadConfig is n volumes per host with the same content.
func sharedDownloadConfig(provider, url, checksum string, hosts map[string][]string) string {
	cfg := provider
	for host, names := range hosts {
		for _, name := range names {
			cfg += renderConfig(`
resource "libvirt_volume" {{q .Name}} {
  name   = "{{.Name}}.img"
  pool   = {{q .Pool}}
  {{if .Host}}host = {{q .Host}}{{end}}
  create = { content = { url = {{q .URL}}, checksum = {{q .Checksum}} } }
}
`, map[string]any{"Name": name, "Pool": testAccPool(), "Host": host, "URL": url, "Checksum": checksum})
		}
	}
	return cfg
}

// TestAccVolume_sharedDownload creates three volumes with the same content
// on one host: the server sees one GET, the other two volumes are copies
// made on the host, all hold the content and record its digest.
func TestAccVolume_sharedDownload(t *testing.T) {
	l := testAccStorageConn(t)
	data := randomBytes(t, 4<<20+3)
	srv := newImageServer(t, map[string][]byte{"shared.img": data})
	srv.delay = 300 * time.Millisecond // a network's latency: the three creates start while the first downloads
	names := []string{"img-shared-1", "img-shared-2", "img-shared-3"}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, "img-shared-1.img", "img-shared-2.img", "img-shared-3.img"),
		Steps: []resource.TestStep{{
			Config: sharedDownloadConfig(testAccProviderConfig(), srv.URL+"/img/shared.img", sha256Digest(data), map[string][]string{"": names}),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("libvirt_volume.img-shared-1", tfjsonpath.New("content_digest"), knownvalue.StringExact(sha256Digest(data))),
				statecheck.ExpectKnownValue("libvirt_volume.img-shared-2", tfjsonpath.New("content_digest"), knownvalue.StringExact(sha256Digest(data))),
				statecheck.ExpectKnownValue("libvirt_volume.img-shared-3", tfjsonpath.New("content_digest"), knownvalue.StringExact(sha256Digest(data))),
			},
			Check: func(st *terraform.State) error {
				for _, n := range names {
					if err := checkVolumeContent(l, n+".img", data)(st); err != nil {
						return err
					}
				}
				if n := srv.count("/img/shared.img"); n != 1 {
					return fmt.Errorf("%d GET requests for three volumes of the same image, want 1", n)
				}
				return nil
			},
			ConfigPlanChecks: emptyPlanAfterApply,
		}},
	})
}

// TestAccVolume_sharedDownloadTwoHosts creates two volumes of the same
// content on each of two hosts: one GET per host.
func TestAccVolume_sharedDownloadTwoHosts(t *testing.T) {
	uriB := testAccURIB(t)
	l := testAccStorageConn(t)
	data := randomBytes(t, 4<<20+3)
	srv := newImageServer(t, map[string][]byte{"shared.img": data})
	srv.delay = 300 * time.Millisecond
	hosts := map[string][]string{"a": {"img-2h-a1", "img-2h-a2"}, "b": {"img-2h-b1", "img-2h-b2"}}
	dir := testAccPoolDir(t, l)
	// host a's listing of the pool folder learns of host b's volumes only
	// when the pool is refreshed (libvirt does so after each upload), so the
	// files are checked directly
	files := func(check func(name string) error) error {
		for _, names := range hosts {
			for _, n := range names {
				if err := check(filepath.Join(dir, n+".img")); err != nil {
					return err
				}
			}
		}
		return nil
	}
	t.Cleanup(func() { // each host forgets the other's volumes
		if p, err := l.StoragePoolLookupByName(testAccPool()); err == nil {
			_ = l.StoragePoolRefresh(p, 0)
		}
		onHost(t, uriB, func(lb *libvirt.Libvirt) error {
			if p, err := lb.StoragePoolLookupByName(testAccPool()); err == nil {
				_ = lb.StoragePoolRefresh(p, 0)
			}
			return nil
		})
	})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			return files(func(p string) error {
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					return fmt.Errorf("%s remains after destroy (%v)", p, err)
				}
				return nil
			})
		},
		Steps: []resource.TestStep{{
			Config: sharedDownloadConfig(testAccHostsProvider(uriB), srv.URL+"/img/shared.img", sha256Digest(data), hosts),
			Check: func(st *terraform.State) error {
				err := files(func(p string) error {
					got, err := os.ReadFile(p)
					if err != nil || !bytes.Equal(got, data) {
						return fmt.Errorf("%s: %d bytes (error %v), want the %d bytes of the image", p, len(got), err, len(data))
					}
					return nil
				})
				if err != nil {
					return err
				}
				if n := srv.count("/img/shared.img"); n != 2 {
					return fmt.Errorf("%d GET requests for two volumes on each of two hosts, want 2 (one per host)", n)
				}
				return nil
			},
		}},
	})
}

// TestAccVolume_verifyContent creates two verified volumes (one from
// gzip-compressed content) with verify_content; refreshing them plans
// nothing. Then one is truncated and the other has a byte changed behind
// the provider's back: the plan replaces exactly those, and after the apply
// they hold their content again.
func TestAccVolume_verifyContent(t *testing.T) {
	l := testAccStorageConn(t)
	dir := t.TempDir()
	data := randomBytes(t, 3<<20)
	plain := filepath.Join(dir, "plain.img")
	if err := os.WriteFile(plain, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	packed := filepath.Join(dir, "packed.img.gz")
	if err := os.WriteFile(packed, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	config := testConfig(`
resource "libvirt_volume" "plain" {
  name           = "img-verify-plain.img"
  pool           = {{q .Pool}}
  verify_content = true
  create         = { content = { url = {{q .Plain}}, checksum = {{q .PlainDigest}} } }
}
resource "libvirt_volume" "packed" {
  name           = "img-verify-packed.img"
  pool           = {{q .Pool}}
  verify_content = true
  create         = { content = { url = {{q .Packed}}, checksum = {{q .PackedDigest}} } }
}
resource "libvirt_volume" "unchecked" {
  name   = "img-verify-unchecked.img"
  pool   = {{q .Pool}}
  create = { content = { url = {{q .Plain}}, checksum = {{q .PlainDigest}} } }
}
`, map[string]any{"Pool": testAccPool(), "Plain": plain, "PlainDigest": sha256Digest(data), "Packed": packed, "PackedDigest": sha256Digest(gz.Bytes())})
	poolDir := testAccPoolDir(t, l)
	alter := func(name string, change func(f *os.File) error) {
		f, err := os.OpenFile(filepath.Join(poolDir, name), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := change(f); err != nil {
			t.Fatal(err)
		}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, "img-verify-plain.img", "img-verify-packed.img", "img-verify-unchecked.img"),
		Steps: []resource.TestStep{
			{
				Config:           config,
				ConfigPlanChecks: emptyPlanAfterApply,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.packed", tfjsonpath.New("content_digest"), knownvalue.StringExact(sha256Digest(gz.Bytes()))),
				},
			},
			{
				PreConfig: func() {
					alter("img-verify-plain.img", func(f *os.File) error { return f.Truncate(1 << 20) })
					alter("img-verify-packed.img", func(f *os.File) error { _, err := f.WriteAt([]byte{^data[12345]}, 12345); return err })
					alter("img-verify-unchecked.img", func(f *os.File) error { _, err := f.WriteAt([]byte{^data[12345]}, 12345); return err })
				},
				// the refresh reads the volumes back and finds two changed
				RefreshState:       true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_volume.plain", plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectResourceAction("libvirt_volume.packed", plancheck.ResourceActionDestroyBeforeCreate),
						// verify_content is off: not read back, not replaced
						plancheck.ExpectResourceAction("libvirt_volume.unchecked", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					checkVolumeContent(l, "img-verify-plain.img", data),
					checkVolumeContent(l, "img-verify-packed.img", data),
				),
			},
		},
	})
}

// TestAccVolume_contentCache downloads verified content once into a cache
// folder; a volume created later (a renamed one, replacing the first) reads
// it from the cache: the server sees no second GET. A wrong checksum leaves
// nothing in the cache.
func TestAccVolume_contentCache(t *testing.T) {
	l := testAccStorageConn(t)
	data := randomBytes(t, 2<<20+5)
	srv := newImageServer(t, map[string][]byte{"cached.img": data})
	cache := t.TempDir()
	config := func(name, checksum string) string {
		return testConfig(`
resource "libvirt_volume" "v" {
  name   = {{q .Name}}
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/img/cached.img", checksum = {{q .Checksum}}, cache_dir = {{q .Cache}} } }
}
`, map[string]any{"Name": name, "Pool": testAccPool(), "URL": srv.URL, "Checksum": checksum, "Cache": cache})
	}
	cached := filepath.Join(cache, strings.Replace(sha256Digest(data), ":", "-", 1))
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, "img-cache-1.img", "img-cache-2.img", "img-cache-x.img"),
		Steps: []resource.TestStep{
			{
				Config:      config("img-cache-x.img", "sha256:"+strings.Repeat("0", 64)),
				ExpectError: regexp.MustCompile(`checksum\s+mismatch`),
			},
			{
				PreConfig: func() {
					if entries, _ := os.ReadDir(cache); len(entries) != 0 {
						t.Fatalf("a mismatching download left %d files in the cache", len(entries))
					}
				},
				Config: config("img-cache-1.img", sha256Digest(data)),
				Check: func(st *terraform.State) error {
					got, err := os.ReadFile(cached)
					if err != nil || !bytes.Equal(got, data) {
						return fmt.Errorf("cache file %s: %d bytes (%v)", cached, len(got), err)
					}
					return checkVolumeContent(l, "img-cache-1.img", data)(st)
				},
			},
			{
				Config: config("img-cache-2.img", sha256Digest(data)),
				Check: func(st *terraform.State) error {
					if n := srv.count("/img/cached.img"); n != 2 {
						return fmt.Errorf("%d GETs: want 2 (the mismatching one and the first volume's), none for the second volume", n)
					}
					return checkVolumeContent(l, "img-cache-2.img", data)(st)
				},
				ConfigPlanChecks: emptyPlanAfterApply,
			},
		},
	})
}

// TestAccVolume_trackUpstream creates a volume from a "latest" URL with
// track_upstream; while the server's file stays the same the plan is empty;
// when it changes (new ETag, Last-Modified and bytes) the plan replaces the
// volume and the apply gives it the new content.
func TestAccVolume_trackUpstream(t *testing.T) {
	l := testAccStorageConn(t)
	v1, v2 := randomBytes(t, 1<<20), randomBytes(t, 1<<20+100)
	var mu sync.Mutex
	current, etag, modified := v1, `"v1"`, time.Unix(1700000000, 0)
	var gets int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		data, tag, mod := current, etag, modified
		if r.Method == http.MethodGet {
			gets++
		}
		mu.Unlock()
		w.Header().Set("ETag", tag)
		http.ServeContent(w, r, "latest.img", mod, bytes.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	config := testConfig(`
resource "libvirt_volume" "latest" {
  name   = "img-latest.img"
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/latest.img", track_upstream = true } }
}
`, map[string]any{"Pool": testAccPool(), "URL": srv.URL})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, "img-latest.img"),
		Steps: []resource.TestStep{
			{
				Config:           config,
				ConfigPlanChecks: emptyPlanAfterApply,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.latest", tfjsonpath.New("content_upstream"),
						knownvalue.StringRegexp(regexp.MustCompile(`^etag="v1"; last-modified=.*; size=1048576$`))),
				},
				Check: checkVolumeContent(l, "img-latest.img", v1),
			},
			{
				PreConfig: func() {
					mu.Lock()
					current, etag, modified = v2, `"v2"`, time.Unix(1700086400, 0)
					mu.Unlock()
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_volume.latest", plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(st *terraform.State) error {
					mu.Lock()
					defer mu.Unlock()
					if gets != 2 {
						return fmt.Errorf("%d GETs, want 2 (one per content)", gets)
					}
					return checkVolumeContent(l, "img-latest.img", v2)(st)
				},
			},
		},
	})
}
