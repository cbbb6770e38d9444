package provider

import "testing"

// TestUnitTree_validation: what the engine would reject at apply is reported
// by validate, with the attribute path, before anything is created. Needs the
// tofu binary but no libvirtd.
func TestUnitTree_validation(t *testing.T) {
	cases := map[string]struct {
		config string
		want   string
	}{
		"domain: interface type contradicts its source": {testDomainWith(`
  devices = {
    interfaces = [{ type = "bridge", source = { network = { network = "default" } } }]
  }`), // the CLI shows the devices attribute, not the domain's own `type`
			`(?s)Invalid configuration.*\d+:\s+devices = \{.*devices\.interfaces\[0\]\.type: type "bridge" contradicts the\s+"network" member`},
		"domain: unknown disk type": {testDomainWith(`
  devices = {
    disks = [{ type = "floppy-tape", target = { dev = "vda" } }]
  }`), `(?s)devices\.disks\[0\]\.type: unsupported value "floppy-tape"; allowed:.*file`},
		"domain: a word libvirt's grammar does not allow": {testDomainWith(`
  devices = {
    mem_balloon = { model = "virtio", auto_deflate = "yes" }
  }`), `(?s)devices\.mem_balloon\.auto_deflate: must be "on" or "off" \(true and false are\s+read as "on" and "off"\), got "yes"`},
		"network: a yes/no attribute": {`
resource "libvirt_network" "x" {
  name = "n"
  ips  = [{ address = "10.0.0.1", prefix = 24, local_ptr = "on" }]
}`, `(?s)ips\[0\]\.local_ptr: must be "yes" or "no"`},
		"domain: 0.9.x create.autodestroy": {testDomainWith(`
  create = { autodestroy = true }`), `(?s)autodestroy is not supported`},
		"domain: a start flag in both spellings": {testDomainWith(`
  create       = { paused = true }
  start_paused = true`), `(?s)Start flag set twice.*create\.paused and start_paused`},
		"domain: wait_for_ip source": {testDomainWith(`
  devices = {
    interfaces = [{ source = { network = { network = "default" } }, wait_for_ip = { source = "arp" } }]
  }`), `(?s)Invalid wait_for_ip source.*source must be "lease", "agent" or "any", got "arp"`},
		"pool: autostart in both spellings": {`
resource "libvirt_pool" "x" {
  name      = "p"
  type      = "dir"
  target    = { path = "/tmp/p" }
  autostart = true
  create    = { autostart = false }
}`, `(?s)autostart set twice`},
		"domain: two members of one choice": {testDomainWith(`
  devices = {
    disks = [{ source = { file = { file = "/var/lib/a.qcow2" }, volume = { pool = "default", volume = "a.qcow2" } }, target = { dev = "vda" } }]
  }`), `(?s)devices\.disks\[0\]: source\.file and source\.volume are alternatives`},
		"domain: unknown memory unit": {testDomainWith(`
  memory_unit = "MiBB"`), `(?s)memory_unit: unknown unit "MiBB"; libvirt takes b or bytes`},
		"volume: unknown capacity unit": {`
resource "libvirt_volume" "x" {
  name          = "x.qcow2"
  pool          = "default"
  capacity      = 1
  capacity_unit = "XB"
}`, `(?s)capacity_unit: unknown unit "XB"`},
		"domain: negative vcpu": {testDomainWith(`
  vcpu = -1`), `(?s)vcpu: must be between 0 and`},
		"volume: timeouts.create is not a duration": {`
resource "libvirt_volume" "x" {
  name     = "x.qcow2"
  pool     = "default"
  capacity = 1
  timeouts = { create = "banana" }
}`, `(?s)Invalid Attribute Value Time Duration.*"banana" must be a string containing a sequence`},
		"volume: name is required": {`
resource "libvirt_volume" "x" {
  pool     = "default"
  capacity = 1
}`, `(?s)The argument "name" is required`},
		"pool: type is required": {`
resource "libvirt_pool" "x" {
  name = "p"
}`, `(?s)The argument "type" is required`},
		"network: name is required": {`
resource "libvirt_network" "x" {
  forward = { mode = "nat" }
}`, `(?s)The argument "name" is required`},
		"domain: name is required": {`
resource "libvirt_domain" "x" {
  type = "qemu"
}`, `(?s)The argument "name" is required`},
		"domain: type is required": {`
resource "libvirt_domain" "x" {
  name = "x"
}`, `(?s)The argument "type" is required`},
		"volume: fractional capacity": {`
resource "libvirt_volume" "x" {
  name     = "x.qcow2"
  pool     = "default"
  capacity = 1.5
}`, `(?s)capacity: must be a whole number, got 1\.5`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			testUnitPlanError(t, tc.config, tc.want)
		})
	}
}

// testDomainWith is a minimal domain with extra attributes.
func testDomainWith(extra string) string {
	return `
resource "libvirt_domain" "x" {
  name   = "x"
  type   = "qemu"
  memory = 65536
  os     = { type = "hvm" }` + extra + `
}`
}
