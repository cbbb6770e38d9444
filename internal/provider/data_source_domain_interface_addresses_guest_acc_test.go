package provider

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/virtxml/terraform-provider-libvirt/internal/cloudinit"
)

// testAccGuestDir is the bootable test guest (scripts/build-guest-image.sh),
// or "" when it is not available.
func testAccGuestDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LIBVIRT_TEST_GUEST_DIR")
	if dir == "" {
		return ""
	}
	for _, f := range []string{"root.qcow2", "vmlinuz", "initrd.img"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("LIBVIRT_TEST_GUEST_DIR=%s lacks %s: %v", dir, f, err)
		}
	}
	return dir
}

// TestAccDomainInterfaceAddresses_guest boots the test guest on an isolated
// network with a DHCP reservation and reads its address through the lease
// and the guest agent. The guest is only observed through libvirt. Its
// NoCloud seed is written by internal/cloudinit, and the host name the agent
// reports proves cloud-init read it.
func TestAccDomainInterfaceAddresses_guest(t *testing.T) {
	testAccPreCheck(t)
	guestDir := testAccGuestDir(t)
	if guestDir == "" {
		t.Skip("LIBVIRT_TEST_GUEST_DIR not set: the booting-guest proof needs scripts/build-guest-image.sh")
	}

	suffix := fmt.Sprintf("%04x", rand.IntN(0x10000))
	name := "tfacc-ifaddr-" + suffix
	mac := fmt.Sprintf("52:54:00:7a:%s:%s", suffix[:2], suffix[2:])
	hostname := "ifaddr-" + suffix

	work, overlay, seedPath := testAccGuestDisks(t, guestDir, name, hostname)

	guestIP := testAccDefineIsolatedNetwork(t, name, mac, hostname)
	uuid := testAccDefineDomain(t, fmt.Sprintf(`<domain type=%q>
  <name>%s</name>
  <memory unit="MiB">512</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch="x86_64" machine="pc">hvm</type>
    <kernel>%s</kernel>
    <initrd>%s</initrd>
    <cmdline>root=/dev/vda rw console=ttyS0 net.ifnames=0</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <disk type="file" device="disk">
      <driver name="qemu" type="qcow2"/>
      <source file=%q/>
      <target dev="vda" bus="virtio"/>
    </disk>
    <disk type="file" device="cdrom">
      <driver name="qemu" type="raw"/>
      <source file=%q/>
      <target dev="sda" bus="scsi"/>
      <readonly/>
    </disk>
    <controller type="scsi" model="virtio-scsi"/>
    <controller type="virtio-serial"/>
    <interface type="network">
      <source network=%q/>
      <mac address=%q/>
      <model type="virtio"/>
    </interface>
    <serial type="file"><source path=%q/><target port="0"/></serial>
    <channel type="unix"><target type="virtio" name="org.qemu.guest_agent.0"/></channel>
    <rng model="virtio"><backend model="random">/dev/urandom</backend></rng>
    <memballoon model="none"/>
  </devices>
</domain>`, testAccDomainType(), name,
		filepath.Join(guestDir, "vmlinuz"), filepath.Join(guestDir, "initrd.img"),
		overlay, seedPath, name, mac, filepath.Join(work, "console.log")))
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		dom, err := l.DomainLookupByName(name)
		if err != nil {
			return err
		}
		return l.DomainCreate(dom)
	})
	started := time.Now()
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(work, "console.log")); err == nil {
				t.Logf("guest console (last 3000 bytes):\n%s", tail(string(b), 3000))
			}
		}
	})

	oneAddress := knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(guestIP)})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: testConfig(`
data "libvirt_domain_interface_addresses" "lease" {
  domain = {{q .DomainUUID}}
  wait   = { timeout = "6m" }
}

data "libvirt_domain_interface_addresses" "agent" {
  domain = {{q .DomainUUID}}
  source = "agent"
  wait   = { timeout = "6m", until = "all_interfaces" }
}
`, map[string]string{"DomainUUID": uuid}),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.libvirt_domain_interface_addresses.lease", tfjsonpath.New("ipv4_addresses"), oneAddress),
				statecheck.ExpectKnownValue("data.libvirt_domain_interface_addresses.lease",
					tfjsonpath.New("interfaces").AtSliceIndex(0).AtMapKey("hwaddr"), knownvalue.StringExact(mac)),
				statecheck.ExpectKnownValue("data.libvirt_domain_interface_addresses.agent", tfjsonpath.New("ipv4_addresses"), oneAddress),
				statecheck.ExpectKnownValue("data.libvirt_domain_interface_addresses.agent", tfjsonpath.New("id"), knownvalue.StringExact(uuid)),
			},
			Check: func(*terraform.State) error {
				t.Logf("lease and agent reported %s %v after boot", guestIP, time.Since(started).Round(time.Second))
				return testAccWaitGuestHostname(t, name, hostname, 3*time.Minute)
			},
		}},
	})
}

