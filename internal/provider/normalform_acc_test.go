package provider

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"libvirt.org/go/libvirtxml"
)

// Normal forms (docs/adr/0001-xml-tree-schema-engine.md): libvirt stores
// some values in its own spelling. Each test applies a configuration in
// another spelling of the same value, proves libvirt did rewrite it (else
// the test would prove nothing), that state keeps the configured spelling
// and the next plan is empty, and that importing the object (state then
// holds libvirt's spelling, nothing is written) plans no change against
// the configuration.

var normalFormEmptyPlan = resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}

// A pool whose target path ends with a slash: libvirt drops the slash
// (dmacvicar 0.9.x reported "Provider produced inconsistent result after
// apply: .target.path").
func TestAccNormalForm_poolTargetPathSlash(t *testing.T) {
	name := "nf-pool-slash"
	removePoolLeftovers(name)
	dir := filepath.Join(t.TempDir(), "lab-pool")
	l := testAccStorageConn(t)
	configured := filepath.Dir(dir) + "//lab-pool/" // a doubled and a trailing slash
	config := testConfig(`
resource "libvirt_pool" "test" {
  name   = {{q .Name}}
  type   = "dir"
  target = { path = {{q .Configured}} }
}
`, map[string]any{"Name": name, "Configured": configured})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:           config,
				ConfigPlanChecks: normalFormEmptyPlan,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_pool.test", tfjsonpath.New("target").AtMapKey("path"), knownvalue.StringExact(configured)),
				},
				Check: func(*terraform.State) error {
					p, err := l.StoragePoolLookupByName(name)
					if err != nil {
						return err
					}
					x, err := l.StoragePoolGetXMLDesc(p, 0)
					if err != nil {
						return err
					}
					var doc libvirtxml.StoragePool
					if err := doc.Unmarshal(x); err != nil {
						return err
					}
					if doc.Target == nil || doc.Target.Path != dir {
						return fmt.Errorf("libvirt stores target path %+v, want its sanitised %q (else this test proves nothing)", doc.Target, dir)
					}
					return nil
				},
			},
			{
				// import: state holds libvirt's "/tmp/.../lab-pool"; the
				// configuration's spelling plans no change
				ResourceName:    "libvirt_pool.test",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   name,
			},
		},
	})
}

// A network whose MAC, UUID and IPv6 address are written in upper case,
// without dashes or uncompressed: libvirt writes them in lower case, with
// dashes, compressed. (An IPv4 part with a leading zero, which libvirt
// would read as octal, fails libvirt's schema validation.)
func TestAccNormalForm_networkSpellings(t *testing.T) {
	name := "nf-net-spell"
	const (
		mac     = "52:54:00:AB:CD:EF"
		uuid    = "7E3F5A90C1D24B6C8F0A1B2C3D4E5F60" // no dashes, upper case
		ipv4    = "10.231.87.1"
		ipv6    = "FD00:231:87:0:0:0:0:1"
		libMAC  = "52:54:00:ab:cd:ef"
		libUUID = "7e3f5a90-c1d2-4b6c-8f0a-1b2c3d4e5f60"
		libIPv4 = ipv4
		libIPv6 = "fd00:231:87::1"
	)
	l := testAccStorageConn(t)
	config := testConfig(`
resource "libvirt_network" "test" {
  name = {{q .Name}}
  uuid = {{q .UUID}}
  mac  = { address = {{q .MAC}} }
  ips = [
    { address = {{q .IPv4}}, prefix = 24 },
    { family = "ipv6", address = {{q .IPv6}}, prefix = 64 },
  ]
}
`, map[string]any{"Name": name, "UUID": uuid, "MAC": mac, "IPv4": ipv4, "IPv6": ipv6})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccNetworkPreCheck(t, name) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:           config,
				ConfigPlanChecks: normalFormEmptyPlan,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("uuid"), knownvalue.StringExact(uuid)),
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("mac").AtMapKey("address"), knownvalue.StringExact(mac)),
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("ips").AtSliceIndex(0).AtMapKey("address"), knownvalue.StringExact(ipv4)),
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("ips").AtSliceIndex(1).AtMapKey("address"), knownvalue.StringExact(ipv6)),
				},
				Check: func(*terraform.State) error {
					n, err := l.NetworkLookupByName(name)
					if err != nil {
						return err
					}
					x, err := l.NetworkGetXMLDesc(n, 0)
					if err != nil {
						return err
					}
					var doc libvirtxml.Network
					if err := doc.Unmarshal(x); err != nil {
						return err
					}
					got := []string{doc.UUID, "", "", ""}
					if doc.MAC != nil {
						got[1] = doc.MAC.Address
					}
					if len(doc.IPs) == 2 {
						got[2], got[3] = doc.IPs[0].Address, doc.IPs[1].Address
					}
					if want := []string{libUUID, libMAC, libIPv4, libIPv6}; strings.Join(got, " ") != strings.Join(want, " ") {
						return fmt.Errorf("libvirt stores %q, want its spellings %q (else this test proves nothing)", got, want)
					}
					return nil
				},
			},
			{
				ResourceName:    "libvirt_network.test",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   name,
			},
		},
	})
}

