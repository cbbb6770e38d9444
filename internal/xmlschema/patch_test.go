package xmlschema

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Patch applies what the plan changes to the document libvirt holds now and
// keeps the rest: what the configuration never mentioned (addresses,
// controllers) and what changed outside (a description set with virsh).
func TestPatchKeepsWhatThePlanDoesNotChange(t *testing.T) {
	m := Domain()
	// state of a domain this configuration created: the user's shape
	prior := domainValues(t, handWrittenXML)
	// libvirt now: its fill-ins, plus a description and on_crash set with virsh
	live := domainValues(t, adoptedXML)
	// the plan changes vcpu only
	planned := domainValues(t, handWrittenXML)
	planned["vcpu"] = tftypes.NewValue(tftypes.Number, 2)

	doc, err := m.FromValues(m.Patch(prior, planned, live))
	if err != nil {
		t.Fatal(err)
	}
	if doc.VCPU == nil || doc.VCPU.Value != 2 {
		t.Errorf("the planned change is lost: vcpu %+v", doc.VCPU)
	}
	if doc.Description != "made with virsh" || doc.OnCrash != "restart" {
		t.Errorf("what was set outside the configuration is lost: description %q, on_crash %q", doc.Description, doc.OnCrash)
	}
	if len(doc.Devices.Controllers) != 2 || doc.Devices.MemBalloon == nil {
		t.Errorf("what libvirt filled in is lost: %d controllers, memballoon %v", len(doc.Devices.Controllers), doc.Devices.MemBalloon)
	}
	for _, d := range doc.Devices.Disks {
		if d.Address == nil {
			t.Errorf("disk %s lost its address", d.Target.Dev)
		}
	}
	if doc.Memory == nil || doc.Memory.Value*unitFactorOf(t, doc.Memory.Unit) != 64*1024*1024 {
		t.Errorf("memory %+v, want 64 MiB in some unit", doc.Memory)
	}
}

// A value and its unit come from the same side.
func TestPatchValueAndUnitTogether(t *testing.T) {
	m := Domain()
	prior := domainValues(t, handWrittenXML) // 64 MiB
	live := domainValues(t, adoptedXML)      // 65536 KiB
	planned := domainValues(t, strings.Replace(handWrittenXML, "<memory unit='MiB'>64</memory>", "<memory unit='MiB'>96</memory>", 1))
	doc, err := m.FromValues(m.Patch(prior, planned, live))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Memory.Value != 96 || doc.Memory.Unit != "MiB" {
		t.Errorf("memory %d %s, want 96 MiB", doc.Memory.Value, doc.Memory.Unit)
	}
}

// Removing what the user managed removes it, also from libvirt's document.
func TestPatchRemovesWhatThePlanRemoves(t *testing.T) {
	m := Domain()
	prior := domainValues(t, adoptedXML)
	live := domainValues(t, adoptedXML)
	planned := domainValues(t, adoptedXML)
	planned["on_crash"] = tftypes.NewValue(tftypes.String, nil)
	doc, err := m.FromValues(m.Patch(prior, planned, live))
	if err != nil {
		t.Fatal(err)
	}
	if doc.OnCrash != "" {
		t.Errorf("on_crash %q, want removed", doc.OnCrash)
	}
	if doc.Description != "made with virsh" {
		t.Errorf("description %q lost", doc.Description)
	}
}

func unitFactorOf(t *testing.T, unit string) uint {
	t.Helper()
	f, ok := UnitFactor(unit, "KiB")
	if !ok {
		t.Fatalf("unit %q", unit)
	}
	return uint(f.Uint64())
}
