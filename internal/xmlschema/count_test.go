package xmlschema

import (
	"testing"

	"libvirt.org/go/libvirtxml"
)

func TestBuildCounts(t *testing.T) {
	d, err := buildModel[libvirtxml.Domain](Policy{Root: "domain", DefaultUnit: "KiB"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("domain attributes: %d", d.Count())
	n, err := buildModel[libvirtxml.Network](Policy{Root: "network"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("network attributes: %d", n.Count())
}