// A domain whose interface MAC and model are written in upper case (libvirt
// writes both in lower case), whose UUID is in upper case, whose iSCSI disk
// names no LUN (libvirt adds "/0"), and whose disk source path has a
// doubled slash (libvirt keeps that one as written).
func TestAccNormalForm_domainSpellings(t *testing.T) {
	name := "nf-dom-spell"
	removeDomainLeftovers(t, name)
	const (
		mac     = "52:54:00:AB:CD:F0"
		uuid    = "5C0FFEE0-AAAA-4BBB-8CCC-0123456789AB"
		model   = "VIRTIO"
		libMAC  = "52:54:00:ab:cd:f0"
		libUUID = "5c0ffee0-aaaa-4bbb-8ccc-0123456789ab"
	)
	disk := "/var/lib/libvirt/images//nf-dom-spell.img" // never created: the domain is not started
	iscsi := "iqn.2026-12.test.nf:disk"                 // libvirt adds the LUN: ".../0"; never connected
	l := testAccStorageConn(t)
	config := testConfig(`
resource "libvirt_domain" "test" {
  name        = {{q .Name}}
  uuid        = {{q .UUID}}
  type        = {{q .Type}}
  memory      = 64
  memory_unit = "MiB"
  running     = false
  os          = { type = "hvm" }
  devices = {
    disks = [
      { source = { file = { file = {{q .Disk}} } }, target = { dev = "vda", bus = "virtio" } },
      {
        type   = "network"
        source = { network = { protocol = "iscsi", name = {{q .ISCSI}}, hosts = [{ name = "127.0.0.1", port = "3260" }] } }
        target = { dev = "vdb", bus = "virtio" }
      },
    ]
    interfaces = [{ mac = { address = {{q .MAC}} }, model = { type = {{q .Model}} }, source = { user = {} } }]
  }
}
`, map[string]any{"Name": name, "UUID": uuid, "Type": testAccDomainType(), "Disk": disk, "ISCSI": iscsi, "MAC": mac, "Model": model})
	iface := tfjsonpath.New("devices").AtMapKey("interfaces").AtSliceIndex(0)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             func(*terraform.State) error { return testCheckNoDomain(name) },
		Steps: []resource.TestStep{
			{
				Config:           config,
				ConfigPlanChecks: normalFormEmptyPlan,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain.test", tfjsonpath.New("uuid"), knownvalue.StringExact(uuid)),
					statecheck.ExpectKnownValue("libvirt_domain.test", iface.AtMapKey("mac").AtMapKey("address"), knownvalue.StringExact(mac)),
					statecheck.ExpectKnownValue("libvirt_domain.test", iface.AtMapKey("model").AtMapKey("type"), knownvalue.StringExact(model)),
					statecheck.ExpectKnownValue("libvirt_domain.test",
						tfjsonpath.New("devices").AtMapKey("disks").AtSliceIndex(0).AtMapKey("source").AtMapKey("file").AtMapKey("file"), knownvalue.StringExact(disk)),
					statecheck.ExpectKnownValue("libvirt_domain.test",
						tfjsonpath.New("devices").AtMapKey("disks").AtSliceIndex(1).AtMapKey("source").AtMapKey("network").AtMapKey("name"), knownvalue.StringExact(iscsi)),
				},
				Check: func(*terraform.State) error {
					d, err := l.DomainLookupByName(name)
					if err != nil {
						return err
					}
					x, err := l.DomainGetXMLDesc(d, 0)
					if err != nil {
						return err
					}
					var doc libvirtxml.Domain
					if err := doc.Unmarshal(x); err != nil {
						return err
					}
					got := []string{doc.UUID, "", "", "", ""}
					if doc.Devices != nil && len(doc.Devices.Interfaces) == 1 && len(doc.Devices.Disks) == 2 {
						i := doc.Devices.Interfaces[0]
						if i.MAC != nil {
							got[1] = i.MAC.Address
						}
						if i.Model != nil {
							got[2] = i.Model.Type
						}
						if s := doc.Devices.Disks[0].Source; s != nil && s.File != nil {
							got[3] = s.File.File
						}
						if s := doc.Devices.Disks[1].Source; s != nil && s.Network != nil {
							got[4] = s.Network.Name
						}
					}
					if want := []string{libUUID, libMAC, "virtio", disk, iscsi + "/0"}; strings.Join(got, " ") != strings.Join(want, " ") {
						return fmt.Errorf("libvirt stores %q, want %q", got, want)
					}
					return nil
				},
			},
			{
				ResourceName:    "libvirt_domain.test",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   name,
			},
		},
	})
}

// A network with ipv6 = "no": libvirt leaves its default out of the XML.
// State keeps the configured value and the plan after apply is empty; after
// an import (no value in state) the plan sets it once, in place.
func TestAccNormalForm_networkDefaultLeftOut(t *testing.T) {
	name := "nf-net-ipv6no"
	l := testAccStorageConn(t)
	config := testConfig(`
resource "libvirt_network" "test" {
  name = {{q .Name}}
  ipv6 = "no"
  ips  = [{ address = "10.231.86.1", prefix = 24 }]
}
`, map[string]any{"Name": name})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccNetworkPreCheck(t, name) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:           config,
				ConfigPlanChecks: normalFormEmptyPlan,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("ipv6"), knownvalue.StringExact("no")),
				},
				Check: func(*terraform.State) error {
					n, err := l.NetworkLookupByName(name)
					if err != nil {
						return err
					}
					x, err := l.NetworkGetXMLDesc(n, 0)
					if err != nil {
						return err
					}
					var doc libvirtxml.Network
					if err := doc.Unmarshal(x); err != nil {
						return err
					}
					if doc.IPv6 != "" {
						return fmt.Errorf("libvirt stores ipv6=%q, want it left out (else this test proves nothing)", doc.IPv6)
					}
					return nil
				},
			},
			{
				ResourceName:       "libvirt_network.test",
				ImportState:        true,
				ImportStateKind:    resource.ImportBlockWithID,
				ImportStateId:      name,
				ExpectNonEmptyPlan: true, // ipv6 = "no" is set once: tofu takes no null plan for a configured value
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("libvirt_network.test", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("ipv6"), knownvalue.StringExact("no")),
				}},
			},
		},
	})
}
