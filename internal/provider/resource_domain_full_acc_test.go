package provider

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// virsh runs virsh against the acceptance-test libvirtd and returns its
// trimmed output; the tests read libvirt's side through it, independently of
// the provider's own read.
func virsh(args ...string) (string, error) {
	out, err := exec.Command("virsh", append([]string{"-c", testAccURI()}, args...)...).CombinedOutput()
	s := strings.TrimSpace(string(out))
	if err != nil {
		return s, fmt.Errorf("virsh %s: %v: %s", strings.Join(args, " "), err, s)
	}
	return s, nil
}

// testCheckDomID stores the running domain's libvirt ID (it changes when
// the domain restarts).
func testCheckDomID(name string, into *string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		id, err := virsh("domid", name)
		if err != nil {
			return err
		}
		if id == "-" || id == "" {
			return fmt.Errorf("domain %s is not running (domid %q)", name, id)
		}
		*into = id
		return nil
	}
}

// testCheckDomIDIs fails unless the domain still runs with the ID in *want
// (same == true) or runs with another ID (same == false).
func testCheckDomIDIs(name string, want *string, same bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		id, err := virsh("domid", name)
		if err != nil {
			return err
		}
		if same && id != *want {
			return fmt.Errorf("domain %s was restarted: id %s before, %s after", name, *want, id)
		}
		if !same && (id == *want || id == "-") {
			return fmt.Errorf("domain %s was not restarted: id %s before, %s after", name, *want, id)
		}
		return nil
	}
}

// testCheckVirsh fails unless virsh's output matches re.
func testCheckVirsh(re *regexp.Regexp, args ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		out, err := virsh(args...)
		if err != nil {
			return err
		}
		if !re.MatchString(out) {
			return fmt.Errorf("virsh %s: output does not match %s:\n%s", strings.Join(args, " "), re, out)
		}
		return nil
	}
}

// testCheckNoDomain fails when libvirt still knows a domain called name.
func testCheckNoDomain(name string) error {
	out, err := virsh("list", "--all", "--name")
	if err != nil {
		return err
	}
	for _, n := range strings.Fields(out) {
		if n == name {
			return fmt.Errorf("domain %s is still defined", name)
		}
	}
	return nil
}

func testAccDomainCheckDestroyed(names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, n := range names {
			if err := testCheckNoDomain(n); err != nil {
				return err
			}
		}
		return nil
	}
}

// removeDomainLeftovers deletes a domain a previous, interrupted run left.
func removeDomainLeftovers(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if testCheckNoDomain(n) == nil {
			continue
		}
		_, _ = virsh("destroy", n)
		_, _ = virsh("undefine", n, "--nvram")
	}
}

// removeStorageLeftovers deletes test volumes an interrupted run left in the pool.
func removeStorageLeftovers(t *testing.T, vols ...string) {
	t.Helper()
	for _, v := range vols {
		_, _ = virsh("vol-delete", "--pool", testAccPool(), v)
	}
}

// removeNetworkLeftovers deletes test networks an interrupted run left.
func removeNetworkLeftovers(t *testing.T, nets ...string) {
	t.Helper()
	for _, n := range nets {
		_, _ = virsh("net-destroy", n)
		_, _ = virsh("net-undefine", n)
	}
}

// testCheckImportedDomain checks what import read from libvirt.
func testCheckImportedDomain(uuid *string, name, prefix string) resource.ImportStateCheckFunc {
	return func(s []*terraform.InstanceState) error {
		// a persisted import lists every instance of the state
		var found []*terraform.InstanceState
		for _, is := range s {
			if is.ID == *uuid {
				found = append(found, is)
			}
		}
		if len(found) != 1 {
			return fmt.Errorf("import: want one instance with id %s, got %d of %d", *uuid, len(found), len(s))
		}
		s = found
		want := map[string]string{
			"id":                                   *uuid,
			"name":                                 name,
			"running":                              "true",
			"vcpu":                                 "2",
			"devices.disks.0.source.volume.volume": prefix + "-root.qcow2",
			"devices.interfaces.0.mac.address":     "52:54:00:23:37:01",
			"devices.interfaces.0.source.network.network": prefix + "-net",
		}
		cdrom := false
		for i := 0; i < 3; i++ {
			cdrom = cdrom || s[0].Attributes[fmt.Sprintf("devices.disks.%d.device", i)] == "cdrom"
		}
		if !cdrom {
			return fmt.Errorf("import: no cdrom among the disks")
		}
		for k, v := range want {
			if got := s[0].Attributes[k]; got != v {
				return fmt.Errorf("import: %s = %q, want %q", k, got, v)
			}
		}
		return nil
	}
}

