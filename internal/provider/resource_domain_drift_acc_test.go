package provider

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/digitalocean/go-libvirt"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// domainXML reads a domain's XML from libvirtd (live, or the inactive
// definition), so each case can show that libvirt really rewrote it.
func domainXML(name string, inactive bool) (string, error) {
	c, err := libvirtconn.New(testAccURI())
	if err != nil {
		return "", err
	}
	defer c.Close()
	var out string
	err = c.Do(context.Background(), func(l *libvirt.Libvirt) error {
		d, err := l.DomainLookupByName(name)
		if err != nil {
			return err
		}
		var flags libvirt.DomainXMLFlags
		if inactive {
			flags = libvirt.DomainXMLInactive
		}
		out, err = l.DomainGetXMLDesc(d, flags)
		return err
	})
	return out, err
}

// libvirtWrote checks that the domain's XML matches every pattern: the
// evidence that libvirt filled or rewrote what the case is about.
func libvirtWrote(name string, inactive bool, patterns ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		x, err := domainXML(name, inactive)
		if err != nil {
			return err
		}
		for _, p := range patterns {
			if !regexp.MustCompile(p).MatchString(x) {
				return fmt.Errorf("domain %s: libvirt's XML has no match for %s (the drift case did not happen):\n%s", name, p, x)
			}
		}
		return nil
	}
}

// Drift cases that users of other libvirt providers report: libvirt rewrites
// or fills the definition after define/start, and a provider that stores what
// libvirt reports shows a diff on every plan. Each case applies, then expects
// an empty plan after refresh and a plan-only step that changes nothing.

// driftSteps is apply + (refresh, empty plan) + plan-only for one configuration.
func driftSteps(config string, evidence resource.TestCheckFunc, checks ...statecheck.StateCheck) []resource.TestStep {
	return []resource.TestStep{
		{
			Config:            config,
			Check:             evidence,
			ConfigStateChecks: checks,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		},
		{RefreshState: true},             // refresh alone must leave a state the plan-only step agrees with
		{Config: config, PlanOnly: true}, // fails on any planned change
	}
}

// driftDomain is a small TCG guest with the given extra attributes.
func driftDomain(resName, name string, running bool, extra string) string {
	return renderConfig(`
resource "libvirt_domain" {{q .ResName}} {
  name             = {{q .Name}}
  type             = {{q .Type}}
  memory           = 64
  memory_unit      = "MiB"
  vcpu             = 1
  running          = {{.Running}}
  shutdown_timeout = "0s"
{{.Extra}}
}
`, map[string]any{"ResName": resName, "Name": name, "Type": testAccDomainType(), "Running": running, "Extra": extra})
}

func driftNetwork(name, subnet string) string {
	return renderConfig(`
resource "libvirt_network" "net" {
  name = {{q .Name}}
  ips  = [{ address = "10.{{.Subnet}}.1", prefix = 24 }]
}
`, map[string]any{"Name": name, "Subnet": subnet})
}

// (a) libvirt names the tap device vnetN at start, N counting across the host:
// two running guests get different numbers, and neither user set target.dev.
func TestAccDomainDrift_interfaceTargetDev(t *testing.T) {
	iface := `  os = { type = "hvm" }
  devices = {
    interfaces = [{ type = "network", source = { network = { network = libvirt_network.net.name } } }]
  }`
	config := testAccProviderConfig() + driftNetwork("tfacc-drift-a", "234.1") +
		driftDomain("one", "tfacc-drift-a1", true, iface) + driftDomain("two", "tfacc-drift-a2", true, iface)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: driftSteps(config, differentTapNames("tfacc-drift-a1", "tfacc-drift-a2"),
			statecheck.ExpectKnownValue("libvirt_domain.one",
				tfjsonpath.New("devices").AtMapKey("interfaces").AtSliceIndex(0).AtMapKey("target"), knownvalue.Null()),
			statecheck.ExpectKnownValue("libvirt_domain.two",
				tfjsonpath.New("devices").AtMapKey("interfaces").AtSliceIndex(0).AtMapKey("mac").AtMapKey("address"), knownvalue.StringRegexp(macRegexp)),
		),
	})
}

