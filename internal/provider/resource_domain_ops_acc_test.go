package provider

import (
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// testAccDomainSmallConfig is a diskless domain; extra is HCL added to the
// domain body, osExtra to its os object, devices replaces the devices object.
func testAccDomainSmallConfig(name string, running, restartOnChange bool, extra, osExtra string) string {
	return testConfig(`
resource "libvirt_domain" "test" {
  name              = {{q .Name}}
  type              = {{q domainType}}
  memory            = 64
  memory_unit       = "MiB"
  vcpu              = 1
  running           = {{.Running}}
  restart_on_change = {{.RestartOnChange}}
  shutdown_timeout  = "0s"
  os = { type = "hvm"{{.OSExtra}} }
{{.Extra}}
  devices = {
    serials  = [{ target = { port = 0 } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
  }
}
`, map[string]any{"Name": name, "Running": running, "RestartOnChange": restartOnChange, "Extra": extra, "OSExtra": osExtra})
}

// TestAccDomain_restartOnChange: a change that only takes effect at the next
// boot (on_reboot) is written to the persistent definition; without
// restart_on_change the running domain keeps going (same ID, live XML
// unchanged), with it the domain is restarted (new ID).
func TestAccDomain_restartOnChange(t *testing.T) {
	name := "tfacc-dom-restart"
	removeDomainLeftovers(t, name)
	var domID string
	liveOnReboot := func(want string) resource.TestCheckFunc {
		return testCheckVirsh(regexp.MustCompile(`<on_reboot>`+want+`</on_reboot>`), "dumpxml", name)
	}
	persistentOnReboot := func(want string) resource.TestCheckFunc {
		return testCheckVirsh(regexp.MustCompile(`<on_reboot>`+want+`</on_reboot>`), "dumpxml", "--inactive", name)
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccDomainCheckDestroyed(name),
		Steps: []resource.TestStep{
			{
				Config:           testAccDomainSmallConfig(name, true, false, `  on_reboot = "restart"`, ""),
				ConfigPlanChecks: emptyAfterApply,
				Check:            testCheckDomID(name, &domID),
			},
			{
				Config:           testAccDomainSmallConfig(name, true, false, `  on_reboot = "destroy"`, ""),
				ConfigPlanChecks: expectUpdate("libvirt_domain.test"),
				Check: resource.ComposeTestCheckFunc(
					testCheckDomIDIs(name, &domID, true),
					persistentOnReboot("destroy"),
					liveOnReboot("restart"),
				),
			},
			{
				Config:           testAccDomainSmallConfig(name, true, true, `  on_reboot = "restart"`, ""),
				ConfigPlanChecks: expectUpdate("libvirt_domain.test"),
				Check: resource.ComposeTestCheckFunc(
					testCheckDomIDIs(name, &domID, false),
					persistentOnReboot("restart"),
					liveOnReboot("restart"),
				),
			},
		},
	})
}

// TestAccDomain_outOfBand: a domain stopped behind the provider's back while
// running = true plans an update that starts it; one undefined behind its
// back plans a create.
func TestAccDomain_outOfBand(t *testing.T) {
	name := "tfacc-dom-oob"
	removeDomainLeftovers(t, name)
	cfg := testAccDomainSmallConfig(name, true, false, "", "")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccDomainCheckDestroyed(name),
		Steps: []resource.TestStep{
			{Config: cfg, ConfigPlanChecks: emptyAfterApply},
			{
				PreConfig: func() {
					if _, err := virsh("destroy", name); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_domain.test", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("libvirt_domain.test", tfjsonpath.New("running"), knownvalue.Bool(true)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: testCheckVirsh(regexp.MustCompile(`(?m)^State:\s+running$`), "dominfo", name),
			},
			{
				PreConfig: func() {
					if _, err := virsh("destroy", name); err != nil {
						t.Fatal(err)
					}
					if _, err := virsh("undefine", name); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain.test", plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: testCheckVirsh(regexp.MustCompile(`(?m)^State:\s+running$`), "dominfo", name),
			},
		},
	})
}

