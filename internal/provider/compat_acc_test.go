package provider

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccCompat_domainStartAndDestroyOptions runs a domain written in
// dmacvicar/libvirt 0.9.x's shape: create = { paused = true } starts it
// paused, and destroy = { shutdown = { timeout = 3 } } bounds the graceful
// shutdown of the destroy to 3 seconds instead of shutdown_timeout's 60 (the
// guest, resumed, has no OS and never answers ACPI). The destroy time is
// printed.
func TestAccCompat_domainStartAndDestroyOptions(t *testing.T) {
	testAccPreCheck(t)
	const name = "tfacc-compat-dom"
	removeDomainLeftovers(t, name)
	t.Cleanup(func() { removeDomainLeftovers(t, name) })
	dir := t.TempDir()
	tofu := tofuWorkdir(t, dir, renderConfig(`
resource "libvirt_domain" "vm" {
  name    = {{q .}}
  type    = {{q domainType}}
  memory  = 64
  memory_unit = "MiB"
  running = true
  os      = { type = "hvm" }
  features = { acpi = true }

  create  = { paused = true, bypass_cache = false }
  destroy = { graceful = false, shutdown = { timeout = 3 } }
  update  = { shutdown = { timeout = 3 } }
}
`, name))
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	if state := strings.TrimSpace(mustVirsh(t, "domstate", name)); state != "paused" {
		t.Errorf("create = { paused = true }: domain state %q, want paused", state)
	}
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("the plan after apply is not empty (exit %d):\n%s", code, out)
	}
	// resumed, the guest (no OS, BIOS only) runs and ignores the ACPI request
	mustVirsh(t, "resume", name)
	start := time.Now()
	if out, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("destroy failed (exit %d):\n%s", code, out)
	}
	took := time.Since(start)
	t.Logf("destroy of a guest that ignores ACPI with destroy.shutdown.timeout = 3: %s", took.Round(100*time.Millisecond))
	if took < 3*time.Second || took > 30*time.Second {
		t.Errorf("destroy took %s: want the 3 s graceful wait, then force off (not shutdown_timeout's 60 s)", took)
	}
	if _, err := virsh("dominfo", name); err == nil {
		t.Errorf("domain %s still exists after destroy", name)
	}
}

// TestAccCompat_poolSteps runs a pool written in dmacvicar/libvirt 0.9.x's
// shape: create.autostart turns autostart on, destroy.delete removes the
// directory building created.
func TestAccCompat_poolSteps(t *testing.T) {
	testAccPreCheck(t)
	const name = "tfacc-compat-pool"
	removePoolLeftovers(name)
	t.Cleanup(func() { removePoolLeftovers(name) })
	dir := t.TempDir()
	poolDir := filepath.Join(dir, "pool")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: testConfig(`
resource "libvirt_pool" "p" {
  name    = {{q .Name}}
  type    = "dir"
  target  = { path = {{q .Dir}} }
  create  = { build = true, start = true, autostart = true }
  destroy = { delete = true }
}
`, map[string]string{"Name": name, "Dir": poolDir}),
			Check: resource.ComposeTestCheckFunc(
				testCheckVirsh(regexp.MustCompile(`(?m)^Autostart:\s+yes`), "pool-info", name),
				testCheckVirsh(regexp.MustCompile(`(?m)^State:\s+running`), "pool-info", name),
				func(*terraform.State) error {
					if _, err := os.Stat(poolDir); err != nil {
						return fmt.Errorf("create.build: the target directory was not built: %v", err)
					}
					return nil
				},
			),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
		CheckDestroy: func(*terraform.State) error {
			if _, err := os.Stat(poolDir); !os.IsNotExist(err) {
				return fmt.Errorf("destroy.delete = true: the target directory is still there (%v)", err)
			}
			return nil
		},
	})
}

// TestAccCompat_waitForIP_guest boots the test guest from a domain whose
// interface has dmacvicar/libvirt 0.9.x's wait_for_ip: the apply returns only
// once the network's DHCP lease for the interface exists, which the check
// right after the apply reads from libvirt (the guest needs tens of seconds
// to get there; without the wait the apply ends right after the start).
func TestAccCompat_waitForIP_guest(t *testing.T) {
	testAccPreCheck(t)
	guestDir := testAccGuestDir(t)
	if guestDir == "" {
		t.Skip("LIBVIRT_TEST_GUEST_DIR not set: the booting-guest proof needs scripts/build-guest-image.sh")
	}
	suffix := fmt.Sprintf("%04x", rand.IntN(0x10000))
	name := "tfacc-waitip-" + suffix
	mac := fmt.Sprintf("52:54:00:7b:%s:%s", suffix[:2], suffix[2:])
	removeDomainLeftovers(t, name)
	t.Cleanup(func() { removeDomainLeftovers(t, name) })

	_, overlay, seedPath := testAccGuestDisks(t, guestDir, name, name)
	guestIP := testAccDefineIsolatedNetwork(t, name, mac, name)

	var applied time.Time
	started := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: testAccProviderConfig() + testGuest{
				Name: name, GuestDir: guestDir, Running: true, FixedNICNames: true,
				Disks: testGuestFileDisks(overlay, seedPath), SCSI: true,
				Interfaces: []string{renderConfig(`{
        mac         = { address = {{q .MAC}} }
        model       = { type = "virtio" }
        source      = { network = { network = {{q .Name}} } }
        wait_for_ip = { source = "lease", timeout = 300 }
      }`, map[string]string{"MAC": mac, "Name": name})},
			}.config(),
			Check: func(*terraform.State) error {
				applied = time.Now()
				out, err := virsh("net-dhcp-leases", name)
				if err != nil {
					return err
				}
				if !strings.Contains(out, mac) || !strings.Contains(out, guestIP) {
					return fmt.Errorf("the apply returned before the lease of %s existed:\n%s", mac, out)
				}
				t.Logf("wait_for_ip: the apply returned %s after it began, with the lease of %s (%s) present",
					applied.Sub(started).Round(time.Second), mac, guestIP)
				return nil
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}

// TestAccDomain_destroyWithoutACPIForcesOff: a running domain without ACPI
// and without a guest agent cannot receive a shutdown request, so destroy
// forces it off at once instead of waiting shutdown_timeout's 60 s. The
// destroy time is printed.
func TestAccDomain_destroyWithoutACPIForcesOff(t *testing.T) {
	testAccPreCheck(t)
	const name = "tfacc-noacpi"
	removeDomainLeftovers(t, name)
	t.Cleanup(func() { removeDomainLeftovers(t, name) })
	tofu := tofuWorkdir(t, t.TempDir(), renderConfig(`
resource "libvirt_domain" "vm" {
  name        = {{q .}}
  type        = {{q domainType}}
  memory      = 64
  memory_unit = "MiB"
  running     = true
  os          = { type = "hvm" }
}
`, name))
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	start := time.Now()
	if out, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("destroy failed (exit %d):\n%s", code, out)
	}
	took := time.Since(start)
	t.Logf("destroy of a running domain without ACPI or guest agent (shutdown_timeout 60s): %s", took.Round(100*time.Millisecond))
	if took > 20*time.Second {
		t.Errorf("destroy took %s: a domain that cannot receive a shutdown request should be forced off at once", took)
	}
}
