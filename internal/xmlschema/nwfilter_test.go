package xmlschema

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"
)

// nwfilterXML is a filter as libvirt 9.0's nwfilter-dumpxml prints it, with
// a variable, a hexadecimal value, and rules and a filter reference in an
// order that matters.
const nwfilterXML = `<filter name="f" chain="ipv4" priority="-700">
  <uuid>cc77c9dc-5b0f-4144-b87b-f5de7f89b487</uuid>
  <rule action="accept" direction="out" priority="500">
    <tcp dstipaddr="10.0.0.1" dstportstart="53" state="NEW,ESTABLISHED"></tcp>
  </rule>
  <filterref filter="clean-traffic">
    <parameter name="IP" value="10.0.0.2"></parameter>
  </filterref>
  <rule action="drop" direction="inout" priority="100">
    <ip srcipaddr="$IP" dscp="2"></ip>
  </rule>
  <rule action="accept" direction="out" priority="500">
    <mac protocolid="0x0800"></mac>
  </rule>
</filter>`

// TestNWFilterRoundTrip: match values (libvirtxml's NWFilterField, which
// marshals itself) are string attributes holding the XML text, variables
// and hexadecimal values included, and a filter survives XML -> values ->
// XML unchanged, its entries in order.
func TestNWFilterRoundTrip(t *testing.T) {
	m := NWFilter()
	var doc libvirtxml.NWFilter
	if err := doc.Unmarshal(nwfilterXML); err != nil {
		t.Fatal(err)
	}
	vals := m.ToValues(&doc)
	var entries []tftypes.Value
	if err := vals["entries"].As(&entries); err != nil || len(entries) != 4 {
		t.Fatalf("entries: %v (%d)", err, len(entries))
	}
	at := func(v tftypes.Value, path ...string) tftypes.Value {
		for _, p := range path {
			var attrs map[string]tftypes.Value
			if err := v.As(&attrs); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			v = attrs[p]
		}
		return v
	}
	for _, c := range []struct {
		entry int
		path  []string
		want  string
	}{
		{0, []string{"rule", "tcp", "dst_port_start"}, "53"},
		{0, []string{"rule", "tcp", "state"}, "NEW,ESTABLISHED"},
		{1, []string{"filter_ref", "filter"}, "clean-traffic"},
		{2, []string{"rule", "ip", "src_ip_addr"}, "$IP"},
		{2, []string{"rule", "ip", "dscp"}, "2"},
		{3, []string{"rule", "mac", "protocol_id"}, "0x0800"},
	} {
		got := at(entries[c.entry], c.path...)
		if !got.Equal(tftypes.NewValue(tftypes.String, c.want)) {
			t.Errorf("entries[%d].%s = %v, want %q", c.entry, strings.Join(c.path, "."), got, c.want)
		}
	}
	if v := at(entries[0], "rule", "tcp", "src_port_start"); !v.IsNull() {
		t.Errorf("an absent match value must be null, got %v", v)
	}
	if v := at(entries[1], "rule"); !v.IsNull() {
		t.Errorf("a filterref entry has no rule, got %v", v)
	}
	back, err := m.FromValues(vals)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := doc.Marshal()
	got, err := back.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("round trip changed the filter:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(got, `srcipaddr="$IP"`) || !strings.Contains(got, `protocolid="0x0800"`) {
		t.Errorf("variables and hexadecimal values must reach the XML as written:\n%s", got)
	}
}

// TestNWFilterModel: the policy's names follow the XML elements, and every
// engine node is one schema attribute.
func TestNWFilterModel(t *testing.T) {
	m := NWFilter()
	if got := schemaAttributeCount(m.Attributes()); got != m.Count() {
		t.Errorf("the schema has %d attributes, the engine tree %d nodes", got, m.Count())
	}
	for _, p := range []string{"entries.rule.tcp_ipv6.dst_port_start", "entries.rule.udplite", "entries.rule.all_ipv6",
		"entries.filter_ref.parameters.value", "entries.rule.icmp.type"} {
		n, err := lookup(m.root, p)
		if err != nil {
			t.Error(err)
			continue
		}
		if strings.HasPrefix(n.xmlPath, "<filter><Entries") {
			t.Errorf("%s: description path %q names a Go field", p, n.xmlPath)
		}
	}
	if a := m.Attributes()["name"]; !a.IsRequired() {
		t.Error("name must be required")
	}
}

// TestNWFilterBadValue: a value the field cannot hold is refused with the
// attribute path.
func TestNWFilterBadValue(t *testing.T) {
	m := NWFilter()
	var doc libvirtxml.NWFilter
	if err := doc.Unmarshal(nwfilterXML); err != nil {
		t.Fatal(err)
	}
	doc.Entries[3].Rule.MAC.ProtocolID = libvirtxml.NWFilterField{Str: "0xZZ"}
	_, err := m.FromValues(m.ToValues(&doc))
	if err == nil || !strings.Contains(err.Error(), "entries[3].rule.mac.protocol_id") {
		t.Errorf("want an error naming entries[3].rule.mac.protocol_id, got %v", err)
	}
}
