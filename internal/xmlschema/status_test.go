package xmlschema

import (
	"errors"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"
)

// A disk's mirror is block-job status: libvirt writes it while a copy runs
// and drops it from a definition it is given, so a configuration setting it
// ended in "inconsistent result after apply". Validate refuses it with its
// path and reason; a state or plan holding it (read during a block job) still
// converts, so an update of such a domain is not refused.
func TestStatusRefusedInConfigurationOnly(t *testing.T) {
	m := Domain()
	doc := &libvirtxml.Domain{
		Type: "qemu", Name: "v",
		Devices: &libvirtxml.DomainDeviceList{Disks: []libvirtxml.DomainDisk{{
			Source: &libvirtxml.DomainDiskSource{File: &libvirtxml.DomainDiskSourceFile{File: "/var/lib/libvirt/images/a.qcow2"}},
			Target: &libvirtxml.DomainDiskTarget{Dev: "vda", Bus: "virtio"},
			Mirror: &libvirtxml.DomainDiskMirror{
				Job:    "copy",
				Ready:  "yes",
				Format: &libvirtxml.DomainDiskFormat{Type: "qcow2"},
				Source: &libvirtxml.DomainDiskSource{File: &libvirtxml.DomainDiskSourceFile{File: "/var/lib/libvirt/images/b.qcow2"}},
			},
		}}},
	}
	vals := m.ToValues(doc)

	err := m.Validate(vals)
	var pe *PathError
	if !errors.As(err, &pe) {
		t.Fatalf("Validate with a disk mirror: want a PathError, got %v", err)
	}
	if got := pe.Error(); !strings.Contains(got, "devices.disks[0].mirror") || !strings.Contains(got, "block copy") {
		t.Errorf("Validate's error names neither the path nor the reason: %q", got)
	}

	if _, err := m.FromValues(vals); err != nil {
		t.Errorf("FromValues (plan or state read during a block job) refused the mirror: %v", err)
	}

	doc.Devices.Disks[0].Mirror = nil
	if err := m.Validate(m.ToValues(doc)); err != nil {
		t.Errorf("Validate without a mirror: %v", err)
	}
}