// testAccDefineIsolatedNetwork starts an isolated network (no forward) with a
// DHCP reservation for mac and returns the reserved address.
func testAccDefineIsolatedNetwork(t *testing.T, name, mac, hostname string) string {
	t.Helper()
	var netw libvirt.Network
	var ip string
	for attempt := 0; ; attempt++ {
		subnet := fmt.Sprintf("10.%d.%d", 200+rand.IntN(55), rand.IntN(256))
		ip = subnet + ".10"
		xml := fmt.Sprintf(`<network>
  <name>%s</name>
  <ip address="%s.1" netmask="255.255.255.0">
    <dhcp>
      <range start="%[2]s.100" end="%[2]s.200"/>
      <host mac=%q name=%q ip=%q/>
    </dhcp>
  </ip>
</network>`, name, subnet, mac, hostname, ip)
		var startErr error
		testAccLibvirt(t, func(l *libvirt.Libvirt) error {
			var err error
			if netw, err = l.NetworkDefineXML(xml); err != nil {
				return err
			}
			if startErr = l.NetworkCreate(netw); startErr != nil {
				return l.NetworkUndefine(netw)
			}
			return nil
		})
		if startErr == nil {
			break
		}
		if attempt == 4 {
			t.Fatalf("starting network %s: %v", name, startErr)
		}
	}
	// Registered before the domain's cleanup, so it runs after it.
	t.Cleanup(func() {
		testAccLibvirt(t, func(l *libvirt.Libvirt) error {
			_ = l.NetworkDestroy(netw)
			return l.NetworkUndefine(netw)
		})
	})
	return ip
}

// testAccWaitGuestHostname asks the guest agent for the host name until it is
// want (cloud-init sets it from the seed's meta-data).
func testAccWaitGuestHostname(t *testing.T, domain, want string, timeout time.Duration) error {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		testAccLibvirt(t, func(l *libvirt.Libvirt) error {
			dom, err := l.DomainLookupByName(domain)
			if err != nil {
				return err
			}
			out, err := l.QEMUDomainAgentCommand(dom, `{"execute":"guest-get-host-name"}`, 10, 0)
			if err != nil {
				last = err.Error()
				return nil
			}
			var reply struct {
				Return struct {
					HostName string `json:"host-name"`
				} `json:"return"`
			}
			if len(out) > 0 {
				last = out[0]
				_ = json.Unmarshal([]byte(out[0]), &reply)
				if reply.Return.HostName == want {
					last = ""
				}
			}
			return nil
		})
		if last == "" {
			t.Logf("guest agent reports host name %s: cloud-init read the seed ISO", want)
			return nil
		}
		time.Sleep(3 * time.Second)
	}
	return fmt.Errorf("guest host name never became %s (cloud-init did not read the seed ISO?); last agent reply: %s", want, last)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// testAccGuestDisks prepares a booting test guest's disks in a fresh work
// directory under /var/tmp (qemu runs as another user: it must be
// traversable): a qcow2 overlay of the guest image and a NoCloud seed ISO
// naming the instance and its host name.
func testAccGuestDisks(t *testing.T, guestDir, name, hostname string) (work, overlay, seedPath string) {
	t.Helper()
	work, err := os.MkdirTemp("/var/tmp", name+".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	overlay = filepath.Join(work, "root.qcow2")
	if out, err := exec.Command("qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2",
		"-b", filepath.Join(guestDir, "root.qcow2"), overlay).CombinedOutput(); err != nil {
		t.Fatalf("qemu-img create overlay: %v\n%s", err, out)
	}
	seed, err := cloudinit.Build(cloudinit.Config{
		UserData: "#cloud-config\n{}\n",
		MetaData: fmt.Sprintf("instance-id: %s\nlocal-hostname: %s\n", name, hostname),
	})
	if err != nil {
		t.Fatal(err)
	}
	seedPath = filepath.Join(work, "seed.iso")
	if err := os.WriteFile(seedPath, seed, 0o644); err != nil {
		t.Fatal(err)
	}
	return work, overlay, seedPath
}
