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
	config := testConfig(`
resource "libvirt_domain" "rng" {
  name        = {{q .}}
  type        = {{q domainType}}
  memory      = 64
  memory_unit = "MiB"
  vcpu        = 1
  os          = { type = "hvm" }
  devices = {
    rngs = [{ model = "virtio", backend = { random = "/dev/urandom" } }]
  }
}
`, name)
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

// TestAccParity_dmacvicarSpellings: the attributes whose names or shapes
// were this provider's own until schema version 2, written as
// dmacvicar/libvirt 0.9.7 writes them, apply and reach libvirt: a network's
// dns.sr_vs and dns.tx_ts, a domain's io_thread_i_ds and vcpu_cpuset, a
// disk's metadata_cache.max_size object; a volume reports physical (its
// size on disk). Each plan after an apply is empty.
func TestAccParity_dmacvicarSpellings(t *testing.T) {
	const net, dom, vol = "par-spell-net", "par-spell", "par-spell.qcow2"
	config := testConfig(`
resource "libvirt_network" "net" {
  name = {{q .Net}}
  ips  = [{ address = "10.251.23.1", prefix = 24 }]
  dns = {
    sr_vs = [{ service = "ldap", protocol = "tcp", domain = "par.lab", target = "ldap.par.lab", port = 389, priority = 10, weight = 5 }]
    tx_ts = [{ name = "par", value = "parity" }]
  }
}

resource "libvirt_volume" "disk" {
  name          = {{q .Vol}}
  pool          = {{q .Pool}}
  capacity      = 16
  capacity_unit = "MiB"
  target        = { format = { type = "qcow2" } }
}

resource "libvirt_domain" "spell" {
  name        = {{q .Dom}}
  type        = {{q domainType}}
  memory      = 64
  memory_unit = "MiB"
  vcpu        = 2
  vcpu_cpuset = "0-1"
  io_threads  = 2
  io_thread_i_ds = { io_threads = [{ id = 1 }, { id = 2 }] }
  os = { type = "hvm" }
  devices = {
    disks = [{
      source = { volume = { pool = libvirt_volume.disk.pool, volume = libvirt_volume.disk.name } }
      target = { dev = "vda", bus = "virtio" }
      driver = { type = "qcow2", metadata_cache = { max_size = { value = 1, unit = "MiB" } } }
    }]
  }
}
`, map[string]string{"Net": net, "Dom": dom, "Vol": vol, "Pool": testAccPool()})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccNetworkPreCheck(t, net) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckNetworkGone(net),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("libvirt_network.net", tfjsonpath.New("dns").AtMapKey("sr_vs").AtSliceIndex(0).AtMapKey("port"), knownvalue.Int64Exact(389)),
				statecheck.ExpectKnownValue("libvirt_network.net", tfjsonpath.New("dns").AtMapKey("tx_ts").AtSliceIndex(0).AtMapKey("value"), knownvalue.StringExact("parity")),
				statecheck.ExpectKnownValue("libvirt_domain.spell", tfjsonpath.New("io_thread_i_ds").AtMapKey("io_threads").AtSliceIndex(1).AtMapKey("id"), knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue("libvirt_domain.spell",
					tfjsonpath.New("devices").AtMapKey("disks").AtSliceIndex(0).AtMapKey("driver").AtMapKey("metadata_cache").AtMapKey("max_size"),
					knownvalue.ObjectExact(map[string]knownvalue.Check{"value": knownvalue.Int64Exact(1), "unit": knownvalue.StringExact("MiB")})),
				statecheck.ExpectKnownValue("libvirt_volume.disk", tfjsonpath.New("physical"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("libvirt_volume.disk", tfjsonpath.New("physical_unit"), knownvalue.StringExact("bytes")),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: func(*terraform.State) error {
				netXML, err := virsh("net-dumpxml", net)
				if err != nil {
					return err
				}
				domXML, err := virsh("dumpxml", "--inactive", dom)
				if err != nil {
					return err
				}
				for what, want := range map[string]string{
					"network <srv>":         `<srv service='ldap' protocol='tcp' domain='par.lab' target='ldap.par.lab' port='389' priority='10' weight='5'/>`,
					"network <txt>":         `<txt name='par' value='parity'/>`,
					"domain <iothreadids>":  `<iothread id='2'/>`,
					"domain <vcpu cpuset>":  `cpuset='0-1'`,
					"disk <metadata_cache>": `<max_size unit='bytes'>1048576</max_size>`,
				} {
					xml := domXML
					if strings.HasPrefix(what, "network") {
						xml = netXML
					}
					if !strings.Contains(xml, want) {
						return fmt.Errorf("%s: %q not in\n%s", what, want, xml)
					}
				}
				return nil
			},
		}},
	})
}
