package provider

import (
	"fmt"
	"strings"
	"testing"
)

// TestAccImport_countAndForEach adopts several existing volumes into one
// resource with count, and several networks into one with for_each, through
// import blocks with for_each (OpenTofu 1.7+, Terraform 1.7+) and a
// configuration written by hand: the plan imports and changes nothing, and
// so does the plan after the apply. This is the documented road for
// resources with count or for_each, which -generate-config-out refuses.
func TestAccImport_countAndForEach(t *testing.T) {
	testAccPreCheck(t)
	vols := []string{"tfacc-imp-0.qcow2", "tfacc-imp-1.qcow2"}
	nets := map[string]string{"a": "10.233.5.1", "b": "10.233.6.1"}
	removeStorageLeftovers(t, vols...)
	for k := range nets {
		removeNetworkLeftovers(t, "tfacc-imp-"+k)
	}
	dir := t.TempDir()
	for _, v := range vols {
		mustVirsh(t, "vol-create-as", testAccPool(), v, "16M", "--format", "qcow2")
	}
	t.Cleanup(func() { removeStorageLeftovers(t, vols...) })
	for k, ip := range nets {
		xml := fmt.Sprintf("%s/net-%s.xml", dir, k)
		mustWrite(t, xml, fmt.Sprintf(`<network><name>tfacc-imp-%s</name><ip address=%q prefix='24'/></network>`, k, ip))
		mustVirsh(t, "net-define", xml)
		mustVirsh(t, "net-start", "tfacc-imp-"+k)
	}
	t.Cleanup(func() { removeNetworkLeftovers(t, "tfacc-imp-a", "tfacc-imp-b") })

	tofu := tofuWorkdir(t, dir, renderConfig(`
locals {
  disks    = [{{q .Disk0}}, {{q .Disk1}}]
  networks = { a = "10.233.5.1", b = "10.233.6.1" }
}

import {
  for_each = { for i, name in local.disks : i => name }
  to       = libvirt_volume.disk[tonumber(each.key)]
  id       = "{{.Pool}}/${each.value}"
}

resource "libvirt_volume" "disk" {
  count  = length(local.disks)
  name   = local.disks[count.index]
  pool   = {{q .Pool}}
  target = { format = { type = "qcow2" } }
}

import {
  for_each = local.networks
  to       = libvirt_network.net[each.key]
  id       = "tfacc-imp-${each.key}"
}

resource "libvirt_network" "net" {
  for_each = local.networks
  name     = "tfacc-imp-${each.key}"
  ips      = [{ address = each.value, prefix = 24 }]
}
`, map[string]string{"Disk0": vols[0], "Disk1": vols[1], "Pool": testAccPool()}))

	out, code := tofu("plan", "-input=false", "-no-color")
	if code != 0 {
		t.Fatalf("plan failed (exit %d):\n%s", code, out)
	}
	if !strings.Contains(out, "Plan: 4 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Fatalf("the plan does more than import:\n%s", out)
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after the import is not empty (exit %d):\n%s", code, out)
	}
	if out, code := tofu("state", "list"); code != 0 || strings.Count(out, "\n") != 4 {
		t.Fatalf("state list:\n%s", out)
	}
}
