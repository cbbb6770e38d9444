package xmlschema

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"
)

// Attributes libvirt's grammar allows only two words for are checked at
// plan time (Validate) with their path, and true/false are written as the
// attribute's words.
func TestGrammarWords(t *testing.T) {
	m := Domain()
	vals := func(x string) map[string]tftypes.Value {
		t.Helper()
		var d libvirtxml.Domain
		if err := d.Unmarshal(x); err != nil {
			t.Fatal(err)
		}
		return m.ToValues(&d)
	}
	bad := vals(`<domain type='qemu'><name>w</name><features><apic eoi='maybe'/></features></domain>`)
	err := m.Validate(bad)
	if err == nil || !strings.Contains(err.Error(), "features.apic.eoi") || !strings.Contains(err.Error(), `"on" or "off"`) || !strings.Contains(err.Error(), `"maybe"`) {
		t.Errorf("eoi = maybe: got %v, want an error naming features.apic.eoi, the words on/off and the value", err)
	}
	good := vals(`<domain type='qemu'><name>w</name>
  <features><apic eoi='false'/></features>
  <devices>
    <memballoon model='virtio' autodeflate='true'/>
    <graphics type='vnc'><listen type='address' address='127.0.0.1'/></graphics>
    <hostdev mode='subsystem' type='pci'><source><address domain='0' bus='1' slot='0' function='0'/></source><rom bar='on'/></hostdev>
  </devices>
</domain>`)
	doc, err := m.FromValues(good)
	if err != nil {
		t.Fatal(err)
	}
	x, err := doc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`eoi="off"`, `autodeflate="on"`} {
		if !strings.Contains(x, want) {
			t.Errorf("true/false not written as the attribute's word: want %s in\n%s", want, x)
		}
	}
	// after apply libvirt reports "on" where the configuration said "true": no drift
	live := vals(x)
	got := m.Reconcile(good, live)
	if !got["devices"].Equal(good["devices"]) || !got["features"].Equal(good["features"]) {
		t.Error("Reconcile shows true against libvirt's on as drift")
	}
	if err := m.Validate(vals(`<domain type='qemu'><name>w</name><devices><disk device='cdrom'/></devices></domain>`)); err != nil {
		t.Errorf("an attribute with other words is checked: %v", err)
	}
}
