package xmlschema

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"
)

// adoptedXML is a domain as libvirt reports it after `virsh define` of a
// short hand-written document: libvirt filled in the versioned machine,
// currentMemory, addresses, controllers and the memballoon; the author wrote
// the description and on_crash.
const adoptedXML = `<domain type='qemu'>
  <name>vm</name>
  <uuid>8defc165-c596-405b-8d7b-e93fbf615180</uuid>
  <description>made with virsh</description>
  <memory unit='KiB'>65536</memory>
  <currentMemory unit='KiB'>65536</currentMemory>
  <vcpu placement='static'>1</vcpu>
  <os><type arch='x86_64' machine='pc-q35-7.2'>hvm</type><boot dev='hd'/></os>
  <on_crash>restart</on_crash>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source file='/var/lib/libvirt/images/a.qcow2'/>
      <target dev='vda' bus='virtio'/>
      <address type='pci' domain='0x0000' bus='0x04' slot='0x00' function='0x0'/>
    </disk>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source file='/var/lib/libvirt/images/b.qcow2'/>
      <target dev='vdb' bus='virtio'/>
      <address type='pci' domain='0x0000' bus='0x05' slot='0x00' function='0x0'/>
    </disk>
    <controller type='pci' index='0' model='pcie-root'/>
    <controller type='sata' index='0'>
      <address type='pci' domain='0x0000' bus='0x00' slot='0x1f' function='0x2'/>
    </controller>
    <interface type='network'>
      <mac address='52:54:00:ad:0b:01'/>
      <source network='lab'/>
      <model type='virtio'/>
      <address type='pci' domain='0x0000' bus='0x01' slot='0x00' function='0x0'/>
    </interface>
    <memballoon model='virtio'>
      <address type='pci' domain='0x0000' bus='0x03' slot='0x00' function='0x0'/>
    </memballoon>
  </devices>
</domain>`

// handWrittenXML is what a user writes for it: other spellings (64 MiB, q35), no
// addresses, no MAC, the disks in another order.
const handWrittenXML = `<domain type='qemu'>
  <name>vm</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type machine='q35'>hvm</type></os>
  <devices>
    <disk device='disk'><source file='/var/lib/libvirt/images/b.qcow2'/><target dev='vdb' bus='virtio'/></disk>
    <disk device='disk'><source file='/var/lib/libvirt/images/a.qcow2'/><target dev='vda' bus='virtio'/></disk>
    <interface type='network'><source network='lab'/><model type='virtio'/></interface>
  </devices>
</domain>`

func domainValues(t *testing.T, x string) map[string]tftypes.Value {
	t.Helper()
	var d libvirtxml.Domain
	if err := d.Unmarshal(x); err != nil {
		t.Fatal(err)
	}
	return Domain().ToValues(&d)
}