// (b) firmware autoselection: at start libvirt picks the OVMF build from the
// firmware descriptors and fills <loader> and <nvram> (libvirt 9.0 does it in
// the live definition; the inactive one keeps firmware='efi').
func TestAccDomainDrift_firmwareEFI(t *testing.T) {
	if _, err := os.Stat("/usr/share/OVMF/OVMF_CODE_4M.fd"); err != nil {
		t.Skip("OVMF firmware is not installed (Debian package ovmf): firmware = \"efi\" cannot be defined")
	}
	config := testAccProviderConfig() + driftDomain("test", "tfacc-drift-b", true, `  os = { type = "hvm", type_machine = "q35", firmware = "efi" }
  features = { acpi = true }`)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: driftSteps(config, libvirtWrote("tfacc-drift-b", false, `<loader [^>]*>/usr/share/OVMF/[^<]+</loader>`, `<nvram[^>]*>[^<]+</nvram>`),
			statecheck.ExpectKnownValue("libvirt_domain.test", tfjsonpath.New("os").AtMapKey("firmware"), knownvalue.StringExact("efi")),
			statecheck.ExpectKnownValue("libvirt_domain.test", tfjsonpath.New("os").AtMapKey("loader"), knownvalue.Null()),
		),
	})
}

// (c) CPU mode: libvirt adds check= to the definition and expands the CPU
// in the live one. host-model works under TCG on this libvirt (9.0; QEMU
// reports a host-model CPU for TCG too); "maximum" (everything the accelerator
// can emulate) is the fallback where it is refused, and is covered as well.
func TestAccDomainDrift_cpuMode(t *testing.T) {
	config := testAccProviderConfig() +
		driftDomain("host_model", "tfacc-drift-c1", true, `  os = { type = "hvm" }
  cpu = { mode = "host-model" }`) +
		driftDomain("maximum", "tfacc-drift-c2", true, `  os = { type = "hvm" }
  cpu = { mode = "maximum" }`)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: driftSteps(config, resource.ComposeAggregateTestCheckFunc(
			libvirtWrote("tfacc-drift-c1", true, `<cpu mode='host-model' check='[a-z]+'`),
			libvirtWrote("tfacc-drift-c2", true, `<cpu mode='maximum' check='[a-z]+'`),
		),
			statecheck.ExpectKnownValue("libvirt_domain.host_model", tfjsonpath.New("cpu").AtMapKey("mode"), knownvalue.StringExact("host-model")),
			statecheck.ExpectKnownValue("libvirt_domain.host_model", tfjsonpath.New("cpu").AtMapKey("check"), knownvalue.Null()),
			statecheck.ExpectKnownValue("libvirt_domain.maximum", tfjsonpath.New("cpu").AtMapKey("mode"), knownvalue.StringExact("maximum")),
			statecheck.ExpectKnownValue("libvirt_domain.maximum", tfjsonpath.New("cpu").AtMapKey("check"), knownvalue.Null()),
		),
	})
}

// (d) an emulated TPM: libvirt fills the backend version (and the model where
// the user left it out).
func TestAccDomainDrift_tpm(t *testing.T) {
	if _, err := exec.LookPath("swtpm"); err != nil {
		t.Skip("swtpm is not installed (Debian package swtpm): an emulated TPM cannot start")
	}
	config := testAccProviderConfig() + driftDomain("test", "tfacc-drift-d", true, `  os = { type = "hvm" }
  devices = {
    tpms = [{ model = "tpm-crb", backend = { emulator = {} } }]
  }`)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: driftSteps(config, libvirtWrote("tfacc-drift-d", true, `<backend type='emulator' version='[0-9.]+'`),
			statecheck.ExpectKnownValue("libvirt_domain.test",
				tfjsonpath.New("devices").AtMapKey("tpms").AtSliceIndex(0).AtMapKey("model"), knownvalue.StringExact("tpm-crb")),
			statecheck.ExpectKnownValue("libvirt_domain.test",
				tfjsonpath.New("devices").AtMapKey("tpms").AtSliceIndex(0).AtMapKey("backend").AtMapKey("emulator"), knownvalue.NotNull()),
			// the user gave the member only: the derived type is computed, state holds libvirt's
			statecheck.ExpectKnownValue("libvirt_domain.test",
				tfjsonpath.New("devices").AtMapKey("tpms").AtSliceIndex(0).AtMapKey("backend").AtMapKey("type"), knownvalue.StringExact("emulator")),
			// libvirt fills the emulator version; the user did not set it
			statecheck.ExpectKnownValue("libvirt_domain.test",
				tfjsonpath.New("devices").AtMapKey("tpms").AtSliceIndex(0).AtMapKey("backend").AtMapKey("emulator").AtMapKey("version"), knownvalue.Null()),
		),
	})
}

