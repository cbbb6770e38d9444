package provider

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccVolume_fullClone copies volumes with create.clone: a qcow2 overlay
// (backed by a raw base) into the same pool by name, and the raw base into
// another pool by key, grown on the way. The overlay's copy has no backing
// chain and holds the base's data; the raw copy holds the bytes and the
// larger size. The base can then be destroyed: the copies are independent.
// Both content and clone in one create block is refused at plan.
func TestAccVolume_fullClone(t *testing.T) {
	l := testAccStorageConn(t)
	dir := t.TempDir()
	data := randomBytes(t, 4<<20)
	src := filepath.Join(dir, "base.raw")
	mustWrite(t, src, string(data))
	otherPool := filepath.Join(dir, "pool2")
	removePoolLeftovers("tfacc-clone-pool")
	names := []string{"tfacc-clone-base.raw", "tfacc-clone-overlay.qcow2", "tfacc-clone-flat.qcow2"}
	base := testConfig(`
resource "libvirt_volume" "base" {
  name   = {{q .Name0}}
  pool   = {{q .Pool}}
  create = { content = { url = {{q .Src}} } }
}
resource "libvirt_volume" "overlay" {
  name          = {{q .Name1}}
  pool          = {{q .Pool}}
  target        = { format = { type = "qcow2" } }
  backing_store = { path = libvirt_volume.base.path, format = { type = "raw" } }
}
resource "libvirt_pool" "other" {
  name   = "tfacc-clone-pool"
  type   = "dir"
  target = { path = {{q .OtherPool}} }
}
`, map[string]any{"Pool": testAccPool(), "Name0": names[0], "Name1": names[1], "Name2": names[2], "Src": src, "OtherPool": otherPool})
	clones := renderConfig(`
resource "libvirt_volume" "flat" {
  name   = {{q .Name2}}
  pool   = {{q .Pool}}
  create = { clone = { volume = libvirt_volume.overlay.name } }
}
resource "libvirt_volume" "copy" {
  name          = "tfacc-clone-copy.raw"
  pool          = libvirt_pool.other.name
  capacity      = 8
  capacity_unit = "MiB"
  create        = { clone = { volume = libvirt_volume.base.id } }
}
`, map[string]any{"Pool": testAccPool(), "Name2": names[2]})
	copyPath := filepath.Join(otherPool, "tfacc-clone-copy.raw")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, names...),
		Steps: []resource.TestStep{
			{
				Config: base + `
resource "libvirt_volume" "both" {
  name   = "tfacc-clone-both.raw"
  pool   = libvirt_volume.base.pool
  create = { clone = { volume = libvirt_volume.base.name }, content = { url = "/dev/null" } }
}
`,
				ExpectError: regexp.MustCompile(`create needs exactly one of content`),
			},
			{
				Config: base + clones,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.flat", tfjsonpath.New("target").AtMapKey("format").AtMapKey("type"), knownvalue.StringExact("qcow2")),
					statecheck.ExpectKnownValue("libvirt_volume.flat", tfjsonpath.New("capacity"), knownvalue.Int64Exact(4<<20)),
					statecheck.ExpectKnownValue("libvirt_volume.copy", tfjsonpath.New("capacity"), knownvalue.Int64Exact(8)),
				},
				Check: func(s *terraform.State) error {
					flat := s.RootModule().Resources["libvirt_volume.flat"].Primary.Attributes["path"]
					out, err := exec.Command("qemu-img", "info", "--output=json", flat).CombinedOutput()
					if err != nil || bytes.Contains(out, []byte("backing-filename")) {
						return fmt.Errorf("the copy of the overlay has a backing chain: %v: %s", err, out)
					}
					got := filepath.Join(dir, "flat.raw")
					if out, err := exec.Command("qemu-img", "convert", "-O", "raw", flat, got).CombinedOutput(); err != nil {
						return fmt.Errorf("qemu-img convert: %v: %s", err, out)
					}
					b, err := os.ReadFile(got)
					if err != nil || !bytes.Equal(b, data) {
						return fmt.Errorf("the copy of the overlay does not hold the base's data (%d bytes, %v)", len(b), err)
					}
					c, err := os.ReadFile(copyPath)
					if err != nil {
						return err
					}
					if len(c) != 8<<20 || !bytes.Equal(c[:len(data)], data) || !bytes.Equal(c[len(data):], make([]byte, len(c)-len(data))) {
						return fmt.Errorf("the grown raw copy holds %d bytes, want the base's data then zeros up to 8 MiB", len(c))
					}
					return nil
				},
				ConfigPlanChecks: emptyPlanAfterApply,
			},
			{
				// the copies outlive what they were copied from
				Config: testConfig(`
resource "libvirt_pool" "other" {
  name   = "tfacc-clone-pool"
  type   = "dir"
  target = { path = {{q .OtherPool}} }
}
resource "libvirt_volume" "flat" {
  name   = {{q .Name2}}
  pool   = {{q .Pool}}
  create = { clone = { volume = {{q .Name1}} } }
}
resource "libvirt_volume" "copy" {
  name          = "tfacc-clone-copy.raw"
  pool          = libvirt_pool.other.name
  capacity      = 8
  capacity_unit = "MiB"
  create        = { clone = { volume = {{q .Path0}} } }
}
`, map[string]any{"OtherPool": otherPool, "Name2": names[2], "Pool": testAccPool(), "Name1": names[1], "Path0": filepath.Join(testAccPoolDir(t, l), names[0])}),
				Check: func(*terraform.State) error {
					if err := checkNoVolume(l, names[0], names[1]); err != nil {
						return err
					}
					flat := filepath.Join(testAccPoolDir(t, l), names[2])
					if out, err := exec.Command("qemu-img", "check", flat).CombinedOutput(); err != nil {
						return fmt.Errorf("the copy is damaged after its source was deleted: %v: %s", err, out)
					}
					return nil
				},
			},
		},
	})
}