// forgetDomain replaces the domain resource of a configuration by a removed
// block, which drops it from state without destroying it.
func forgetDomain(cfg string) string {
	return cfg[:strings.Index(cfg, `resource "libvirt_domain" "test"`)] + `
removed {
  from = libvirt_domain.test
}
`
}

// fullDomain are the knobs of testAccDomainFullConfig.
type fullDomain struct {
	name            string
	running         bool
	autostart       bool
	vcpuCurrent     int
	currentMemory   int // MiB; 0: unset
	secondDisk      bool
	onReboot        string // "" unset
	restartOnChange bool
}

// testAccDomainFullConfig is the ADR's full domain: a qcow2 volume as
// virtio disk without driver.type, a cloud-init seed ISO as read-only SCSI
// cdrom behind a virtio-scsi controller, a network interface with a fixed
// MAC, serial + console, the guest-agent channel and VNC graphics.
func testAccDomainFullConfig(prefix string, d fullDomain) string {
	disk2 := ""
	if d.secondDisk {
		disk2 = `,
      {
        source = { volume = { pool = libvirt_volume.data.pool, volume = libvirt_volume.data.name } }
        target = { dev = "vdb", bus = "virtio" }
      }`
	}
	return testConfig(`
resource "libvirt_network" "net" {
  name = "{{.Prefix}}-net"
  ips  = [{ address = "10.233.7.1", prefix = 24 }]
}

resource "libvirt_volume" "root" {
  name          = "{{.Prefix}}-root.qcow2"
  pool          = {{q .Pool}}
  capacity      = 64
  capacity_unit = "MiB"
  target        = { format = { type = "qcow2" } }
}

resource "libvirt_volume" "data" {
  name          = "{{.Prefix}}-data.qcow2"
  pool          = {{q .Pool}}
  capacity      = 16
  capacity_unit = "MiB"
  target        = { format = { type = "qcow2" } }
}

resource "libvirt_cloudinit_disk" "seed" {
  name      = "{{.Prefix}}-seed"
  user_data = "#cloud-config\n"
  meta_data = "instance-id: {{.Prefix}}\nlocal-hostname: {{.Prefix}}\n"
}

resource "libvirt_volume" "seed" {
  name   = "{{.Prefix}}-seed.iso"
  pool   = {{q .Pool}}
  create = { content = { url = libvirt_cloudinit_disk.seed.path } }
}

resource "libvirt_domain" "test" {
  name              = {{q .Name}}
  type              = {{q .Type}}
  memory            = 128
  memory_unit       = "MiB"
  vcpu              = 2
  vcpu_current      = {{.VCPUCurrent}}
  running           = {{.Running}}
  autostart         = {{.Autostart}}
  restart_on_change = {{.RestartOnChange}}
  shutdown_timeout  = "0s"
{{- if .CurrentMemory}}
  current_memory      = {{.CurrentMemory}}
  current_memory_unit = "MiB"
{{- end}}
{{- if .OnReboot}}
  on_reboot = {{q .OnReboot}}
{{- end}}

  os = { type = "hvm" }
  # PCI hot-plug on the pc machine's root bus goes through ACPI
  features = { acpi = true, apic = {} }

  devices = {
    disks = [
      {
        source = { volume = { pool = libvirt_volume.root.pool, volume = libvirt_volume.root.name } }
        target = { dev = "vda", bus = "virtio" }
      },
      {
        device    = "cdrom"
        source    = { volume = { pool = libvirt_volume.seed.pool, volume = libvirt_volume.seed.name } }
        target    = { dev = "sda", bus = "scsi" }
        read_only = true
      }{{.Disk2}}
    ]
    controllers = [{ type = "scsi", model = "virtio-scsi" }]
    interfaces = [{
      type   = "network"
      mac    = { address = "52:54:00:23:37:01" }
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
`, map[string]any{"Prefix": prefix, "Pool": testAccPool(), "Type": testAccDomainType(), "Name": d.name, "VCPUCurrent": d.vcpuCurrent, "Running": d.running, "Autostart": d.autostart, "RestartOnChange": d.restartOnChange,
		"CurrentMemory": d.currentMemory, "OnReboot": d.onReboot, "Disk2": disk2})
}

