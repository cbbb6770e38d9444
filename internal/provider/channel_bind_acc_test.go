package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccDomain_agentChannelBind: the guest agent channel as dmacvicar/libvirt
// 0.9.x users write it, `unix = { mode = "bind" }` without a path. libvirt
// stores it without its source (it generates the path at start), which
// failed the apply with "inconsistent result"; the mode must survive the
// read, with an empty plan after. (Running, the same channel is covered by
// TestAccPeer097_consoles of make test-migrate; a running domain without an
// OS makes destroy wait for its shutdown timeout here.)
func TestAccDomain_agentChannelBind(t *testing.T) {
	const name = "tfacc-chbind"
	removeDomainLeftovers(t, name)
	t.Cleanup(func() { removeDomainLeftovers(t, name) })
	config := func(running bool) string {
		return testConfig(`
resource "libvirt_domain" "test" {
  name        = {{q .Name}}
  type        = {{q .Type}}
  memory      = 64
  memory_unit = "MiB"
  running     = {{.Running}}
  os          = { type = "hvm" }
  devices = {
    channels = [{
      source = { unix = { mode = "bind" } }
      target = { virt_io = { name = "org.qemu.guest_agent.0" } }
    }]
  }
}
`, map[string]any{"Name": name, "Type": testAccDomainType(), "Running": running})
	}
	mode := tfjsonpath.New("devices").AtMapKey("channels").AtSliceIndex(0).AtMapKey("source").AtMapKey("unix").AtMapKey("mode")
	step := func(running bool) resource.TestStep {
		return resource.TestStep{
			Config:            config(running),
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue("libvirt_domain.test", mode, knownvalue.StringExact("bind"))},
			ConfigPlanChecks:  resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{step(false)},
	})
}
