package xmlschema

import (
	"fmt"
	"testing"

	"libvirt.org/go/libvirtxml"
)

// BenchmarkBuildDomainModel measures a fresh build of the domain model (done
// once per provider process; NewModel caches it).
func BenchmarkBuildDomainModel(b *testing.B) {
	b.ReportAllocs()
	var n int
	for i := 0; i < b.N; i++ {
		m, err := buildModel[libvirtxml.Domain](DomainPolicy)
		if err != nil {
			b.Fatal(err)
		}
		n = m.Count()
	}
	b.ReportMetric(float64(n), "attributes")
}

// largeDomain is a synthetic guest with 20 disks and 20 interfaces, the
// devices libvirt writes back (addresses, aliases, drivers) filled in.
func largeDomain() *libvirtxml.Domain {
	d := &libvirtxml.Domain{
		Type: "qemu", Name: "large", UUID: "742b4a76-5db9-4919-bdc2-4a0d431f07c2",
		Memory:        &libvirtxml.DomainMemory{Value: 4, Unit: "GiB"},
		CurrentMemory: &libvirtxml.DomainCurrentMemory{Value: 4194304, Unit: "KiB"},
		VCPU:          &libvirtxml.DomainVCPU{Placement: "static", Value: 4},
		OS: &libvirtxml.DomainOS{
			Type:        &libvirtxml.DomainOSType{Arch: "x86_64", Machine: "pc-q35-7.2", Type: "hvm"},
			BootDevices: []libvirtxml.DomainBootDevice{{Dev: "hd"}},
		},
		Devices: &libvirtxml.DomainDeviceList{Emulator: "/usr/bin/qemu-system-x86_64"},
	}
	for i := 0; i < 20; i++ {
		slot := uint(i + 1)
		bus, dom, fn := uint(i+1), uint(0), uint(0)
		d.Devices.Disks = append(d.Devices.Disks, libvirtxml.DomainDisk{
			Device: "disk",
			Driver: &libvirtxml.DomainDiskDriver{Name: "qemu", Type: "qcow2", Cache: "none"},
			Source: &libvirtxml.DomainDiskSource{Volume: &libvirtxml.DomainDiskSourceVolume{Pool: "default", Volume: fmt.Sprintf("disk%d.qcow2", i)}},
			Target: &libvirtxml.DomainDiskTarget{Dev: fmt.Sprintf("vd%c", 'a'+i), Bus: "virtio"},
			Alias:  &libvirtxml.DomainAlias{Name: fmt.Sprintf("virtio-disk%d", i)},
			Address: &libvirtxml.DomainAddress{PCI: &libvirtxml.DomainAddressPCI{
				Domain: &dom, Bus: &bus, Slot: new(uint), Function: &fn}},
		})
		d.Devices.Interfaces = append(d.Devices.Interfaces, libvirtxml.DomainInterface{
			MAC:    &libvirtxml.DomainInterfaceMAC{Address: fmt.Sprintf("52:54:00:00:00:%02x", i)},
			Source: &libvirtxml.DomainInterfaceSource{Network: &libvirtxml.DomainInterfaceSourceNetwork{Network: "default", Bridge: "virbr0"}},
			Target: &libvirtxml.DomainInterfaceTarget{Dev: fmt.Sprintf("vnet%d", i)},
			Model:  &libvirtxml.DomainInterfaceModel{Type: "virtio"},
			Alias:  &libvirtxml.DomainAlias{Name: fmt.Sprintf("net%d", i)},
			Address: &libvirtxml.DomainAddress{PCI: &libvirtxml.DomainAddressPCI{
				Domain: &dom, Bus: &bus, Slot: &slot, Function: &fn}},
		})
	}
	return d
}

func BenchmarkDomainToValuesLarge(b *testing.B) {
	m, doc := Domain(), largeDomain()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m.ToValues(doc)
	}
}

func BenchmarkDomainFromValuesLarge(b *testing.B) {
	m := Domain()
	vals := m.ToValues(largeDomain())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.FromValues(vals); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLargeDomainRoundTrip makes sure the benchmarked conversion is a real one:
// the synthetic document survives it.
func TestLargeDomainRoundTrip(t *testing.T) {
	m, doc := Domain(), largeDomain()
	want, err := doc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := m.FromValues(m.ToValues(doc))
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if canonical(t, []byte(want)) != canonical(t, []byte(got)) {
		t.Fatalf("large domain differs after the round trip\nwant: %s\n got: %s", want, got)
	}
}