// changedAttrs lists the top-level attributes whose planned value differs
// from the prior one.
func changedAttrs(planned, prior map[string]tftypes.Value) []string {
	var out []string
	for k, v := range planned {
		if !v.Equal(prior[k]) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func TestPlanUpdateAdoptionKeepsWhatLibvirtHas(t *testing.T) {
	m := Domain()
	prior := domainValues(t, adoptedXML)
	config := domainValues(t, handWrittenXML)
	planned := planOf(m.PlanUpdate(config, prior, nil, false))
	if got := changedAttrs(planned, prior); len(got) > 0 {
		for _, k := range got {
			diffs, _ := planned[k].Diff(prior[k])
			for _, d := range diffs {
				t.Errorf("%s: planned %v, prior %v", d.Path, d.Value1, d.Value2)
			}
		}
	}
	// the same plan from a configuration that writes libvirt's spellings
	if got := changedAttrs(planOf(m.PlanUpdate(domainValues(t, adoptedXML), prior, nil, false)), prior); len(got) > 0 {
		t.Errorf("the full document plans changes of %v", got)
	}
}

func TestPlanUpdateDeliberateChange(t *testing.T) {
	m := Domain()
	prior := domainValues(t, adoptedXML)
	config := domainValues(t, handWrittenXML)
	config["memory"] = tftypes.NewValue(tftypes.Number, 96)
	config["title"] = tftypes.NewValue(tftypes.String, "adopted")
	planned := planOf(m.PlanUpdate(config, prior, nil, true))
	if got, want := changedAttrs(planned, prior), []string{"memory", "memory_unit", "title"}; !slices.Equal(got, want) {
		t.Fatalf("changed %v, want %v", got, want)
	}
	doc, err := m.FromValues(planned)
	if err != nil {
		t.Fatal(err)
	}
	// the configuration lists vdb first; unchanged disks keep libvirt's order and addresses
	for i, want := range []struct {
		dev string
		bus uint
	}{{"vda", 4}, {"vdb", 5}} {
		d := doc.Devices.Disks[i]
		if d.Target.Dev != want.dev || d.Address == nil || d.Address.PCI == nil || d.Address.PCI.Bus == nil || *d.Address.PCI.Bus != want.bus {
			t.Errorf("disk %d: want %s on bus %d (as libvirt has it), got %+v at %+v", i, want.dev, want.bus, d.Target, d.Address)
		}
	}
	if len(doc.Devices.Controllers) != 2 || doc.Description != "made with virsh" || doc.OnCrash != "restart" {
		t.Errorf("what the configuration does not mention was not kept: %d controllers, description %q, on_crash %q",
			len(doc.Devices.Controllers), doc.Description, doc.OnCrash)
	}
}

func TestPlanUpdateRecordedShape(t *testing.T) {
	m := Domain()
	prior := domainValues(t, adoptedXML)
	config := domainValues(t, handWrittenXML)
	config["title"] = tftypes.NewValue(tftypes.String, "adopted")
	shape := m.ShapeOf(config)
	prior = planOf(m.PlanUpdate(config, prior, nil, true)) // as applied: the state now holds the title

	// the title is removed from the configuration: it was managed, so it goes
	delete(config, "title")
	planned := planOf(m.PlanUpdate(config, prior, shapeRoundTrip(t, shape), false))
	if got := changedAttrs(planned, prior); !slices.Equal(got, []string{"title"}) || !planned["title"].IsNull() {
		t.Errorf("removing a managed attribute plans %v (title %v), want only the title removed", got, planned["title"])
	}
	// the description was never in the configuration: it stays
	if planned["description"].IsNull() {
		t.Error("the description, never managed, was planned for removal")
	}

	// without a record, the same removal keeps the value (adoption)
	if got := changedAttrs(planOf(m.PlanUpdate(config, prior, nil, false)), prior); len(got) > 0 {
		t.Errorf("without a record, plans %v", got)
	}

}

// A managed attribute of a list element removed from the configuration goes,
// from the element it belongs to even when the configuration reorders the
// list; what the element has from libvirt stays.
func TestPlanUpdateRecordedShapeInLists(t *testing.T) {
	m := Domain()
	config := domainValues(t, handWrittenXML) // vdb, vda; both with bus
	shape := shapeRoundTrip(t, m.ShapeOf(config))
	prior := planOf(m.PlanUpdate(config, domainValues(t, adoptedXML), nil, true))

	reordered := domainValues(t, `<domain type='qemu'>
  <name>vm</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type machine='q35'>hvm</type></os>
  <devices>
    <disk device='disk'><source file='/var/lib/libvirt/images/a.qcow2'/><target dev='vda' bus='virtio'/></disk>
    <disk device='disk'><source file='/var/lib/libvirt/images/b.qcow2'/><target dev='vdb'/></disk>
    <interface type='network'><source network='lab'/><model type='virtio'/></interface>
  </devices>
</domain>`)
	doc, err := m.FromValues(planOf(m.PlanUpdate(reordered, prior, shape, true)))
	if err != nil {
		t.Fatal(err)
	}
	a, b := doc.Devices.Disks[0], doc.Devices.Disks[1]
	if a.Target.Dev != "vda" || a.Target.Bus != "virtio" || a.Address == nil || *a.Address.PCI.Bus != 4 {
		t.Errorf("vda: %+v %+v", a.Target, a.Address)
	}
	if b.Target.Dev != "vdb" || b.Target.Bus != "" || b.Address == nil || *b.Address.PCI.Bus != 5 {
		t.Errorf("vdb: want its bus removed (managed) and its address kept, got %+v %+v", b.Target, b.Address)
	}
}

// Setting another member of a choice drops the member kept from the prior
// state, and the derived type follows the member.
func TestPlanUpdateChoiceSwitch(t *testing.T) {
	m := Domain()
	prior := domainValues(t, adoptedXML)
	config := domainValues(t, strings.Replace(handWrittenXML,
		`<interface type='network'><source network='lab'/>`, `<interface type='bridge'><source bridge='br0'/>`, 1))
	doc, err := m.FromValues(planOf(m.PlanUpdate(config, prior, nil, true)))
	if err != nil {
		t.Fatal(err)
	}
	src := doc.Devices.Interfaces[0].Source
	if src.Network != nil || src.Bridge == nil || src.Bridge.Bridge != "br0" {
		t.Errorf("interface source: network %+v, bridge %+v", src.Network, src.Bridge)
	}
	if doc.Devices.Interfaces[0].MAC == nil || doc.Devices.Interfaces[0].MAC.Address != "52:54:00:ad:0b:01" {
		t.Errorf("the MAC libvirt chose was not kept: %+v", doc.Devices.Interfaces[0].MAC)
	}
}

// Unknown configuration values are planned unknown and their subtree counts
// as managed.
func TestPlanUpdateUnknown(t *testing.T) {
	m := Domain()
	prior := domainValues(t, adoptedXML)
	config := domainValues(t, handWrittenXML)
	config["description"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	planned := planOf(m.PlanUpdate(config, prior, nil, true))
	if planned["description"].IsKnown() {
		t.Errorf("description planned %v, want unknown", planned["description"])
	}
	shape := shapeRoundTrip(t, m.ShapeOf(config))
	if !shape.Managed("description") || !shape.Attr("description").Managed("anything") {
		t.Error("an unknown value is not recorded as a managed subtree")
	}
	if shape.Managed("title") || shape.Attr("devices").Attr("disks").Elem(2) != nil {
		t.Error("the shape records what the configuration does not set")
	}
}

func shapeRoundTrip(t *testing.T, s *Shape) *Shape {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	out := new(Shape)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	b2, _ := json.Marshal(out)
	if string(b) != string(b2) {
		t.Fatalf("shape JSON does not round-trip: %s, then %s", b, b2)
	}
	return out
}

// planOf drops the record PlanUpdate returns beside the planned value.
func planOf(v map[string]tftypes.Value, _ *Shape) map[string]tftypes.Value { return v }

// The record PlanUpdate returns follows the planned order: when a reordered
// list keeps libvirt's order, each element keeps the record of the
// configuration element it came from.
func TestPlanUpdateRecordFollowsThePlannedOrder(t *testing.T) {
	m := Domain()
	prior := domainValues(t, adoptedXML) // vda, vdb; both bus virtio
	disks := func(vdb, vda string) map[string]tftypes.Value {
		return domainValues(t, `<domain type='qemu'><name>vm</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>
  <os><type machine='q35'>hvm</type></os>
  <devices>
    <disk device='disk'><source file='/var/lib/libvirt/images/b.qcow2'/>`+vdb+`</disk>
    <disk device='disk'><source file='/var/lib/libvirt/images/a.qcow2'/>`+vda+`</disk>
    <interface type='network'><source network='lab'/><model type='virtio'/></interface>
  </devices></domain>`)
	}
	// vdb with its bus, vda without: the same disks as libvirt's, other order
	first, rec := m.PlanUpdate(disks(`<target dev='vdb' bus='virtio'/>`, `<target dev='vda'/>`), prior, nil, false)
	if got := changedAttrs(first, prior); len(got) > 0 {
		t.Fatalf("the reordered configuration plans changes of %v", got)
	}
	// then the bus of vdb is removed from the configuration: only vdb loses it
	second, _ := m.PlanUpdate(disks(`<target dev='vdb'/>`, `<target dev='vda'/>`), first, shapeRoundTrip(t, rec), true)
	doc, err := m.FromValues(second)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range doc.Devices.Disks {
		want := map[string]string{"vda": "virtio", "vdb": ""}[d.Target.Dev]
		if d.Target.Bus != want {
			t.Errorf("%s: bus %q, want %q (vdb's bus was managed and removed, vda's never was)", d.Target.Dev, d.Target.Bus, want)
		}
	}
}
