package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccParity_rngRandomBackend: the RNG as dmacvicar/libvirt 0.9.7 users
// write it (virt-install adds one to every VM) validates, applies, and
// reaches libvirt as a random backend with its device.
func TestAccParity_rngRandomBackend(t *testing.T) {
	const name = "par-rng"
	t.Cleanup(func() { _, _ = virsh("undefine", name, "--nvram") })
	config := testAccProviderConfig() + fmt.Sprintf(`
resource "libvirt_domain" "rng" {
  name        = %q
  type        = %q
  memory      = 64
  memory_unit = "MiB"
  vcpu        = 1
  os          = { type = "hvm" }
  devices = {
    rngs = [{ model = "virtio", backend = { random = "/dev/urandom" } }]
  }
}
`, name, testAccDomainType())
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("libvirt_domain.rng",
					tfjsonpath.New("devices").AtMapKey("rngs").AtSliceIndex(0).AtMapKey("backend").AtMapKey("random"),
					knownvalue.StringExact("/dev/urandom")),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: func(*terraform.State) error {
				xml, err := virsh("dumpxml", "--inactive", name)
				if err != nil {
					return err
				}
				if !strings.Contains(xml, "<backend model='random'>/dev/urandom</backend>") {
					return fmt.Errorf("the domain XML has no random backend with /dev/urandom:\n%s", xml)
				}
				return nil
			},
		}},
	})
}
