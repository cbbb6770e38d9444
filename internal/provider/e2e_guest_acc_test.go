package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// The end-to-end guest owns these names, MACs and subnet: it cannot run twice
// at the same time on one libvirtd.
const (
	e2eName     = "tfacc-e2e"
	e2eSubnet   = "10.234.5"
	e2eHostname = "e2e-guest"
)

var (
	e2eHost1 = testAccNetworkHost{"52:54:00:e2:e2:01", e2eSubnet + ".50", "e2e"}
	e2eHost2 = testAccNetworkHost{"52:54:00:e2:e2:02", e2eSubnet + ".51", "e2e2"}
)

// e2eVolumes are the pool volumes the configuration creates.
var e2eVolumes = []string{e2eName + "-base.qcow2", e2eName + "-root.qcow2", e2eName + "-seed.iso"}

// e2eGuestDir is the bootable test guest (scripts/build-guest-image.sh). In CI
// its absence fails the test: the end-to-end proof must not silently vanish.
func e2eGuestDir(t *testing.T) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	dir := os.Getenv("LIBVIRT_TEST_GUEST_DIR")
	missing := ""
	if dir == "" {
		missing = "LIBVIRT_TEST_GUEST_DIR is not set"
	} else {
		for _, f := range []string{"root.qcow2", "vmlinuz", "initrd.img"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				missing = fmt.Sprintf("LIBVIRT_TEST_GUEST_DIR=%s lacks %s (%v)", dir, f, err)
				break
			}
		}
	}
	if missing == "" {
		return dir
	}
	msg := missing + ": the end-to-end guest test needs the image of scripts/build-guest-image.sh (scripts/testenv.sh exports its directory)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// testAccE2EConfig is one isolated network with DHCP reservations, a base
// volume from the guest image with a qcow2 overlay, a cloud-init seed ISO
// uploaded as volume, a running guest booted from the guest image's kernel,
// and its addresses read from the DHCP lease and from the guest agent.
// testAccE2EConfig is the whole stack; currentMemoryMiB 0 leaves the balloon
// target to libvirt (the full memory).
func testAccE2EConfig(guestDir, seedDir, consoleLog string, currentMemoryMiB int, hosts ...testAccNetworkHost) string {
	currentMemory := ""
	if currentMemoryMiB > 0 {
		currentMemory = renderConfig(`current_memory      = {{.}}
  current_memory_unit = "MiB"`, currentMemoryMiB)
	}
	var dhcpHosts []string
	for _, h := range hosts {
		dhcpHosts = append(dhcpHosts, renderConfig(`{ mac = {{q .mac}}, ip = {{q .ip}}, name = {{q .name}} }`,
			map[string]string{"mac": h.mac, "ip": h.ip, "name": h.name}))
	}
	guest := testGuest{
		Name: e2eName, GuestDir: guestDir, Running: true, FixedNICNames: true, Extra: currentMemory,
		Disks: []string{testGuestRootVolumeDisk, testGuestSeedDisk}, SCSI: true,
		Interfaces: []string{renderConfig(`{
        type   = "network"
        mac    = { address = {{q .}} }
        model  = { type = "virtio" }
        source = { network = { network = libvirt_network.isolated.name } }
      }`, e2eHost1.mac)},
		ConsoleLog: consoleLog, Agent: true,
	}
	seed := testGuestSeed{Name: e2eName, Hostname: e2eHostname, SeedDir: seedDir, Pool: testAccPool()}
	return testConfig(`
resource "libvirt_network" "isolated" {
  name      = "{{.Name}}-net"
  autostart = false
  ips = [{
    address = "{{.Subnet}}.1"
    prefix  = 24
    dhcp = {
      ranges = [{ start = "{{.Subnet}}.100", end = "{{.Subnet}}.200" }]
      hosts  = [{{.DHCPHosts}}]
    }
  }]
}

resource "libvirt_volume" "base" {
  name   = "{{.Name}}-base.qcow2"
  pool   = {{q .Pool}}
  create = { content = { url = "{{.GuestDir}}/root.qcow2" } }
  target = { format = { type = "qcow2" } }
}

resource "libvirt_volume" "root" {
  name          = "{{.Name}}-root.qcow2"
  pool          = {{q .Pool}}
  target        = { format = { type = "qcow2" } }
  backing_store = { path = libvirt_volume.base.path, format = { type = "qcow2" } }
}

data "libvirt_domain_interface_addresses" "lease" {
  domain = libvirt_domain.guest.id
  source = "lease"
  wait   = { timeout = "5m", until = "ipv4" }
}

data "libvirt_domain_interface_addresses" "agent" {
  domain = libvirt_domain.guest.id
  source = "agent"
  wait   = { timeout = "5m", until = "ipv4" }
}
`, map[string]string{"Name": e2eName, "Subnet": e2eSubnet, "DHCPHosts": strings.Join(dhcpHosts, ", "), "Pool": testAccPool(),
		"GuestDir": guestDir}) + seed.config() + guest.config()
}

