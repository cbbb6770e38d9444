package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccVolume_liveResize grows a qcow2 volume that a running domain uses:
// the plan is an update in place, the domain is not restarted (same ID), and
// QEMU's block device (what the guest sees, libvirt's block info) has the
// new size at once.
func TestAccVolume_liveResize(t *testing.T) {
	l := testAccStorageConn(t)
	const name = "tfacc-liveresize"
	removeDomainLeftovers(t, name)
	config := func(mib int) string {
		return testConfig(`
resource "libvirt_volume" "disk" {
  name          = "{{.Name}}.qcow2"
  pool          = {{q .Pool}}
  capacity      = {{.MiB}}
  capacity_unit = "MiB"
  target        = { format = { type = "qcow2" } }
}

resource "libvirt_domain" "vm" {
  name        = {{q .Name}}
  type        = {{q .Type}}
  running     = true
  memory      = 64
  memory_unit = "MiB"
  os          = { type = "hvm" }
  devices = {
    disks = [{
      driver = { name = "qemu", type = "qcow2" }
      source = { volume = { pool = libvirt_volume.disk.pool, volume = libvirt_volume.disk.name } }
      target = { dev = "vda", bus = "virtio" }
    }]
  }
}
`, map[string]any{"Name": name, "Pool": testAccPool(), "Type": testAccDomainType(), "MiB": mib})
	}
	var domID int32
	sameID := func(record bool) resource.TestCheckFunc {
		return func(*terraform.State) error {
			dom, err := l.DomainLookupByName(name)
			if err != nil {
				return err
			}
			if dom.ID <= 0 {
				return fmt.Errorf("domain %s is not running", name)
			}
			if record {
				domID = dom.ID
			} else if dom.ID != domID {
				return fmt.Errorf("domain %s was restarted: ID %d, was %d", name, dom.ID, domID)
			}
			return nil
		}
	}
	blockCapacity := func(want uint64) resource.TestCheckFunc {
		return func(*terraform.State) error {
			dom, err := l.DomainLookupByName(name)
			if err != nil {
				return err
			}
			_, capacity, _, err := l.DomainGetBlockInfo(dom, "vda", 0)
			if err != nil {
				return err
			}
			if capacity != want {
				return fmt.Errorf("QEMU's vda is %d bytes, want %d", capacity, want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, name+".qcow2"),
		Steps: []resource.TestStep{
			{
				Config: config(64),
				Check: resource.ComposeTestCheckFunc(
					sameID(true),
					blockCapacity(64<<20),
				),
			},
			{
				Config: config(128),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_volume.disk", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("libvirt_domain.vm", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_volume.disk", tfjsonpath.New("capacity"), knownvalue.Int64Exact(128)),
				},
				Check: resource.ComposeTestCheckFunc(
					sameID(false),
					blockCapacity(128<<20),
				),
			},
		},
	})
}
