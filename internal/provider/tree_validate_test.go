package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestUnitTree_validation: what the engine would reject at apply is reported
// by validate, with the attribute path, before anything is created. Needs the
// tofu binary but no libvirtd.
func TestUnitTree_validation(t *testing.T) {
	cases := map[string]struct {
		config string
		want   string
	}{
		"domain: interface type contradicts its source": {`
resource "libvirt_domain" "x" {
  name   = "x"
  type   = "qemu"
  memory = 65536
  os     = { type = "hvm" }
  devices = {
    interfaces = [{ type = "bridge", source = { network = { network = "default" } } }]
  }
}`, // the CLI shows the devices attribute, not the domain's own `type`
			`(?s)Invalid configuration.*\d+:\s+devices = \{.*devices\.interfaces\[0\]\.type: type "bridge" contradicts the\s+"network" member`},
		"domain: unknown disk type": {`
resource "libvirt_domain" "x" {
  name   = "x"
  type   = "qemu"
  memory = 65536
  os     = { type = "hvm" }
  devices = {
    disks = [{ type = "floppy-tape", target = { dev = "vda" } }]
  }
}`, `(?s)devices\.disks\[0\]\.type: unsupported value "floppy-tape"; allowed:.*file`},
		"domain: negative vcpu": {`
resource "libvirt_domain" "x" {
  name   = "x"
  type   = "qemu"
  memory = 65536
  vcpu   = -1
  os     = { type = "hvm" }
}`, `(?s)vcpu: must be between 0 and`},
		"volume: fractional capacity": {`
resource "libvirt_volume" "x" {
  name     = "x.qcow2"
  pool     = "default"
  capacity = 1.5
}`, `(?s)capacity: must be a whole number, got 1\.5`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      testAccProviderConfig() + tc.config,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
