package provider

import (
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func testAccNetworkWithURI(uri, name string) string {
	return `
provider "libvirt" {
  uri = "` + uri + `"
}

resource "libvirt_network" "n" {
  name = "` + name + `"
  ips  = [{ address = "10.233.200.1", prefix = 24 }]
}
`
}

// A URI with an unsupported scheme fails at plan with a diagnostic on the
// provider's uri attribute that lists the supported schemes.
func TestAccProvider_brokenURI(t *testing.T) {
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      testAccNetworkWithURI("foo+bar://host/system", "tfacc-broken-uri"),
				ExpectError: regexp.MustCompile(`(?s)Invalid libvirt URI.*(qemu\+ssh|supported)`),
			},
		},
	})
}

// The test driver served by libvirtd (test:///default) works like any other.
func TestAccProvider_testDriver(t *testing.T) {
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
provider "libvirt" {
  uri = "test:///default"
}

resource "libvirt_domain" "d" {
  name        = "tfacc-testdriver"
  type        = "test"
  memory      = 64
  memory_unit = "MiB"
  os          = { type = "hvm" }
  running     = true
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain.d", tfjsonpath.New("id"), knownvalue.StringRegexp(uuidRegexp)),
					statecheck.ExpectKnownValue("libvirt_domain.d", tfjsonpath.New("running"), knownvalue.Bool(true)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// With libvirtd stopped, the error says so and how to start it; after a
// restart of libvirtd between two operations the next one succeeds.
func TestAccProvider_daemonStoppedAndRestarted(t *testing.T) {
	name := "tfacc-daemon-restart"
	t.Cleanup(func() { startLibvirtd(t) })
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: testAccNetworkWithURI(testAccURI(), name),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// the daemon restarts between two operations: the refresh and
				// the change both succeed
				PreConfig: func() { stopLibvirtd(t); startLibvirtd(t) },
				Config:    testAccNetworkWithURI(testAccURI(), name) + "\n# restarted\n",
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				PreConfig:   func() { stopLibvirtd(t) },
				Config:      testAccNetworkWithURI(testAccURI(), name),
				ExpectError: regexp.MustCompile(`is libvirtd running`),
			},
			{
				PreConfig: func() { startLibvirtd(t) },
				Config:    testAccNetworkWithURI(testAccURI(), name),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

func stopLibvirtd(t *testing.T) {
	t.Helper()
	_ = exec.Command("pkill", "-x", "libvirtd").Run()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("pgrep", "-x", "libvirtd").Run() != nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("libvirtd did not stop within 90 s")
}

func startLibvirtd(t *testing.T) {
	t.Helper()
	if exec.Command("pgrep", "-x", "libvirtd").Run() != nil {
		if out, err := exec.Command("libvirtd", "-d").CombinedOutput(); err != nil {
			t.Fatalf("starting libvirtd: %v: %s", err, out)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("virsh", "-c", "qemu:///system", "version").Run() == nil {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatal("libvirtd did not answer within 60 s of starting")
}
