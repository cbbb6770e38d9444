package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccPatch_keepsWhatOthersSet: an update is a patch on what libvirt
// holds now. Values set with virsh on attributes the configuration does not
// mention (a domain's description, title and on_crash; a DHCP host added
// to the network with net-update) plan no change, and the next unrelated
// apply (vCPUs and a DHCP range) keeps them. Before, that apply redefined
// both objects from the configuration alone and silently removed them.
func TestAccPatch_keepsWhatOthersSet(t *testing.T) {
	const name = "tfacc-patch"
	config := func(vcpu int, rangeEnd string) string {
		return testConfig(`
resource "libvirt_network" "net" {
  name = "{{.Name}}-net"
  ips = [{
    address = "10.233.9.1"
    prefix  = 24
    dhcp    = { ranges = [{ start = "10.233.9.100", end = {{q .RangeEnd}} }] }
  }]
}

resource "libvirt_domain" "vm" {
  name        = {{q .Name}}
  type        = {{q .Type}}
  memory      = 64
  memory_unit = "MiB"
  vcpu        = {{.VCPU}}
  os          = { type = "hvm" }
  devices = {
    interfaces = [{ source = { network = { network = libvirt_network.net.name } } }]
  }
}
`, map[string]any{"Name": name, "VCPU": vcpu, "RangeEnd": rangeEnd, "Type": testAccDomainType()})
	}
	setOutside := func() {
		mustVirsh(t, "desc", name, "--config", "--new-desc", "set with virsh")
		mustVirsh(t, "desc", name, "--config", "--title", "--new-desc", "virsh title")
		x := mustVirsh(t, "dumpxml", "--inactive", name)
		x = strings.Replace(x, "</on_poweroff>", "</on_poweroff>\n  <on_crash>restart</on_crash>", 1)
		x = regexp.MustCompile(`\s*<on_crash>destroy</on_crash>`).ReplaceAllString(x, "")
		f := filepath.Join(t.TempDir(), "dom.xml")
		if err := os.WriteFile(f, []byte(x), 0o644); err != nil {
			t.Fatal(err)
		}
		mustVirsh(t, "define", f)
		mustVirsh(t, "net-update", name+"-net", "add", "ip-dhcp-host",
			"<host mac='52:54:00:00:09:99' name='other' ip='10.233.9.99'/>", "--config", "--live")
	}
	keptOnDomain := resource.ComposeTestCheckFunc(
		testCheckVirsh(regexp.MustCompile(`<description>set with virsh</description>`), "dumpxml", "--inactive", name),
		testCheckVirsh(regexp.MustCompile(`<title>virsh title</title>`), "dumpxml", "--inactive", name),
		testCheckVirsh(regexp.MustCompile(`<on_crash>restart</on_crash>`), "dumpxml", "--inactive", name),
	)
	keptOnNetwork := testCheckVirsh(regexp.MustCompile(`<host mac='52:54:00:00:09:99' name='other' ip='10.233.9.99'/>`), "net-dumpxml", "--inactive", name+"-net")
	resource.Test(t, resource.TestCase{
		PreCheck: func() {
			testAccNetworkPreCheck(t, name+"-net")
			removeDomainLeftovers(t, name)
		},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeTestCheckFunc(testAccDomainCheckDestroyed(name), testAccCheckNetworkGone(name+"-net")),
		Steps: []resource.TestStep{
			{Config: config(1, "10.233.9.200")},
			{
				// set outside, then the same configuration: nothing to do
				PreConfig: setOutside,
				Config:    config(1, "10.233.9.200"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(keptOnDomain, keptOnNetwork),
			},
			{
				// an unrelated change of both: what was set outside stays
				Config: config(2, "10.233.9.150"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_domain.vm", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("libvirt_network.net", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					keptOnDomain, keptOnNetwork,
					testCheckVirsh(regexp.MustCompile(`<vcpu placement='static'>2</vcpu>`), "dumpxml", "--inactive", name),
					testCheckVirsh(regexp.MustCompile(`<range start='10.233.9.100' end='10.233.9.150'`), "net-dumpxml", "--inactive", name+"-net"),
				),
			},
		},
	})
}

// TestAccPatch_persistentOnlyDetachConverges: a NIC removed from the
// persistent definition of a running domain only (virsh detach-interface
// --config) is still attached to the running guest. The plan adds it back to
// the definition; the apply must not try to hot-plug it again (libvirt
// refuses a second device with the same MAC), and the next plan is empty.
// Before, every apply failed that way and never converged while the domain
// ran.
func TestAccPatch_persistentOnlyDetachConverges(t *testing.T) {
	const name = "tfacc-patch-nic"
	const mac = "52:54:00:00:0a:01"
	config := testConfig(`
resource "libvirt_network" "net" {
  name = "{{.Name}}-net"
  ips  = [{ address = "10.233.10.1", prefix = 24 }]
}

resource "libvirt_domain" "vm" {
  name        = {{q .Name}}
  type        = {{q .Type}}
  memory      = 64
  memory_unit = "MiB"
  running     = true
  # no OS answers ACPI here: destroy forces off at once
  shutdown_timeout = "0s"
  os          = { type = "hvm" }
  devices = {
    interfaces = [{ mac = { address = {{q .MAC}} }, source = { network = { network = libvirt_network.net.name } } }]
  }
}
`, map[string]any{"Name": name, "Type": testAccDomainType(), "MAC": mac})
	var domID string
	resource.Test(t, resource.TestCase{
		PreCheck: func() {
			testAccNetworkPreCheck(t, name+"-net")
			removeDomainLeftovers(t, name)
		},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeTestCheckFunc(testAccDomainCheckDestroyed(name), testAccCheckNetworkGone(name+"-net")),
		Steps: []resource.TestStep{
			{Config: config, Check: testCheckDomID(name, &domID)},
			{
				PreConfig: func() { mustVirsh(t, "detach-interface", name, "network", "--mac", mac, "--config") },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain.vm", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					testCheckVirsh(regexp.MustCompile(mac), "dumpxml", "--inactive", name),
					testCheckVirsh(regexp.MustCompile(mac), "dumpxml", name),
					testCheckDomIDIs(name, &domID, true),
					func(*terraform.State) error {
						out := mustVirsh(t, "dumpxml", name)
						if n := strings.Count(out, mac); n != 1 {
							return fmt.Errorf("the running domain has %d interfaces with %s, want 1", n, mac)
						}
						return nil
					},
				),
			},
		},
	})
}

