package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccVolume_cacheMaxSize bounds the content cache to one image and a
// half: a size that is not one, or a bound without cache_dir, is refused at
// plan naming the attribute; after a second image enters the cache, the
// first (used least recently) is evicted, the second kept.
func TestAccVolume_cacheMaxSize(t *testing.T) {
	l := testAccStorageConn(t)
	one, two := randomBytes(t, 1<<20), randomBytes(t, 1<<20)
	srv := newImageServer(t, map[string][]byte{"one.img": one, "two.img": two})
	cache := t.TempDir()
	// dir "": no cache_dir
	config := func(images []string, maxSize, dir string) string {
		return testConfig(`
{{range .Images}}
resource "libvirt_volume" "{{.}}" {
  name   = "tfimg-bound-{{.}}.img"
  pool   = {{q $.Pool}}
  create = { content = { url = "{{$.URL}}/img/{{.}}.img", checksum_url = "{{$.URL}}/SHA256SUMS", cache_dir = {{if $.Dir}}{{q $.Dir}}{{else}}null{{end}}, cache_max_size = {{q $.Max}} } }
}
{{end}}
`, map[string]any{"Images": images, "Pool": testAccPool(), "URL": srv.URL, "Max": maxSize, "Dir": dir})
	}
	cached := func(data []byte) string {
		return filepath.Join(cache, strings.Replace(sha256Digest(data), ":", "-", 1))
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, "tfimg-bound-one.img", "tfimg-bound-two.img"),
		Steps: []resource.TestStep{
			{
				Config:      config([]string{"one"}, "lots", cache),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)create\.content\.cache_max_size.*"lots" is not a size`),
			},
			{
				Config:      config([]string{"one"}, "1GiB", ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Cache size without a cache`),
			},
			{
				Config: config([]string{"one"}, "1536KiB", cache),
				Check: func(*terraform.State) error {
					if !exists(cached(one)) {
						return fmt.Errorf("the first image is not in the cache")
					}
					return nil
				},
			},
			{
				Config: config([]string{"one", "two"}, "1536KiB", cache),
				Check: func(st *terraform.State) error {
					if exists(cached(one)) || !exists(cached(two)) {
						return fmt.Errorf("a bound of 1.5 images after a second one: want the first evicted, the second kept (first %v, second %v)",
							exists(cached(one)), exists(cached(two)))
					}
					return checkVolumeContent(l, "tfimg-bound-two.img", two)(st)
				},
				ConfigPlanChecks: emptyPlanAfterApply,
			},
		},
	})
}