// TestAccDomain_startFailureLeavesNothing: a domain that is defined but
// cannot start (its interface's network does not exist) is undefined again.
func TestAccDomain_startFailureLeavesNothing(t *testing.T) {
	name := "tfacc-dom-startfail"
	removeDomainLeftovers(t, name)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: testConfig(`
resource "libvirt_domain" "test" {
  name             = {{q .}}
  type             = {{q domainType}}
  memory           = 64
  memory_unit      = "MiB"
  running          = true
  shutdown_timeout = "0s"
  os = { type = "hvm" }
  devices = {
    interfaces = [{
      type   = "network"
      source = { network = { network = "tfacc-no-such-network" } }
    }]
  }
}
`, name),
				ExpectError: regexp.MustCompile(`(?s)starting domain.*tfacc-no-such-network`),
			},
			{
				PreConfig: func() {
					if err := testCheckNoDomain(name); err != nil {
						t.Error(err)
					}
				},
				Config: testAccProviderConfig(),
			},
		},
	})
}

// TestAccDomain_replace: libvirt cannot change the architecture or the
// domain type in place, so the plan replaces the domain.
func TestAccDomain_replace(t *testing.T) {
	name := "tfacc-dom-replace"
	removeDomainLeftovers(t, name)
	replace := []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain.test", plancheck.ResourceActionReplace)}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccDomainCheckDestroyed(name),
		Steps: []resource.TestStep{
			{
				Config:           testAccDomainSmallConfig(name, false, false, "", `, type_arch = "x86_64"`),
				ConfigPlanChecks: emptyAfterApply,
			},
			{
				Config: testAccDomainSmallConfig(name, false, false, "", `, type_arch = "i686"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             replace,
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: testCheckVirsh(regexp.MustCompile(`<type arch='i686'`), "dumpxml", name),
			},
			{
				// plan only: this host may have no KVM to define a kvm domain on
				Config:             replaceType(testAccDomainSmallConfig(name, false, false, "", `, type_arch = "i686"`)),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   resource.ConfigPlanChecks{PostApplyPreRefresh: replace},
			},
		},
	})
}

// replaceType swaps the domain type in a configuration (qemu <-> kvm).
func replaceType(cfg string) string {
	from, to := renderConfig(`type              = {{q domainType}}`, nil), `type              = "kvm"`
	if testAccDomainType() == "kvm" {
		to = `type              = "qemu"`
	}
	return regexp.MustCompile(regexp.QuoteMeta(from)).ReplaceAllLiteralString(cfg, to)
}

// TestAccDomain_uefi: firmware = "efi" lets libvirt pick OVMF; the
// per-domain NVRAM copy exists while the domain is defined and is removed
// with it.
func TestAccDomain_uefi(t *testing.T) {
	name := "tfacc-dom-uefi"
	removeDomainLeftovers(t, name)
	nvram := "/var/lib/libvirt/qemu/nvram/" + name + "_VARS.fd"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(s *terraform.State) error {
			if _, err := os.Stat(nvram); !os.IsNotExist(err) {
				return fmt.Errorf("NVRAM file %s left behind (stat: %v)", nvram, err)
			}
			return testCheckNoDomain(name)
		},
		Steps: []resource.TestStep{
			{
				// libvirt refuses UEFI without ACPI on x86
				Config:           testAccDomainSmallConfig(name, true, false, `  features = { acpi = true }`, `, firmware = "efi"`),
				ConfigPlanChecks: emptyAfterApply,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain.test", tfjsonpath.New("os").AtMapKey("firmware"), knownvalue.StringExact("efi")),
				},
				Check: resource.ComposeTestCheckFunc(
					testCheckVirsh(regexp.MustCompile(`(?m)^State:\s+running$`), "dominfo", name),
					testCheckVirsh(regexp.MustCompile(`<loader[^>]*>/usr/share/OVMF/OVMF_CODE[^<]*\.fd</loader>`), "dumpxml", name),
					func(*terraform.State) error {
						_, err := os.Stat(nvram)
						return err
					},
				),
			},
		},
	})
}