// TestAccDomain_duplicateMACWarns: a MAC written in the configuration that
// another domain of the host already has is warned about at plan, naming
// that domain; the plan of the domain that owns it is not.
func TestAccDomain_duplicateMACWarns(t *testing.T) {
	testAccPreCheck(t)
	const name, mac = "tfacc-dupmac", "52:54:00:00:0b:01"
	removeDomainLeftovers(t, name+"-a", name+"-b")
	t.Cleanup(func() { removeDomainLeftovers(t, name+"-a", name+"-b") })
	domain := func(suffix string) string {
		return renderConfig(`
resource "libvirt_domain" {{q .Suffix}} {
  name        = "{{.Name}}-{{.Suffix}}"
  type        = {{q .Type}}
  memory      = 64
  memory_unit = "MiB"
  os          = { type = "hvm" }
  devices = {
    interfaces = [{ mac = { address = {{q .MAC}} }, source = { user = {} } }]
  }
}
`, map[string]any{"Suffix": suffix, "Name": name, "Type": testAccDomainType(), "MAC": strings.ToUpper(mac)})
	}
	dir := t.TempDir()
	tofu := tofuWorkdir(t, dir, domain("a"))
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	if out, _ := tofu("plan", "-input=false", "-no-color"); strings.Contains(out, "MAC address already in use") {
		t.Errorf("the owner of the MAC is warned about its own address:\n%s", out)
	}
	tofu = tofuWorkdir(t, dir, domain("a")+domain("b"))
	out, code := tofu("plan", "-input=false", "-no-color")
	if code != 0 {
		t.Fatalf("plan failed (exit %d):\n%s", code, out)
	}
	if !strings.Contains(out, "MAC address already in use") || !strings.Contains(out, name+"-a") {
		t.Errorf("no warning naming %s-a for the second domain with MAC %s:\n%s", name, mac, out)
	}
	if _, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Errorf("destroy failed")
	}
}
