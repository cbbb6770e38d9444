package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// testAccDomainConfig is the ADR's domain shape without disks: network
// interface, serial + console, guest-agent channel and VNC graphics.
func testAccDomainConfig(name string, running bool, vcpuCurrent int) string {
	return testConfig(`
resource "libvirt_network" "net" {
  name = "{{.Name}}-net"
  ips  = [{ address = "10.233.1.1", prefix = 24 }]
}

resource "libvirt_domain" "test" {
  name         = {{q .Name}}
  type         = {{q .Type}}
  memory       = 64
  memory_unit  = "MiB"
  vcpu         = 2
  vcpu_current = {{.VCPUCurrent}}
  running      = {{.Running}}
  shutdown_timeout = "0s"
  os = { type = "hvm" }
  devices = {
    interfaces = [{
      type   = "network"
      model  = { type = "virtio" }
      source = { network = { network = libvirt_network.net.name } }
    }]
    serials  = [{ target = { port = 0 } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
    channels = [{
      source = { unix = {} }
      target = { virt_io = { name = "org.qemu.guest_agent.0" } }
    }]
    graphics = [{ vnc = { listen = "127.0.0.1", auto_port = true } }]
  }
}
`, map[string]any{"Name": name, "Type": testAccDomainType(), "Running": running, "VCPUCurrent": vcpuCurrent})
}

func TestAccDomain_lifecycle(t *testing.T) {
	name := "tfacc-dom-life"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: testAccDomainConfig(name, false, 1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain.test", tfjsonpath.New("id"), knownvalue.StringRegexp(uuidRegexp)),
					statecheck.ExpectKnownValue("libvirt_domain.test", tfjsonpath.New("running"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("libvirt_domain.test",
						tfjsonpath.New("devices").AtMapKey("interfaces").AtSliceIndex(0).AtMapKey("mac").AtMapKey("address"),
						knownvalue.StringRegexp(macRegexp)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: testAccDomainConfig(name, true, 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain.test", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain.test", tfjsonpath.New("running"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("libvirt_domain.test", tfjsonpath.New("console_urls").AtSliceIndex(0), knownvalue.StringRegexp(vncRegexp)),
				},
			},
			{
				ResourceName:      "libvirt_domain.test",
				ImportState:       true,
				ImportStateVerify: false,
			},
		},
	})
}
