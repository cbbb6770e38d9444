package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// An ISO uploaded as format "raw" stays "raw" although a dir pool reports
// the probed content as "iso" (was: inconsistent result after apply).
func TestAccVolume_isoAsRaw(t *testing.T) {
	dir := t.TempDir()
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: testConfig(`
resource "libvirt_cloudinit_disk" "seed" {
  name      = "tfacc-iso-raw"
  directory = {{q .Dir}}
  meta_data = "instance-id: tfacc-iso-raw\n"
  user_data = "#cloud-config\n{}\n"
}

resource "libvirt_volume" "seed" {
  name   = "tfacc-iso-raw.iso"
  pool   = {{q .Pool}}
  target = { format = { type = "raw" } }
  create = { content = { url = libvirt_cloudinit_disk.seed.path } }
}
`, map[string]any{"Dir": dir, "Pool": testAccPool()}),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.seed", tfjsonpath.New("target").AtMapKey("format").AtMapKey("type"), knownvalue.StringExact("raw")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}
