package xmlschema

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"
)

// TestReconcileElidedChannelMode: libvirt stores a guest agent channel
// written as <source mode='bind'/> without its source (the XML below is what
// `virsh dumpxml --inactive` shows for it), yet binds when the domain starts.
// The user's mode survives the read; a mode libvirt does store is drift as
// usual, and the rule holds only where the policy names it.
func TestReconcileElidedChannelMode(t *testing.T) {
	m := Domain()
	parse := func(devices string) map[string]tftypes.Value {
		var d libvirtxml.Domain
		if err := d.Unmarshal(`<domain type='qemu'><name>x</name><devices>` + devices + `</devices></domain>`); err != nil {
			t.Fatal(err)
		}
		return m.ToValues(&d)
	}
	mode := func(vals map[string]tftypes.Value, list string) string {
		var devices map[string]tftypes.Value
		_ = vals["devices"].As(&devices)
		var elems []tftypes.Value
		_ = devices[list].As(&elems)
		if len(elems) != 1 {
			t.Fatalf("%s: %d elements after the read, want 1", list, len(elems))
		}
		v := elems[0]
		for _, name := range []string{"source", "unix", "mode"} {
			var attrs map[string]tftypes.Value
			if v.IsNull() || v.As(&attrs) != nil {
				return "<null>"
			}
			v = attrs[name]
		}
		var s string
		if v.IsNull() || v.As(&s) != nil {
			return "<null>"
		}
		return s
	}
	agent := `<target type='virtio' name='org.qemu.guest_agent.0'/>`
	for _, c := range []struct {
		name, list, user, libvirt, want string
	}{
		{"agent channel, path generated", "channels",
			`<channel type='unix'><source mode='bind'/>` + agent + `</channel>`,
			`<channel type='unix'>` + agent + `</channel>`, "bind"},
		{"channel changed outside to connect", "channels",
			`<channel type='unix'><source mode='bind'/>` + agent + `</channel>`,
			`<channel type='unix'><source mode='connect' path='/run/x.sock'/>` + agent + `</channel>`, "connect"},
		{"serial: not elided", "serials",
			`<serial type='unix'><source mode='bind'/></serial>`,
			`<serial type='unix'/>`, "<null>"},
	} {
		if got := mode(m.Reconcile(parse(c.user), parse(c.libvirt)), c.list); got != c.want {
			t.Errorf("%s: mode after the read %q, want %q", c.name, got, c.want)
		}
	}
}
