package provider

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccVolume_createFailuresOneEnding: a libvirt_volume create that fails
// is worded as every other resource's failed create (treeresource's shared
// ending): "Cannot create volume", with the failed step in the detail, and
// nothing is left in the pool. Content from a file that does not exist, and a copy of a volume
// that does not exist.
func TestAccVolume_createFailuresOneEnding(t *testing.T) {
	l := testAccStorageConn(t)
	names := []string{"tfpkg-ending-content.raw", "tfpkg-ending-clone.raw"}
	missing := filepath.Join(t.TempDir(), "missing.img")
	data := map[string]any{"Pool": testAccPool(), "Name0": names[0], "Name1": names[1], "Missing": missing}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, names...),
		Steps: []resource.TestStep{
			{
				Config: testConfig(`
resource "libvirt_volume" "content" {
  name   = {{q .Name0}}
  pool   = {{q .Pool}}
  create = { content = { url = {{q .Missing}} } }
}
`, data),
				ExpectError: regexp.MustCompile(`(?s)Cannot create volume.*reading\s+the\s+content:\s+create\.content\.url:.*missing\.img.*no\s+such\s+file`),
			},
			{
				Config: testConfig(`
resource "libvirt_volume" "clone" {
  name   = {{q .Name1}}
  pool   = {{q .Pool}}
  create = { clone = { volume = "tfpkg-ending-no-such-volume.raw" } }
}
`, data),
				ExpectError: regexp.MustCompile(`(?s)Cannot create volume.*copying\s+the\s+volume:.*tfpkg-ending-no-such-volume\.raw`),
			},
		},
	})
}
