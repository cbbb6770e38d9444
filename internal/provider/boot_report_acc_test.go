package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// The boot-report test owns these names, MACs and subnet.
const (
	bootReportName   = "tfboot-panic"
	bootReportSubnet = "10.242.77"
	bootReportMAC1   = "52:54:00:b0:07:01"
	bootReportMAC2   = "52:54:00:b0:07:02"
)

// bootReportConfig is an isolated network with DHCP and one domain per
// entry of .Domains, each booting the test guest's kernel without initrd,
// disk or root file system: the kernel panics with "VFS: Unable to mount root
// fs", and no address ever comes. Its serial port writes to a file.
const bootReportConfig = `
resource "libvirt_network" "net" {
  name      = "{{.Name}}-net"
  autostart = false
  ips = [{
    address = "{{.Subnet}}.1"
    prefix  = 24
    dhcp    = { ranges = [{ start = "{{.Subnet}}.100", end = "{{.Subnet}}.200" }] }
  }]
}
{{range .Domains}}
resource "libvirt_domain" "{{.Resource}}" {
  name             = {{q .Name}}
  type             = {{q $.Type}}
  memory           = 256
  memory_unit      = "MiB"
  vcpu             = 1
  running          = true
  shutdown_timeout = "0s"

  os = {
    type    = "hvm"
    kernel  = "{{$.GuestDir}}/vmlinuz"
    cmdline = "root=/dev/nonexistent console=ttyS0 panic=0"
  }

  devices = {
    interfaces = [{
      type   = "network"
      mac    = { address = {{q .MAC}} }
      model  = { type = "virtio" }
      source = { network = { network = libvirt_network.net.name } }{{if .WaitForIP}}
      wait_for_ip = { timeout = {{.WaitForIP}}, source = "lease" }{{end}}
    }]
    serials  = [{ source = { file = { path = {{q .ConsoleLog}} } }, target = { port = 0 } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
    channels = [{
      source = { unix = {} }
      target = { virt_io = { name = "org.qemu.guest_agent.0" } }
    }]
  }
}
{{end}}{{if .DataSourceWait}}
data "libvirt_domain_interface_addresses" "x" {
  domain = libvirt_domain.ds.id
  source = "lease"
  wait   = { timeout = {{q .DataSourceWait}} }
}
{{end}}`

type bootReportDomain struct {
	Resource, Name, MAC, ConsoleLog string
	WaitForIP                       int // seconds; 0 for no wait_for_ip
}

// words is a regular expression for a phrase the CLI may wrap at any space.
func words(phrase string) string {
	parts := strings.Fields(phrase)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, `\s+`)
}

// bootReportExpect is what each timed-out wait must report about a domain
// whose kernel found no root file system: the panic from its serial console,
// its state, that its network had no lease for its MAC, and that the guest
// agent did not answer.
func bootReportExpect(first, mac string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)` + first + `.*` +
		words("What the domain showed:") + `.*` +
		words("domain state: running (booted)") + `.*` +
		words("serial console (file") + `.*` +
		words("VFS: Unable to mount root fs") + `.*` +
		words("Kernel panic - not syncing") + `.*` +
		words(`DHCP leases of network "`+bootReportName+`-net": none at all, none for MAC `+mac) + `.*` +
		words("guest agent: did not answer (channel disconnected)"))
}

// TestAccBootReport_panickedKernel boots a kernel that cannot mount its root
// file system, once under the interface-addresses data source's wait and
// once under wait_for_ip, each with a short timeout: both errors must say
// what was seen (state, the kernel's panic from the serial console, the
// network's leases, the guest agent).
func TestAccBootReport_panickedKernel(t *testing.T) {
	guestDir := e2eGuestDir(t)
	testAccPreCheck(t)

	// Qemu runs as another user: the serial log's directory must be traversable.
	work, err := os.MkdirTemp("/var/tmp", bootReportName+".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	ds := bootReportDomain{Resource: "ds", Name: bootReportName + "-ds", MAC: bootReportMAC1,
		ConsoleLog: filepath.Join(work, "ds.log")}
	wait := bootReportDomain{Resource: "wait", Name: bootReportName + "-wait", MAC: bootReportMAC2,
		ConsoleLog: filepath.Join(work, "wait.log"), WaitForIP: 60}
	config := func(dataSourceWait string, domains ...bootReportDomain) string {
		return testConfig(bootReportConfig, map[string]any{
			"Name": bootReportName, "Subnet": bootReportSubnet, "Type": testAccDomainType(), "GuestDir": guestDir,
			"Domains": domains, "DataSourceWait": dataSourceWait,
		})
	}

	resource.Test(t, resource.TestCase{
		PreCheck: func() {
			testAccNetworkPreCheck(t, bootReportName+"-net")
			bootReportRemoveDomains(t, ds.Name, wait.Name)
		},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			return bootReportCheckGone(ds.Name, wait.Name)
		},
		Steps: []resource.TestStep{
			{
				Config: config("60s", ds),
				ExpectError: bootReportExpect(
					words("Timed out waiting for domain interface addresses")+".*"+words("Domain "+ds.Name+" had no IPv4 address after 1m0s"),
					ds.MAC),
			},
			{
				Config: config("", wait),
				ExpectError: bootReportExpect(
					words("interface 0 ("+wait.MAC+`) of domain "`+wait.Name+`" has no IPv4 address after 1m0s`),
					wait.MAC),
			},
		},
	})
}

// bootReportRemoveDomains removes domains an earlier, interrupted run left.
func bootReportRemoveDomains(t *testing.T, names ...string) {
	t.Helper()
	l, err := testAccNetworkLibvirt()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		d, err := l.DomainLookupByName(name)
		if libvirtconn.IsNotFound(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("removing domain %s left behind by an earlier run", name)
		_ = l.DomainDestroy(d)
		if err := l.DomainUndefineFlags(d, libvirt.DomainUndefineNvram); err != nil {
			t.Fatal(err)
		}
	}
}

func bootReportCheckGone(names ...string) error {
	l, err := testAccNetworkLibvirt()
	if err != nil {
		return err
	}
	for _, name := range names {
		if _, err := l.DomainLookupByName(name); err == nil {
			return fmt.Errorf("domain %s still exists", name)
		}
	}
	if _, err := l.NetworkLookupByName(bootReportName + "-net"); err == nil {
		return fmt.Errorf("network %s-net still exists", bootReportName)
	}
	return nil
}
