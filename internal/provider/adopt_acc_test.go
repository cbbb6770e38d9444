package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAccAdopt_keepsHostSwitches adopts objects that run outside this
// provider (a network, a pool and a running domain, all with autostart on,
// made with virsh) through import blocks and a short hand-written
// configuration that does not mention `running` or `autostart`. The plan
// must keep both switches as the host has them (unset means keep, not
// false), and the apply must leave the domain running without a restart and
// every autostart flag on.
func TestAccAdopt_keepsHostSwitches(t *testing.T) {
	testAccPreCheck(t)
	const name = "tfacc-adopt"
	removeDomainLeftovers(t, name)
	removeNetworkLeftovers(t, name+"-net")
	removePoolLeftovers(name + "-pool")
	dir := t.TempDir()
	poolDir := filepath.Join(dir, "pool")

	netXML := filepath.Join(dir, "net.xml")
	mustWrite(t, netXML, fmt.Sprintf(`<network><name>%s-net</name><ip address='10.233.7.1' prefix='24'/></network>`, name))
	mustVirsh(t, "net-define", netXML)
	t.Cleanup(func() { removeNetworkLeftovers(t, name+"-net") })
	mustVirsh(t, "net-start", name+"-net")
	mustVirsh(t, "net-autostart", name+"-net")

	poolXML := filepath.Join(dir, "pool.xml")
	mustWrite(t, poolXML, fmt.Sprintf(`<pool type='dir'><name>%s-pool</name><target><path>%s</path></target></pool>`, name, poolDir))
	mustVirsh(t, "pool-define", poolXML)
	t.Cleanup(func() { removePoolLeftovers(name + "-pool") })
	mustVirsh(t, "pool-build", name+"-pool")
	mustVirsh(t, "pool-start", name+"-pool")
	mustVirsh(t, "pool-autostart", name+"-pool")

	domXML := filepath.Join(dir, "dom.xml")
	mustWrite(t, domXML, fmt.Sprintf(`<domain type=%q>
  <name>%s</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type>hvm</type></os>
  <devices>
    <interface type='network'><source network='%s-net'/><model type='virtio'/></interface>
  </devices>
</domain>`, testAccDomainType(), name, name))
	mustVirsh(t, "define", domXML)
	t.Cleanup(func() { removeDomainLeftovers(t, name) })
	mustVirsh(t, "start", name)
	mustVirsh(t, "autostart", name)
	idBefore := strings.TrimSpace(mustVirsh(t, "domid", name))

	tofu := tofuWorkdir(t, dir, renderConfig(`
import {
  to = libvirt_network.net
  id = "{{.Name}}-net"
}
import {
  to = libvirt_pool.pool
  id = "{{.Name}}-pool"
}
import {
  to = libvirt_domain.vm
  id = "{{.Name}}"
}

# written by hand; no running, no autostart anywhere
resource "libvirt_network" "net" {
  name = "{{.Name}}-net"
  ips  = [{ address = "10.233.7.1", prefix = 24 }]
}

resource "libvirt_pool" "pool" {
  name   = "{{.Name}}-pool"
  type   = "dir"
  target = { path = {{q .PoolDir}} }
}

resource "libvirt_domain" "vm" {
  name        = "{{.Name}}"
  type        = {{q .Type}}
  memory      = 64
  memory_unit = "MiB"
  vcpu        = 1
  os          = { type = "hvm" }
  devices = {
    interfaces = [{ type = "network", model = { type = "virtio" }, source = { network = { network = libvirt_network.net.name } } }]
  }
}
`, map[string]any{"Name": name, "PoolDir": poolDir, "Type": testAccDomainType()}))

	changes := planChanges(t, tofu)
	want := map[string]map[string]bool{
		"libvirt_network.net": {"running": true, "autostart": true},
		"libvirt_pool.pool":   {"autostart": true},
		"libvirt_domain.vm":   {"running": true, "autostart": true},
	}
	for addr, rc := range changes {
		for attr, v := range want[addr] {
			if got, ok := rc.after[attr].(bool); !ok || got != v {
				t.Errorf("%s: planned %s = %v, want %v (the host's value)", addr, attr, rc.after[attr], v)
			}
		}
		for _, a := range rc.actions {
			if a == "delete" || a == "create" {
				t.Errorf("%s: adopting planned %v", addr, rc.actions)
			}
		}
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "step.plan"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	if id := strings.TrimSpace(mustVirsh(t, "domid", name)); id != idBefore {
		t.Errorf("the domain was restarted: ID %s before, %s after", idBefore, id)
	}
	for _, c := range [][]string{
		{"dominfo", name}, {"net-info", name + "-net"}, {"pool-info", name + "-pool"},
	} {
		if err := testCheckVirsh(regexp.MustCompile(`(?m)^Autostart:\s+(enable|yes)`), c...)(nil); err != nil {
			t.Errorf("autostart changed by the adoption: %v", err)
		}
	}
	// the switches stay the host's on later plans too: a domain stopped
	// outside the configuration is not started again
	mustVirsh(t, "destroy", name)
	out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode", "-target=libvirt_domain.vm")
	if code == 1 {
		t.Fatalf("plan failed:\n%s", out)
	}
	if strings.Contains(out, "running") {
		t.Errorf("a domain stopped on the host plans a change of running although the configuration leaves it unset:\n%s", out)
	}
}
