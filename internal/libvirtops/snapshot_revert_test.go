package libvirtops

import (
	"errors"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"
)

func TestExternalParts(t *testing.T) {
	var internal, external libvirtxml.DomainSnapshot
	if err := internal.Unmarshal(`<domainsnapshot><name>a</name><memory snapshot='internal'/><disks><disk name='vda' snapshot='internal'/><disk name='sda' snapshot='no'/></disks></domainsnapshot>`); err != nil {
		t.Fatal(err)
	}
	if got := externalParts(&internal); len(got) != 0 {
		t.Errorf("an internal snapshot has external parts %q", got)
	}
	if err := external.Unmarshal(`<domainsnapshot><name>b</name><memory snapshot='external' file='/m'/><disks><disk name='vda' snapshot='external'/><disk name='vdb' snapshot='internal'/></disks></domainsnapshot>`); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(externalParts(&external), ", "); got != "memory, disk vda" {
		t.Errorf("external parts %q, want memory, disk vda", got)
	}
	err := externalRevertError("b", externalParts(&external), 9000000)
	if !errors.Is(err, ErrExternalRevert) {
		t.Errorf("%v does not wrap ErrExternalRevert", err)
	}
	for _, want := range []string{`snapshot "b" keeps its memory, disk vda in separate files`, "this libvirt (9.0.0)", "needs libvirt 9.9 or later"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