// (e) interfaces on a libvirt network's bridge: type "bridge" naming virbrN
// directly, and type "network", which libvirt rewrites to a bridge interface
// in the live XML of the running guest (state reads the inactive XML).
func TestAccDomainDrift_bridgeInterface(t *testing.T) {
	config := testAccProviderConfig() + `
resource "libvirt_network" "net" {
  name   = "tfacc-drift-e"
  bridge = { name = "virbr-tfdre" }
  ips    = [{ address = "10.236.77.1", prefix = 24 }]
}
` + driftDomain("test", "tfacc-drift-e", true, `  os = { type = "hvm" }
  devices = {
    interfaces = [
      { type = "bridge", source = { bridge = { bridge = libvirt_network.net.bridge.name } } },
      { type = "network", source = { network = { network = libvirt_network.net.name } } },
    ]
  }`)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: driftSteps(config, resource.ComposeAggregateTestCheckFunc(
			libvirtWrote("tfacc-drift-e", true, `<interface type='bridge'>`, `<interface type='network'>`),
			// the running guest's network interface gains the bridge and a port id
			libvirtWrote("tfacc-drift-e", false, `<source network='tfacc-drift-e'[^>]* bridge='virbr-tfdre'`),
		),
			statecheck.ExpectKnownValue("libvirt_domain.test",
				tfjsonpath.New("devices").AtMapKey("interfaces").AtSliceIndex(0).AtMapKey("type"), knownvalue.StringExact("bridge")),
			statecheck.ExpectKnownValue("libvirt_domain.test",
				tfjsonpath.New("devices").AtMapKey("interfaces").AtSliceIndex(1).AtMapKey("type"), knownvalue.StringExact("network")),
		),
	})
}

// (f) lists written in another order than libvirt keeps them: libvirt sorts
// controllers of one type by index and disks by target (vdb given before vda).
func TestAccDomainDrift_listOrder(t *testing.T) {
	config := testConfig(`
resource "libvirt_volume" "a" {
  name     = "tfacc-drift-f-a.qcow2"
  pool     = {{q .Pool}}
  capacity = 16
  capacity_unit = "MiB"
  target   = { format = { type = "qcow2" } }
}
resource "libvirt_volume" "b" {
  name     = "tfacc-drift-f-b.qcow2"
  pool     = {{q .Pool}}
  capacity = 16
  capacity_unit = "MiB"
  target   = { format = { type = "qcow2" } }
}
`, map[string]any{"Pool": testAccPool()}) + driftDomain("test", "tfacc-drift-f", false, `  os = { type = "hvm" }
  devices = {
    controllers = [
      { type = "virtio-serial", index = 1 },
      { type = "usb", index = 0, model = "qemu-xhci" },
      { type = "virtio-serial", index = 0 },
      { type = "pci", index = 0, model = "pci-root" },
    ]
    disks = [
      {
        device = "disk"
        driver = { name = "qemu", type = "qcow2" }
        source = { volume = { pool = libvirt_volume.b.pool, volume = libvirt_volume.b.name } }
        target = { dev = "vdb", bus = "virtio" }
      },
      {
        device = "disk"
        driver = { name = "qemu", type = "qcow2" }
        source = { volume = { pool = libvirt_volume.a.pool, volume = libvirt_volume.a.name } }
        target = { dev = "vda", bus = "virtio" }
      },
    ]
  }`)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: driftSteps(config, libvirtWrote("tfacc-drift-f", true, `(?s)<target dev='vda'.*<target dev='vdb'`, `(?s)<controller type='virtio-serial' index='0'.*<controller type='virtio-serial' index='1'`),
			statecheck.ExpectKnownValue("libvirt_domain.test",
				tfjsonpath.New("devices").AtMapKey("disks").AtSliceIndex(0).AtMapKey("target").AtMapKey("dev"), knownvalue.StringExact("vdb")),
			statecheck.ExpectKnownValue("libvirt_domain.test",
				tfjsonpath.New("devices").AtMapKey("controllers").AtSliceIndex(0).AtMapKey("index"), knownvalue.Int64Exact(1)),
		),
	})
}

// differentTapNames checks that libvirt named the two guests' tap devices
// vnetN with different numbers (the case of a user who never set target.dev).
func differentTapNames(a, b string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		tap := regexp.MustCompile(`<target dev='(vnet[0-9]+)'`)
		var names []string
		for _, name := range []string{a, b} {
			x, err := domainXML(name, false)
			if err != nil {
				return err
			}
			m := tap.FindStringSubmatch(x)
			if m == nil {
				return fmt.Errorf("domain %s: no vnetN tap device in the live XML:\n%s", name, x)
			}
			names = append(names, m[1])
		}
		if names[0] == names[1] {
			return fmt.Errorf("both guests have tap %s", names[0])
		}
		return nil
	}
}
