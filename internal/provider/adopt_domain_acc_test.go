package provider

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestAccAdopt_domainPlansOnlyImports adopts a network, a pool, a volume and
// a running domain that were made with virsh from XML written by hand, with
// import blocks and a short hand-written configuration. The configuration
// leaves out most of what the domain has: what libvirt filled in (PCI
// addresses, controllers, USB, input, video, memballoon, the versioned
// machine, currentMemory) and what the author of the XML wrote but the
// configuration does not manage (description, on_crash, ACPI, serial and
// console, VNC), and it spells values differently (64 MiB where libvirt
// stores 65536 KiB, q35 where it stores pc-q35-7.2). Then:
//
//  1. the plan shows only the four imports, and applying it changes nothing
//     (same inactive XML, no restart);
//  2. a deliberate change (memory and a title) plans exactly those
//     attributes, and the apply changes exactly those elements of the XML;
//  3. removing the title, which the configuration now manages, plans
//     exactly its removal and removes it; everything else stays;
//  4. the plan after that is empty.
func TestAccAdopt_domainPlansOnlyImports(t *testing.T) {
	testAccPreCheck(t)
	const name = "tfacc-adoptdom"
	pool, vol := testAccPool(), name+".qcow2"
	removeDomainLeftovers(t, name)
	removeNetworkLeftovers(t, name+"-net")
	removePoolLeftovers(name + "-pool")
	_, _ = virsh("vol-delete", "--pool", pool, vol)
	dir := t.TempDir()

	netXML := filepath.Join(dir, "net.xml")
	mustWrite(t, netXML, fmt.Sprintf(`<network>
  <name>%s-net</name>
  <ip address='10.233.8.1' prefix='24'>
    <dhcp>
      <range start='10.233.8.10' end='10.233.8.50'/>
      <host mac='52:54:00:ad:0b:01' ip='10.233.8.11'/>
    </dhcp>
  </ip>
</network>`, name))
	mustVirsh(t, "net-define", netXML)
	t.Cleanup(func() { removeNetworkLeftovers(t, name+"-net") })
	mustVirsh(t, "net-start", name+"-net")

	poolDir := filepath.Join(dir, "pool")
	poolXML := filepath.Join(dir, "pool.xml")
	mustWrite(t, poolXML, fmt.Sprintf(`<pool type='dir'><name>%s-pool</name><target><path>%s</path></target></pool>`, name, poolDir))
	mustVirsh(t, "pool-define", poolXML)
	t.Cleanup(func() { removePoolLeftovers(name + "-pool") })
	mustVirsh(t, "pool-build", name+"-pool")
	mustVirsh(t, "pool-start", name+"-pool")

	volXML := filepath.Join(dir, "vol.xml")
	mustWrite(t, volXML, fmt.Sprintf(`<volume><name>%s</name><capacity unit='MiB'>16</capacity><target><format type='qcow2'/></target></volume>`, vol))
	mustVirsh(t, "vol-create", pool, volXML)
	t.Cleanup(func() { _, _ = virsh("vol-delete", "--pool", pool, vol) })

	domXML := filepath.Join(dir, "dom.xml")
	mustWrite(t, domXML, fmt.Sprintf(`<domain type=%q>
  <name>%s</name>
  <description>made with virsh, adopted later</description>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type machine='q35'>hvm</type><boot dev='hd'/></os>
  <features><acpi/></features>
  <on_crash>restart</on_crash>
  <devices>
    <disk type='volume' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source pool='%s' volume='%s'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <interface type='network'>
      <mac address='52:54:00:ad:0b:01'/>
      <source network='%s-net'/>
      <model type='virtio'/>
    </interface>
    <serial type='pty'><target port='0'/></serial>
    <console type='pty'><target type='serial' port='0'/></console>
    <graphics type='vnc' autoport='yes' listen='127.0.0.1'/>
  </devices>
</domain>`, testAccDomainType(), name, pool, vol, name))
	mustVirsh(t, "define", domXML)
	t.Cleanup(func() { removeDomainLeftovers(t, name) })
	mustVirsh(t, "start", name)
	idBefore := strings.TrimSpace(mustVirsh(t, "domid", name))
	xmlBefore := mustVirsh(t, "dumpxml", "--inactive", name)
	for _, filled := range []string{"<address type='pci'", "model='pcie-root'", "<memballoon", "<currentMemory", "machine='pc-q35-"} {
		if !strings.Contains(xmlBefore, filled) {
			t.Fatalf("libvirt did not fill in %q; the test needs it to mean anything:\n%s", filled, xmlBefore)
		}
	}

	config := func(domainExtra string) string {
		return renderConfig(`
import {
  to = libvirt_network.net
  id = "{{.Name}}-net"
}
import {
  to = libvirt_pool.pool
  id = "{{.Name}}-pool"
}
import {
  to = libvirt_volume.disk
  id = "{{.Pool}}/{{.Vol}}"
}
import {
  to = libvirt_domain.vm
  id = "{{.Name}}"
}

# written by hand from what the virsh XML says; most of the domain is left out
resource "libvirt_network" "net" {
  name = "{{.Name}}-net"
  ips = [{
    address = "10.233.8.1"
    prefix  = 24
    dhcp = {
      ranges = [{ start = "10.233.8.10", end = "10.233.8.50" }]
      hosts  = [{ mac = "52:54:00:AD:0B:01", ip = "10.233.8.11" }]
    }
  }]
}

resource "libvirt_pool" "pool" {
  name   = "{{.Name}}-pool"
  type   = "dir"
  target = { path = {{q .PoolDir}} }
}

resource "libvirt_volume" "disk" {
  name = "{{.Vol}}"
  pool = "{{.Pool}}"
}

resource "libvirt_domain" "vm" {
  name        = "{{.Name}}"
  type        = {{q .Type}}
  memory      = {{.DomainExtra}}
  vcpu        = 1
  os          = { type = "hvm", type_machine = "q35" }
  devices = {
    disks = [{
      source = { volume = { pool = libvirt_volume.disk.pool, volume = libvirt_volume.disk.name } }
      target = { dev = "vda", bus = "virtio" }
    }]
    interfaces = [{
      source = { network = { network = libvirt_network.net.name } }
      model  = { type = "virtio" }
    }]
  }
}
`, map[string]any{"Name": name, "Pool": pool, "Vol": vol, "PoolDir": poolDir, "Type": testAccDomainType(), "DomainExtra": domainExtra})
	}
	tofu := tofuWorkdir(t, dir, config("64\n  memory_unit = \"MiB\""))

	// 1. only imports
	changes := planChanges(t, tofu)
	for _, addr := range []string{"libvirt_network.net", "libvirt_pool.pool", "libvirt_volume.disk", "libvirt_domain.vm"} {
		c, ok := changes[addr]
		if !ok {
			t.Fatalf("%s: not in the plan", addr)
		}
		if !c.importing || !reflect.DeepEqual(c.actions, []string{"no-op"}) || len(c.changed) > 0 {
			t.Errorf("%s: want an import and nothing else, got import=%v actions=%v changed=%v", addr, c.importing, c.actions, c.changed)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply of the imports failed (exit %d):\n%s", code, out)
	}
	if xml := mustVirsh(t, "dumpxml", "--inactive", name); xml != xmlBefore {
		t.Errorf("the import changed the domain:\n%s", lineDiff(xmlBefore, xml))
	}
	if id := strings.TrimSpace(mustVirsh(t, "domid", name)); id != idBefore {
		t.Fatalf("the domain was restarted by the import: ID %s before, %s after", idBefore, id)
	}

	// 2. a deliberate change plans exactly that change
	tofu = tofuWorkdir(t, dir, config("96\n  memory_unit = \"MiB\"\n  title       = \"adopted\""))
	changes = planChanges(t, tofu)
	// memory_unit changes with memory: state held libvirt's 65536 KiB, and 96 MiB is a new value
	if got, want := changes["libvirt_domain.vm"].changed, []string{"memory", "memory_unit", "title"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the domain plan changes %v, want exactly %v", got, want)
	}
	for _, addr := range []string{"libvirt_network.net", "libvirt_pool.pool", "libvirt_volume.disk"} {
		if c := changes[addr]; len(c.changed) > 0 {
			t.Errorf("%s: plans changes %v", addr, c.changed)
		}
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply of the change failed (exit %d):\n%s", code, out)
	}
	xmlAfter := mustVirsh(t, "dumpxml", "--inactive", name)
	if got := changedLines(xmlBefore, xmlAfter); !reflect.DeepEqual(got, []string{
		"- <memory unit='KiB'>65536</memory>",
		"+ <memory unit='KiB'>98304</memory>",
		"+ <title>adopted</title>",
	}) {
		t.Errorf("the apply changed other parts of the domain than memory and title:\n%s", lineDiff(xmlBefore, xmlAfter))
	}
	if id := strings.TrimSpace(mustVirsh(t, "domid", name)); id != idBefore {
		t.Errorf("the domain was restarted: ID %s before, %s after", idBefore, id)
	}

	// 3. removing what the configuration now manages removes it
	tofu = tofuWorkdir(t, dir, config("96\n  memory_unit = \"MiB\""))
	changes = planChanges(t, tofu)
	if got, want := changes["libvirt_domain.vm"].changed, []string{"title"}; !reflect.DeepEqual(got, want) {
		t.Errorf("removing the title plans changes of %v, want exactly %v", got, want)
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply of the removal failed (exit %d):\n%s", code, out)
	}
	xmlFinal := mustVirsh(t, "dumpxml", "--inactive", name)
	if got := changedLines(xmlBefore, xmlFinal); !reflect.DeepEqual(got, []string{
		"- <memory unit='KiB'>65536</memory>",
		"+ <memory unit='KiB'>98304</memory>",
	}) {
		t.Errorf("after removing the title, the domain differs from the virsh definition by more than its memory:\n%s", lineDiff(xmlBefore, xmlFinal))
	}

	// 4. converged
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("the plan after the adoption is not empty (exit %d):\n%s", code, out)
	}
}