var emptyAfterApply = resource.ConfigPlanChecks{
	PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
}

func expectUpdate(addr string) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{
		PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
}

// TestAccDomain_full walks the ADR's full domain through live changes
// (vCPU, memory, disk hot-plug: same libvirt domain ID), autostart,
// stop/start, rename (Update, same UUID) and import by name and by UUID.
func TestAccDomain_full(t *testing.T) {
	const prefix = "tfacc-domfull"
	name, renamed := prefix, prefix+"-renamed"
	removeDomainLeftovers(t, name, renamed)
	removeStorageLeftovers(t, prefix+"-root.qcow2", prefix+"-data.qcow2", prefix+"-seed.iso")
	removeNetworkLeftovers(t, prefix+"-net")
	var domID, uuid string
	base := fullDomain{name: name, running: true, vcpuCurrent: 1}
	live := base
	live.vcpuCurrent, live.currentMemory = 2, 96
	plugged := live
	plugged.secondDisk = true
	auto := plugged
	auto.autostart = true
	stopped := auto
	stopped.running, stopped.autostart = false, false
	started := stopped
	started.running = true
	rename := started
	rename.name = renamed
	const addr = "libvirt_domain.test"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccDomainCheckDestroyed(name, renamed),
		Steps: []resource.TestStep{
			{
				Config:           testAccDomainFullConfig(prefix, base),
				ConfigPlanChecks: emptyAfterApply,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("running"), knownvalue.Bool(true)),
					// the provider fills the volume's format for libvirt, state keeps the user's null
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices").AtMapKey("disks").AtSliceIndex(0).AtMapKey("driver"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices").AtMapKey("interfaces").AtSliceIndex(0).AtMapKey("mac").AtMapKey("address"), knownvalue.StringExact("52:54:00:23:37:01")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("console_urls").AtSliceIndex(0), knownvalue.StringRegexp(vncRegexp)),
				},
				Check: resource.ComposeTestCheckFunc(
					testCheckDomID(name, &domID),
					testCheckVirsh(regexp.MustCompile(`(?s)<driver name='qemu' type='qcow2'/>\s*<source pool='tfacc`), "dumpxml", "--inactive", name),
					testCheckVirsh(regexp.MustCompile(`(?s)<disk type='volume' device='cdrom'>.*<readonly/>`), "dumpxml", name),
					func(s *terraform.State) error {
						uuid = s.RootModule().Resources[addr].Primary.ID
						return nil
					},
				),
			},
			{
				// vcpu_current 1 -> 2 and current_memory under memory apply live
				Config:           testAccDomainFullConfig(prefix, live),
				ConfigPlanChecks: expectUpdate(addr),
				Check: resource.ComposeTestCheckFunc(
					testCheckDomIDIs(name, &domID, true),
					testCheckVirsh(regexp.MustCompile(`(?m)^CPU\(s\):\s+2$`), "dominfo", name),
					// the balloon target cannot be observed live without a guest
					// driver (no OS runs here); the definition has it
					testCheckVirsh(regexp.MustCompile(`<currentMemory unit='KiB'>98304</currentMemory>`), "dumpxml", "--inactive", name),
				),
			},
			{
				// a second disk is hot-plugged
				Config:           testAccDomainFullConfig(prefix, plugged),
				ConfigPlanChecks: expectUpdate(addr),
				Check: resource.ComposeTestCheckFunc(
					testCheckDomIDIs(name, &domID, true),
					testCheckVirsh(regexp.MustCompile(`(?m)^\s*vdb\s+\S+data\.qcow2$`), "domblklist", name),
				),
			},
			{
				Config:           testAccDomainFullConfig(prefix, auto),
				ConfigPlanChecks: expectUpdate(addr),
				Check: resource.ComposeTestCheckFunc(
					testCheckDomIDIs(name, &domID, true),
					testCheckVirsh(regexp.MustCompile(`(?m)^Autostart:\s+enable$`), "dominfo", name),
				),
			},
			{
				Config:           testAccDomainFullConfig(prefix, stopped),
				ConfigPlanChecks: expectUpdate(addr),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("running"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("console_urls"), knownvalue.ListExact([]knownvalue.Check{})),
				},
				Check: resource.ComposeTestCheckFunc(
					testCheckVirsh(regexp.MustCompile(`(?m)^State:\s+shut off$`), "dominfo", name),
					testCheckVirsh(regexp.MustCompile(`(?m)^Autostart:\s+disable$`), "dominfo", name),
				),
			},
			{
				Config:           testAccDomainFullConfig(prefix, started),
				ConfigPlanChecks: expectUpdate(addr),
				Check: resource.ComposeTestCheckFunc(
					testCheckVirsh(regexp.MustCompile(`(?m)^State:\s+running$`), "dominfo", name),
					testCheckDomID(name, &domID),
				),
			},
			{
				// rename is an update of the same domain
				Config:           testAccDomainFullConfig(prefix, rename),
				ConfigPlanChecks: expectUpdate(addr),
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error {
						if got := s.RootModule().Resources[addr].Primary.ID; got != uuid {
							return fmt.Errorf("UUID changed on rename: %s -> %s", uuid, got)
						}
						return testCheckNoDomain(name)
					},
					testCheckVirsh(regexp.MustCompile(`(?m)^State:\s+running$`), "dominfo", renamed),
					func(*terraform.State) error {
						got, err := virsh("domuuid", renamed)
						if err == nil && got != uuid {
							err = fmt.Errorf("libvirt UUID %s, want %s", got, uuid)
						}
						return err
					},
				),
			},
			// Import by name and by UUID. Import stores the whole live
			// definition (the engine's rule for a nil prior: addresses,
			// default controllers, cpu model, ...), so the state is checked
			// for the identifying values here; TestAccDomain_generateConfig
			// proves that the generated configuration then plans nothing.
			{
				ResourceName:     addr,
				ImportState:      true,
				ImportStateId:    renamed,
				ImportStateCheck: testCheckImportedDomain(&uuid, renamed, prefix),
			},
			{
				// forget the domain (removed block, no destroy) to import it for real
				Config: forgetDomain(testAccDomainFullConfig(prefix, rename)),
				Check:  testCheckVirsh(regexp.MustCompile(`(?m)^State:\s+running$`), "dominfo", renamed),
			},
			{
				// an import step's configuration is used as written: name the
				// provider's source (other steps get it from the factories)
				Config:             "\n" + virtxmlRequiredProviders + testAccDomainFullConfig(prefix, rename),
				ResourceName:       addr,
				ImportState:        true,
				ImportStateIdFunc:  func(*terraform.State) (string, error) { return uuid, nil },
				ImportStateCheck:   testCheckImportedDomain(&uuid, renamed, prefix),
				ImportStatePersist: true,
			},
			{
				// the hand-written configuration after an import converges in
				// one update that does not restart the domain
				PreConfig:        func() { _ = testCheckDomID(renamed, &domID)(nil) },
				Config:           testAccDomainFullConfig(prefix, rename),
				ConfigPlanChecks: expectUpdate(addr),
				Check:            testCheckDomIDIs(renamed, &domID, true),
			},
		},
	})
}
