package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccVolume_contentSource records what each volume's create transferred.
// Three volumes of one URL (with a checksum and a cache folder) and one of a
// local file: one of the three downloads the 3 MiB, the two others are
// copies on the host (0 bytes), the file one reads its bytes. A volume added
// in a second apply reads the content from the cache. The output, printed at
// the end of each apply, sums it up per volume.
func TestAccVolume_contentSource(t *testing.T) {
	l := testAccStorageConn(t)
	data := randomBytes(t, 3<<20+7)
	srv := newImageServer(t, map[string][]byte{"src.img": data})
	srv.delay = 300 * time.Millisecond // the three creates start while the first downloads
	dir := t.TempDir()
	local := filepath.Join(dir, "local.img")
	if err := os.WriteFile(local, data[:1<<20], 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	config := func(later bool) string {
		return testConfig(`
locals {
  content = { url = "{{.URL}}", checksum = {{q .Digest}}, cache_dir = {{q .Cache}} }
}
resource "libvirt_volume" "shared" {
  count  = 3
  name   = "tfimg-src-${count.index}.img"
  pool   = {{q .Pool}}
  create = { content = local.content }
}
resource "libvirt_volume" "local" {
  name   = "tfimg-src-local.img"
  pool   = {{q .Pool}}
  create = { content = { url = {{q .Local}} } }
}
{{if .Later}}
resource "libvirt_volume" "later" {
  name   = "tfimg-src-later.img"
  pool   = {{q .Pool}}
  create = { content = local.content }
}
{{end}}
output "transfers" {
  value = { for v in concat(libvirt_volume.shared, [libvirt_volume.local]{{if .Later}}, [libvirt_volume.later]{{end}}) :
    v.name => "${v.content_source} ${v.content_bytes}" }
}
`, map[string]any{"URL": srv.URL + "/img/src.img", "Digest": sha256Digest(data), "Cache": cache, "Pool": testAccPool(),
			"Local": local, "Later": later})
	}
	size := fmt.Sprint(len(data))
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: volumeCheckDestroy(l, "tfimg-src-0.img", "tfimg-src-1.img", "tfimg-src-2.img",
			"tfimg-src-local.img", "tfimg-src-later.img"),
		Steps: []resource.TestStep{
			{
				Config: config(false),
				Check: func(st *terraform.State) error {
					var shared []string
					for i := range 3 {
						a := st.RootModule().Resources[fmt.Sprintf("libvirt_volume.shared.%d", i)].Primary.Attributes
						shared = append(shared, a["content_source"]+" "+a["content_bytes"])
					}
					sort.Strings(shared)
					if want := []string{"copy 0", "copy 0", "download " + size}; strings.Join(shared, ",") != strings.Join(want, ",") {
						return fmt.Errorf("the three volumes of one URL record %q, want %q", shared, want)
					}
					if n := srv.count("/img/src.img"); n != 1 {
						return fmt.Errorf("%d GETs for three volumes, want 1", n)
					}
					return checkVolumeContent(l, "tfimg-src-1.img", data)(st)
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.local", tfjsonpath.New("content_source"), knownvalue.StringExact("file")),
					statecheck.ExpectKnownValue("libvirt_volume.local", tfjsonpath.New("content_bytes"), knownvalue.Int64Exact(1<<20)),
				},
				ConfigPlanChecks: emptyPlanAfterApply,
			},
			{
				Config: config(true),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.later", tfjsonpath.New("content_source"), knownvalue.StringExact("cache")),
					statecheck.ExpectKnownValue("libvirt_volume.later", tfjsonpath.New("content_bytes"), knownvalue.Int64Exact(int64(len(data)))),
					// the summary an apply prints: the earlier volumes keep what their create did
					statecheck.ExpectKnownOutputValueAtPath("transfers", tfjsonpath.New("tfimg-src-later.img"), knownvalue.StringExact("cache "+size)),
					statecheck.ExpectKnownOutputValueAtPath("transfers", tfjsonpath.New("tfimg-src-local.img"), knownvalue.StringExact(fmt.Sprintf("file %d", 1<<20))),
				},
				Check: func(st *terraform.State) error {
					if n := srv.count("/img/src.img"); n != 1 {
						return fmt.Errorf("%d GETs after the cached create, want still 1", n)
					}
					return checkVolumeContent(l, "tfimg-src-later.img", data)(st)
				},
				ConfigPlanChecks: emptyPlanAfterApply,
			},
		},
	})
}
