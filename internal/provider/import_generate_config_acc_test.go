package provider

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Adopting networks, pools and volumes built by hand: each is defined with
// virsh, imported with `tofu plan -generate-config-out`, and the next plan of
// the generated configuration must be empty (the domain case is
// TestAccDomain_generateConfig).

func TestAccNetwork_generateConfig(t *testing.T) {
	testAccPreCheck(t)
	name := "tfacc-net-gencfg"
	removeNetworkLeftovers(t, name)
	dir := t.TempDir()
	// NAT with DHCP (range, a reserved host), DNS hosts and a domain name:
	// the parts of a network that libvirt rewrites (bridge name, MAC, the
	// forward element's NAT ports).
	netXML := filepath.Join(dir, "net.xml")
	mustWrite(t, netXML, fmt.Sprintf(`<network>
  <name>%s</name>
  <forward mode='nat'/>
  <domain name='gencfg.test' localOnly='yes'/>
  <dns>
    <host ip='10.231.9.10'><hostname>db</hostname><hostname>db.gencfg.test</hostname></host>
  </dns>
  <ip address='10.231.9.1' prefix='24'>
    <dhcp>
      <range start='10.231.9.100' end='10.231.9.199'/>
      <host mac='52:54:00:aa:bb:01' name='web' ip='10.231.9.20'/>
    </dhcp>
  </ip>
</network>`, name))
	mustVirsh(t, "net-define", netXML)
	t.Cleanup(func() { removeNetworkLeftovers(t, name) })
	mustVirsh(t, "net-start", name)

	generateConfigRoundTrip(t, dir, map[string]string{"libvirt_network.imported": name})
	if err := testCheckVirshContains(name, "net-dumpxml", "10.231.9.20", "db.gencfg.test", "mode='nat'"); err != nil {
		t.Fatalf("the imported network changed: %v", err)
	}
}

func TestAccPool_generateConfig(t *testing.T) {
	testAccPreCheck(t)
	name := "tfacc-pool-gencfg"
	removePoolLeftovers(name)
	dir := t.TempDir()
	target := filepath.Join(dir, "pool")
	mustVirsh(t, "pool-define-as", name, "dir", "--target", target)
	t.Cleanup(func() { removePoolLeftovers(name) })
	mustVirsh(t, "pool-build", name)
	mustVirsh(t, "pool-start", name)
	uuid := mustVirsh(t, "pool-uuid", name)

	// by UUID: the other import form (name) is covered by the pool's ImportState step
	generateConfigRoundTrip(t, dir, map[string]string{"libvirt_pool.imported": uuid})
	if err := testCheckVirshContains(name, "pool-dumpxml", "<path>"+target+"</path>"); err != nil {
		t.Fatalf("the imported pool changed: %v", err)
	}
}

func TestAccVolume_generateConfig(t *testing.T) {
	testAccPreCheck(t)
	base, overlay := "tfacc-vol-gencfg-base.qcow2", "tfacc-vol-gencfg-overlay.qcow2"
	removeStorageLeftovers(t, overlay, base)
	dir := t.TempDir()
	pool := testAccPool()
	mustVirsh(t, "vol-create-as", pool, base, "32M", "--format", "qcow2")
	t.Cleanup(func() { removeStorageLeftovers(t, overlay, base) })
	basePath := mustVirsh(t, "vol-path", "--pool", pool, base)
	mustVirsh(t, "vol-create-as", pool, overlay, "64M", "--format", "qcow2", "--backing-vol", basePath, "--backing-vol-format", "qcow2")
	overlayKey := mustVirsh(t, "vol-key", "--pool", pool, overlay)

	// the two import forms: pool/name, and the volume key
	generateConfigRoundTrip(t, dir, map[string]string{
		"libvirt_volume.base":    pool + "/" + base,
		"libvirt_volume.overlay": overlayKey,
	})
	if err := testCheckVirshContains(overlay, "vol-dumpxml", "<path>"+basePath+"</path>"); err != nil {
		t.Fatalf("the imported overlay changed: %v", err)
	}
}

// testCheckVirshContains fails unless `virsh <cmd> <name>` prints every one of want.
func testCheckVirshContains(name, cmd string, want ...string) error {
	args := []string{cmd, name}
	if cmd == "vol-dumpxml" {
		args = []string{cmd, "--pool", testAccPool(), name}
	}
	out, err := virsh(args...)
	if err != nil {
		return err
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			return fmt.Errorf("virsh %s: no %q in:\n%s", strings.Join(args, " "), w, out)
		}
	}
	return nil
}

// removePoolLeftovers stops and undefines test pools (their directories are test temp dirs).
func removePoolLeftovers(names ...string) {
	for _, n := range names {
		_, _ = virsh("pool-destroy", n)
		_, _ = virsh("pool-undefine", n)
	}
}