// TestAccE2E_guest applies the whole stack in one configuration and boots the
// test guest under it: the DHCP lease and the guest agent both report the
// reserved address and the agent reports the host name from the seed's
// meta-data (cloud-init read the ISO). A DHCP reservation added to the network
// then applies live: the network updates in place, the guest keeps running
// with the same domain ID. Last, a lower balloon target (current_memory)
// applies live and the guest gives the memory back. The guest is only
// observed through libvirt.
func TestAccE2E_guest(t *testing.T) {
	guestDir := e2eGuestDir(t)
	testAccPreCheck(t)

	// Qemu runs as another user: the serial log's directory must be traversable.
	work, err := os.MkdirTemp("/var/tmp", e2eName+".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	seedDir := filepath.Join(work, "cloudinit")
	consoleLog := filepath.Join(work, "console.log")
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(consoleLog); err == nil {
				t.Logf("guest console (last 3000 bytes):\n%s", tail(string(b), 3000))
			}
		}
	})

	oneAddress := knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(e2eHost1.ip)})
	var domID int32
	var bridge networkBridgeIfindex
	var started time.Time
	resource.Test(t, resource.TestCase{
		PreCheck: func() {
			testAccNetworkPreCheck(t, e2eName+"-net")
			e2eRemoveLeftovers(t)
			started = time.Now()
		},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             e2eCheckDestroyed(t, seedDir),
		Steps: []resource.TestStep{
			{
				Config: testAccE2EConfig(guestDir, seedDir, consoleLog, 0, e2eHost1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain.guest", tfjsonpath.New("running"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("data.libvirt_domain_interface_addresses.lease", tfjsonpath.New("ipv4_addresses"), oneAddress),
					statecheck.ExpectKnownValue("data.libvirt_domain_interface_addresses.lease",
						tfjsonpath.New("interfaces").AtSliceIndex(0).AtMapKey("hwaddr"), knownvalue.StringExact(e2eHost1.mac)),
					statecheck.ExpectKnownValue("data.libvirt_domain_interface_addresses.agent", tfjsonpath.New("ipv4_addresses"), oneAddress),
					// The seed ISO lives where CheckDestroy looks for leftovers.
					statecheck.ExpectKnownValue("libvirt_cloudinit_disk.seed", tfjsonpath.New("path"),
						knownvalue.StringRegexp(regexp.MustCompile("^"+regexp.QuoteMeta(seedDir)+`/[^/]+\.iso$`))),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					func(*terraform.State) error {
						t.Logf("apply with lease and agent addresses done %v after the test started", time.Since(started).Round(time.Second))
						return nil
					},
					func(*terraform.State) error {
						return testAccWaitGuestHostname(t, e2eName, e2eHostname, 3*time.Minute)
					},
					e2eRecordDomID(t, &domID),
					bridge.record(e2eName+"-net"),
				),
			},
			{
				// A second reservation: applied to the running network with
				// virNetworkUpdate; the guest on it is untouched.
				Config: testAccE2EConfig(guestDir, seedDir, consoleLog, 0, e2eHost1, e2eHost2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_network.isolated", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("libvirt_domain.guest", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("libvirt_volume.root", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_network.isolated",
						tfjsonpath.New("ips").AtSliceIndex(0).AtMapKey("dhcp").AtMapKey("hosts").AtSliceIndex(1).AtMapKey("ip"),
						knownvalue.StringExact(e2eHost2.ip)),
					statecheck.ExpectKnownValue("data.libvirt_domain_interface_addresses.lease", tfjsonpath.New("ipv4_addresses"), oneAddress),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					testAccCheckNetworkHosts(e2eName+"-net", []testAccNetworkHost{e2eHost1, e2eHost2}, nil),
					e2eCheckSameDomID(t, &domID),
					bridge.unchanged(e2eName+"-net"),
				),
			},
			{
				// The balloon target lowered on the running guest: an in-place
				// update applied live (virDomainSetMemoryFlags), which the
				// guest's virtio balloon driver carries out.
				Config: testAccE2EConfig(guestDir, seedDir, consoleLog, 384, e2eHost1, e2eHost2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_domain.guest", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					e2eCheckSameDomID(t, &domID),
					e2eWaitBalloon(t, 384*1024, 3*time.Minute),
				),
			},
		},
	})
}

