package xmlschema

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"
)

// libvirt replaces a machine alias by its versioned machine at define; the
// user's alias stays in state, a different machine shows as drift.
func TestReconcileMachineAlias(t *testing.T) {
	m := Domain()
	doc := func(machine string) map[string]tftypes.Value {
		return m.ToValues(&libvirtxml.Domain{Type: "qemu", Name: "x",
			OS: &libvirtxml.DomainOS{Type: &libvirtxml.DomainOSType{Type: "hvm", Machine: machine}}})
	}
	machineOf := func(vals map[string]tftypes.Value) string {
		var os map[string]tftypes.Value
		_ = vals["os"].As(&os)
		var s string
		_ = os["type_machine"].As(&s)
		return s
	}
	for _, c := range []struct{ user, libvirt, want string }{
		{"q35", "pc-q35-7.2", "q35"},
		{"pc", "pc-i440fx-7.2", "pc"},
		{"virt", "virt-7.2", "virt"},
		{"q35", "pc-i440fx-7.2", "pc-i440fx-7.2"}, // another machine: drift
		{"pc", "pc-q35-7.2", "pc-q35-7.2"},
		{"pc-q35-7.1", "pc-q35-7.2", "pc-q35-7.2"}, // versioned: exact
	} {
		got := machineOf(m.Reconcile(doc(c.user), doc(c.libvirt)))
		if got != c.want {
			t.Errorf("user %q, libvirt %q: state %q, want %q", c.user, c.libvirt, got, c.want)
		}
	}
}
