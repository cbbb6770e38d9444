package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func testAccNetworkConfig(name, hostIP string) string {
	return testAccProviderConfig() + fmt.Sprintf(`
resource "libvirt_network" "test" {
  name      = %[1]q
  autostart = false
  forward   = null
  domain    = { name = "%[1]s.local" }
  ips = [{
    address = "10.213.7.1"
    prefix  = 24
    dhcp = {
      ranges = [{ start = "10.213.7.100", end = "10.213.7.200" }]
      hosts  = [{ mac = "52:54:00:AA:00:01", ip = %[2]q, name = "node1" }]
    }
  }]
  dns = {
    enable = "yes"
    host   = [{ ip = %[2]q, hostnames = [{ hostname = "node1" }] }]
  }
}
`, name, hostIP)
}

func TestAccNetwork_basic(t *testing.T) {
	name := "tfacc-net-basic"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: testAccNetworkConfig(name, "10.213.7.10"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("id"), knownvalue.StringRegexp(uuidRegexp)),
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("bridge").AtMapKey("name"), knownvalue.StringRegexp(nonEmpty)),
					statecheck.ExpectKnownValue("libvirt_network.test",
						tfjsonpath.New("ips").AtSliceIndex(0).AtMapKey("dhcp").AtMapKey("hosts").AtSliceIndex(0).AtMapKey("mac"),
						knownvalue.StringExact("52:54:00:AA:00:01")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName:      "libvirt_network.test",
				ImportState:       true,
				ImportStateVerify: false,
			},
		},
	})
}
