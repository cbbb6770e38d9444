package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Two aliased provider blocks (two "hosts": the system daemon and the test
// driver) work side by side in one configuration. tofu runs one provider
// process per provider block, so this test drives a built provider binary
// (the in-process test server would be shared by both blocks).
func TestAccProvider_aliases(t *testing.T) {
	testAccPreCheck(t)
	removeNetworkLeftovers(t, "tfacc-alias-net")
	dir := t.TempDir()
	binDir := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(binDir, "terraform-provider-libvirt"), ".")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	cli := filepath.Join(dir, "cli.tfrc")
	mustWrite(t, cli, cliOverrides{BinDir: binDir, Registries: []string{"registry.opentofu.org"}}.config())
	root := filepath.Join(dir, "root")
	mustWrite(t, filepath.Join(root, "main.tf"), "\n"+virtxmlRequiredProviders+testAccProviderConfig()+`
provider "libvirt" {
  alias = "other"
  uri   = "test:///default"
}

resource "libvirt_network" "here" {
  name = "tfacc-alias-net"
  ips  = [{ address = "10.233.210.1", prefix = 24 }]
}

resource "libvirt_domain" "there" {
  provider    = libvirt.other
  name        = "tfacc-alias-dom"
  type        = "test"
  memory      = 64
  memory_unit = "MiB"
  os          = { type = "hvm" }
}

output "network_id" { value = libvirt_network.here.id }
output "domain_id" { value = libvirt_domain.there.id }
`)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cli, "TF_IN_AUTOMATION=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tofu %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() {
		cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), "destroy", "-auto-approve", "-no-color")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cli, "TF_IN_AUTOMATION=1")
		_ = cmd.Run()
		removeNetworkLeftovers(t, "tfacc-alias-net")
	})
	run("apply", "-auto-approve", "-no-color")
	netID := strings.TrimSpace(run("output", "-raw", "network_id"))
	domID := strings.TrimSpace(run("output", "-raw", "domain_id"))
	if !uuidRegexp.MatchString(netID) || !uuidRegexp.MatchString(domID) {
		t.Fatalf("ids: network %q, domain %q", netID, domID)
	}
	// the network lives in the system daemon, the domain in the test driver
	if got := mustVirsh(t, "net-uuid", "tfacc-alias-net"); got != netID {
		t.Errorf("network uuid in qemu:///system = %q, state says %q", got, netID)
	}
	if out, err := exec.Command("virsh", "-c", testAccURI(), "dominfo", "tfacc-alias-dom").CombinedOutput(); err == nil {
		t.Errorf("the aliased provider's domain landed in %s: %s", testAccURI(), out)
	}
	// (No second plan here: libvirtd frees test:///default's state when the
	// last connection to it closes, so the domain is gone once apply's
	// provider process exits. TestAccProvider_testDriver covers the test
	// driver within one connection.)
}

// A uri that is unknown at plan time (computed from another resource) plans
// without a connection; apply connects once it is known.
func TestAccProvider_uriUnknownAtPlan(t *testing.T) {
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `
resource "terraform_data" "uri" {
  input = "test:///default"
}

provider "libvirt" {
  uri = terraform_data.uri.output
}

resource "libvirt_domain" "d" {
  name        = "tfacc-lazy-uri"
  type        = "test"
  memory      = 64
  memory_unit = "MiB"
  os          = { type = "hvm" }
}
`,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain.d", plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain.d", tfjsonpath.New("id"), knownvalue.StringRegexp(uuidRegexp)),
				},
			},
		},
	})
}
