package storage

import (
	"strings"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"
)

// The copy's destination is the pool's RBD image with the pool's monitors,
// user and secret: a pool's <auth type='ceph'> becomes a disk's secret of
// type ceph.
func TestRBDDiskSourceFromPool(t *testing.T) {
	pool := &libvirtxml.StoragePool{Type: "rbd", Source: &libvirtxml.StoragePoolSource{
		Name: "images",
		Host: []libvirtxml.StoragePoolSourceHost{{Name: "mon1", Port: "6789"}, {Name: "mon2", Port: "3300"}},
		Auth: &libvirtxml.StoragePoolSourceAuth{Type: "ceph", Username: "libvirt",
			Secret: &libvirtxml.StoragePoolSourceAuthSecret{UUID: "0a5e9b3f-0000-4000-8000-000000000001"}},
	}}
	src, err := rbdDiskSource(pool, libvirt.StorageVol{Name: "vm-root"})
	if err != nil {
		t.Fatal(err)
	}
	disk := libvirtxml.DomainDisk{Source: &libvirtxml.DomainDiskSource{Network: src}}
	xml, err := disk.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<source protocol="rbd" name="images/vm-root">`,
		`<host name="mon1" port="6789"></host>`, `<host name="mon2" port="3300"></host>`,
		`<auth username="libvirt">`, `<secret type="ceph" uuid="0a5e9b3f-0000-4000-8000-000000000001"></secret>`,
	} {
		if !strings.Contains(xml, want) {
			t.Errorf("disk XML lacks %s:\n%s", want, xml)
		}
	}
	if _, err := rbdDiskSource(&libvirtxml.StoragePool{Type: "rbd"}, libvirt.StorageVol{Name: "x"}); err == nil ||
		!strings.Contains(err.Error(), "source.name") {
		t.Errorf("a pool without source.name: got %v, want an error naming source.name", err)
	}
}

// The copy domain holds only the staged file, in its format, under a name
// that the cleanup after a broken connection finds by prefix.
func TestCopyDomainXML(t *testing.T) {
	xml, err := copyDomainXML("vol1", "/pool/vol1.rbd-staging", "qcow2")
	if err != nil {
		t.Fatal(err)
	}
	var dom libvirtxml.Domain
	if err := dom.Unmarshal(xml); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dom.Name, CopyDomainPrefix("vol1")) || len(dom.Name) != len(CopyDomainPrefix("vol1"))+8 {
		t.Errorf("name %q: want %s + 8 hex digits", dom.Name, CopyDomainPrefix("vol1"))
	}
	if dom.Type != "qemu" || len(dom.Devices.Disks) != 1 || len(dom.Devices.Interfaces) != 0 {
		t.Fatalf("want a qemu domain with one disk and no NIC: %s", xml)
	}
	d := dom.Devices.Disks[0]
	if d.Source.File.File != "/pool/vol1.rbd-staging" || d.Driver.Type != "qcow2" || d.Target.Dev != "vda" {
		t.Errorf("disk: %s", xml)
	}
	other, _ := copyDomainXML("vol1", "/pool/vol1.rbd-staging", "qcow2")
	if other == xml {
		t.Error("two copy domains of one volume got the same name")
	}
}
