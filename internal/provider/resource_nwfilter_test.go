package provider

import (
	"testing"
)

// TestUnitNWFilter_validation: validate refuses, with the attribute path, a
// match value libvirt's field cannot hold and entries libvirt would cut
// short (both or neither of rule and filter_ref, two protocol matches in a
// rule); name is required.
func TestUnitNWFilter_validation(t *testing.T) {
	for name, tc := range map[string]struct{ config, want string }{
		"bad hexadecimal value": {`
resource "libvirt_nwfilter" "x" {
  name    = "f"
  entries = [{ rule = { action = "accept", direction = "out", mac = { protocol_id = "0xZZ" } } }]
}`, `(?s)entries\[0\]\.rule\.mac\.protocol_id: libvirt cannot read "0xZZ" as the protocolid\s+attribute`},
		"rule and filter_ref in one entry": {`
resource "libvirt_nwfilter" "x" {
  name    = "f"
  entries = [
    { rule = { action = "accept", direction = "out", all = {} } },
    { rule = { action = "accept", direction = "out" }, filter_ref = { filter = "allow-arp" } },
  ]
}`, `(?s)entries\[1\]: rule and filter_ref are alternatives`},
		"an empty entry": {`
resource "libvirt_nwfilter" "x" {
  name    = "f"
  entries = [{}]
}`, `(?s)entries\[0\]: set rule or filter_ref`},
		"two protocol matches in one rule": {`
resource "libvirt_nwfilter" "x" {
  name    = "f"
  entries = [{ rule = { action = "accept", direction = "out", tcp = { dst_port_start = "22" }, udp = { dst_port_start = "53" } } }]
}`, `(?s)entries\[0\]\.rule: tcp and udp are alternatives: libvirt reads one protocol\s+match per rule`},
		"name is required": {`
resource "libvirt_nwfilter" "x" {
  chain = "root"
}`, `(?s)The argument "name" is required`},
	} {
		t.Run(name, func(t *testing.T) { testUnitPlanError(t, tc.config, tc.want) })
	}
}