// e2eDomain looks the guest up and returns it with its state.
func e2eDomain(t *testing.T) (libvirt.Domain, libvirt.DomainState) {
	t.Helper()
	var dom libvirt.Domain
	var state int32
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		var err error
		if dom, err = l.DomainLookupByName(e2eName); err != nil {
			return err
		}
		state, _, err = l.DomainGetState(dom, 0)
		return err
	})
	return dom, libvirt.DomainState(state)
}

// e2eRecordDomID remembers the running guest's domain ID (virsh domid), which
// changes whenever the guest is stopped and started again.
func e2eRecordDomID(t *testing.T, into *int32) resource.TestCheckFunc {
	return func(*terraform.State) error {
		dom, state := e2eDomain(t)
		if state != libvirt.DomainRunning || dom.ID <= 0 {
			return fmt.Errorf("domain %s is not running (state %d, id %d)", e2eName, state, dom.ID)
		}
		*into = dom.ID
		return nil
	}
}

// e2eCheckSameDomID fails unless the guest still runs under the recorded ID.
func e2eCheckSameDomID(t *testing.T, want *int32) resource.TestCheckFunc {
	return func(*terraform.State) error {
		dom, state := e2eDomain(t)
		if state != libvirt.DomainRunning {
			return fmt.Errorf("domain %s is not running after the update (state %d)", e2eName, state)
		}
		if dom.ID != *want {
			return fmt.Errorf("domain %s has ID %d, was %d: it was restarted by the update", e2eName, dom.ID, *want)
		}
		t.Logf("domain %s kept running with ID %d through the update", e2eName, dom.ID)
		return nil
	}
}

// e2eWaitBalloon waits until the guest's balloon reports the given size
// (`virsh dommemstat`: actual, in KiB): the guest gave the memory back.
func e2eWaitBalloon(t *testing.T, wantKiB int, timeout time.Duration) resource.TestCheckFunc {
	return func(*terraform.State) error {
		want := regexp.MustCompile(fmt.Sprintf(`(?m)^actual %d$`, wantKiB))
		deadline := time.Now().Add(timeout)
		start := time.Now()
		for {
			out, err := virsh("dommemstat", e2eName)
			if err == nil && want.MatchString(out) {
				t.Logf("balloon at %d KiB after %v", wantKiB, time.Since(start).Round(time.Second))
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("balloon of %s not at %d KiB after %v: %v\n%s", e2eName, wantKiB, timeout, err, out)
			}
			time.Sleep(2 * time.Second)
		}
	}
}

// e2eCheckDestroyed fails when the destroy left the domain, the network, any
// of the volumes or a seed ISO in the cloud-init directory behind.
func e2eCheckDestroyed(t *testing.T, seedDir string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		var errs []string
		testAccLibvirt(t, func(l *libvirt.Libvirt) error {
			if _, err := l.DomainLookupByName(e2eName); !libvirtconn.IsNotFound(libvirtconn.WrapError(err)) {
				errs = append(errs, fmt.Sprintf("domain %s still exists (lookup error %v)", e2eName, err))
			}
			if err := checkNoVolume(l, e2eVolumes...); err != nil {
				errs = append(errs, err.Error())
			}
			return nil
		})
		if err := testAccCheckNetworkGone(e2eName + "-net")(s); err != nil {
			errs = append(errs, err.Error())
		}
		isos, err := filepath.Glob(filepath.Join(seedDir, "*.iso"))
		if err != nil {
			errs = append(errs, err.Error())
		}
		if len(isos) > 0 {
			errs = append(errs, fmt.Sprintf("seed ISO files left behind: %v", isos))
		}
		if len(errs) > 0 {
			return fmt.Errorf("destroy left things behind:\n%s", strings.Join(errs, "\n"))
		}
		return nil
	}
}

// e2eRemoveLeftovers removes the domain and volumes an earlier run that died
// left under the test's names (their creation would fail with "exists").
func e2eRemoveLeftovers(t *testing.T) {
	t.Helper()
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		if dom, err := l.DomainLookupByName(e2eName); err == nil {
			t.Logf("removing domain %s left behind by an earlier run", e2eName)
			_ = l.DomainDestroy(dom)
			if err := l.DomainUndefineFlags(dom, libvirt.DomainUndefineNvram|libvirt.DomainUndefineManagedSave); err != nil {
				return err
			}
		}
		pool, err := l.StoragePoolLookupByName(testAccPool())
		if err != nil {
			return err
		}
		// Overlay and seed before the base: the base is their backing file.
		for i := len(e2eVolumes) - 1; i >= 0; i-- {
			if vol, err := l.StorageVolLookupByName(pool, e2eVolumes[i]); err == nil {
				t.Logf("removing volume %s left behind by an earlier run", vol.Name)
				if err := l.StorageVolDelete(vol, 0); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