// plannedChange is one resource's entry in a plan: its actions, whether it
// is imported, and the top-level attributes whose value changes.
type plannedChange struct {
	actions   []string
	importing bool
	changed   []string
	after     map[string]any
}

// planChanges runs tofu plan and reads the resource changes from its JSON.
func planChanges(t *testing.T, tofu func(args ...string) (string, int)) map[string]plannedChange {
	t.Helper()
	if out, code := tofu("plan", "-input=false", "-no-color", "-out=step.plan"); code != 0 {
		t.Fatalf("plan failed (exit %d):\n%s", code, out)
	}
	show, code := tofu("show", "-json", "step.plan")
	if code != 0 {
		t.Fatalf("show -json failed:\n%s", show)
	}
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions      []string        `json:"actions"`
				Before       map[string]any  `json:"before"`
				After        map[string]any  `json:"after"`
				AfterUnknown any             `json:"after_unknown"`
				Importing    json.RawMessage `json:"importing"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(show), &plan); err != nil {
		t.Fatalf("plan JSON: %v", err)
	}
	out := map[string]plannedChange{}
	for _, rc := range plan.ResourceChanges {
		pc := plannedChange{actions: rc.Change.Actions, importing: len(rc.Change.Importing) > 0 && string(rc.Change.Importing) != "null", after: rc.Change.After}
		pc.changed = diffPaths("", rc.Change.Before, rc.Change.After, rc.Change.AfterUnknown)
		sort.Strings(pc.changed)
		out[rc.Address] = pc
	}
	return out
}

// diffPaths lists the paths of the leaves that differ between before and
// after, or that are unknown after (afterUnknown mirrors after with true at
// unknown values), as dotted paths with list indices: "devices.disks.0.target".
func diffPaths(prefix string, before, after, afterUnknown any) []string {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	if u, ok := afterUnknown.(bool); ok && u {
		return []string{prefix + " (known after apply)"}
	}
	switch a := after.(type) {
	case map[string]any:
		b, _ := before.(map[string]any)
		u, _ := afterUnknown.(map[string]any)
		var out []string
		for k := range a {
			out = append(out, diffPaths(join(k), b[k], a[k], u[k])...)
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				// tofu leaves unknown values out of after
				if unk, _ := u[k].(bool); unk {
					out = append(out, join(k)+" (known after apply)")
				} else {
					out = append(out, join(k))
				}
			}
		}
		return out
	case []any:
		b, _ := before.([]any)
		u, _ := afterUnknown.([]any)
		var out []string
		for i := range a {
			var bi, ui any
			if i < len(b) {
				bi = b[i]
			}
			if i < len(u) {
				ui = u[i]
			}
			out = append(out, diffPaths(join(fmt.Sprint(i)), bi, a[i], ui)...)
		}
		for i := len(a); i < len(b); i++ {
			out = append(out, join(fmt.Sprint(i)))
		}
		return out
	}
	if !reflect.DeepEqual(before, after) {
		return []string{prefix}
	}
	return nil
}

// changedLines lists the lines only in a ("- ") and only in b ("+ "),
// trimmed, in that order.
func changedLines(a, b string) []string {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[strings.TrimSpace(l)]++
	}
	for _, l := range strings.Split(b, "\n") {
		count[strings.TrimSpace(l)]--
	}
	var minus, plus []string
	for l, n := range count {
		for ; n > 0; n-- {
			minus = append(minus, "- "+l)
		}
		for ; n < 0; n++ {
			plus = append(plus, "+ "+l)
		}
	}
	sort.Strings(minus)
	sort.Strings(plus)
	return append(minus, plus...)
}

func lineDiff(a, b string) string {
	return strings.Join(changedLines(a, b), "\n")
}
