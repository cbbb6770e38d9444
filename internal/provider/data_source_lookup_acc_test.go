package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The lookup data sources read objects made with virsh from the hand-written
// XML below (not by this provider); every expected value is the one written
// in that XML, or what libvirt is documented to report for it (a capacity in
// bytes, memory in KiB).

const (
	lookupPrefix  = "tfacc-lkp"
	lookupNetUUID = "6c6b7000-74fa-4c6b-9000-0000000000a1"
	lookupPoolUUI = "6c6b7000-74fa-4c6b-9000-0000000000a2"
	lookupDomUUID = "6c6b7000-74fa-4c6b-9000-0000000000a3"
	lookupMAC     = "52:54:00:6c:6b:01"
	lookupMissing = "6c6b7000-74fa-4c6b-9000-0000000000ff" // no object has it
)

// lookupObjects are the names of what lookupDefineAll makes.
type lookupObjects struct {
	net, pool, poolDir, vol, volPath, dom string
}

// lookupDefineAll defines a network, a pool with one volume and a domain
// with virsh, and removes them when the test ends (also leftovers of an
// interrupted run first).
func lookupDefineAll(t *testing.T) lookupObjects {
	t.Helper()
	dir := t.TempDir()
	// QEMU (not root) opens the disk when the domain starts: it must be
	// able to reach the pool directory
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o := lookupObjects{
		net: lookupPrefix + "-net", pool: lookupPrefix + "-pool", poolDir: filepath.Join(dir, "pool"),
		vol: lookupPrefix + "-vol.qcow2", dom: lookupPrefix + "-dom",
	}
	o.volPath = filepath.Join(o.poolDir, o.vol)
	removeDomainLeftovers(t, o.dom)
	removeNetworkLeftovers(t, o.net)
	lookupRemovePool(o.pool, o.vol)

	netXML := filepath.Join(dir, "net.xml")
	mustWrite(t, netXML, fmt.Sprintf(`<network>
  <name>%s</name>
  <uuid>%s</uuid>
  <ip address='10.247.161.1' prefix='24'>
    <dhcp><range start='10.247.161.100' end='10.247.161.150'/></dhcp>
  </ip>
</network>`, o.net, lookupNetUUID))
	mustVirsh(t, "net-define", netXML)
	t.Cleanup(func() { removeNetworkLeftovers(t, o.net) })

	poolXML := filepath.Join(dir, "pool.xml")
	mustWrite(t, poolXML, fmt.Sprintf(`<pool type='dir'>
  <name>%s</name>
  <uuid>%s</uuid>
  <target><path>%s</path></target>
</pool>`, o.pool, lookupPoolUUI, o.poolDir))
	mustVirsh(t, "pool-define", poolXML)
	t.Cleanup(func() { lookupRemovePool(o.pool, o.vol) })
	mustVirsh(t, "pool-build", o.pool)
	mustVirsh(t, "pool-start", o.pool)

	volXML := filepath.Join(dir, "vol.xml")
	mustWrite(t, volXML, fmt.Sprintf(`<volume>
  <name>%s</name>
  <capacity unit='MiB'>16</capacity>
  <target><format type='qcow2'/></target>
</volume>`, o.vol))
	mustVirsh(t, "vol-create", o.pool, volXML)

	domXML := filepath.Join(dir, "dom.xml")
	mustWrite(t, domXML, fmt.Sprintf(`<domain type=%q>
  <name>%s</name>
  <uuid>%s</uuid>
  <memory unit='MiB'>96</memory>
  <vcpu>2</vcpu>
  <os><type>hvm</type></os>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source file=%q/>
      <target dev='vdb' bus='virtio'/>
    </disk>
    <interface type='network'>
      <mac address='%s'/>
      <source network='%s'/>
      <model type='virtio'/>
    </interface>
    <graphics type='vnc' port='-1' listen='127.0.0.1'/>
  </devices>
</domain>`, testAccDomainType(), o.dom, lookupDomUUID, o.volPath, lookupMAC, o.net))
	mustVirsh(t, "define", domXML)
	t.Cleanup(func() { removeDomainLeftovers(t, o.dom) })
	return o
}

// lookupRemovePool deletes the test volume and the pool.
func lookupRemovePool(pool, vol string) {
	_, _ = virsh("vol-delete", "--pool", pool, vol)
	removePoolLeftovers(pool)
}

func lookupState(addr string, p tfjsonpath.Path, v knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(addr, p, v)
}

// TestAccLookupDataSources reads each object made with virsh through its
// data source, by each way of finding it, and compares with the XML.
func TestAccLookupDataSources(t *testing.T) {
	testAccPreCheck(t)
	o := lookupDefineAll(t)
	config := testConfig(`
data "libvirt_network" "by_name" {
  name = {{q .Net}}
}
data "libvirt_network" "by_uuid" {
  uuid = {{q .NetUUID}}
}
data "libvirt_pool" "by_name" {
  name = {{q .Pool}}
}
data "libvirt_pool" "by_uuid" {
  uuid = upper({{q .PoolUUID}}) # the configured spelling is kept
}
data "libvirt_volume" "by_name" {
  pool = data.libvirt_pool.by_name.name
  name = {{q .Vol}}
}
data "libvirt_volume" "by_key" {
  key = {{q .VolPath}}
}
data "libvirt_domain" "by_name" {
  name = {{q .Dom}}
}
data "libvirt_domain" "by_uuid" {
  uuid = {{q .DomUUID}}
}
`, map[string]string{"Net": o.net, "NetUUID": lookupNetUUID, "Pool": o.pool, "PoolUUID": lookupPoolUUI, "Vol": o.vol,
		"VolPath": o.volPath, "Dom": o.dom, "DomUUID": lookupDomUUID})

	var checks []statecheck.StateCheck
	for _, a := range []string{"data.libvirt_network.by_name", "data.libvirt_network.by_uuid"} {
		ip := tfjsonpath.New("ips").AtSliceIndex(0)
		checks = append(checks,
			lookupState(a, tfjsonpath.New("id"), knownvalue.StringExact(lookupNetUUID)),
			lookupState(a, tfjsonpath.New("uuid"), knownvalue.StringExact(lookupNetUUID)),
			lookupState(a, tfjsonpath.New("name"), knownvalue.StringExact(o.net)),
			lookupState(a, ip.AtMapKey("address"), knownvalue.StringExact("10.247.161.1")),
			lookupState(a, ip.AtMapKey("prefix"), knownvalue.Int64Exact(24)),
			lookupState(a, ip.AtMapKey("dhcp").AtMapKey("ranges").AtSliceIndex(0).AtMapKey("start"), knownvalue.StringExact("10.247.161.100")),
			lookupState(a, ip.AtMapKey("dhcp").AtMapKey("ranges").AtSliceIndex(0).AtMapKey("end"), knownvalue.StringExact("10.247.161.150")),
			lookupState(a, tfjsonpath.New("running"), knownvalue.Bool(false)), // defined, never started
			lookupState(a, tfjsonpath.New("autostart"), knownvalue.Bool(false)),
		)
	}
	checks = append(checks,
		lookupState("data.libvirt_pool.by_uuid", tfjsonpath.New("uuid"), knownvalue.StringExact(strings.ToUpper(lookupPoolUUI))),
		lookupState("data.libvirt_pool.by_uuid", tfjsonpath.New("name"), knownvalue.StringExact(o.pool)),
		lookupState("data.libvirt_pool.by_name", tfjsonpath.New("uuid"), knownvalue.StringExact(lookupPoolUUI)),
	)
	for _, a := range []string{"data.libvirt_pool.by_name", "data.libvirt_pool.by_uuid"} {
		checks = append(checks,
			lookupState(a, tfjsonpath.New("id"), knownvalue.StringExact(lookupPoolUUI)),
			lookupState(a, tfjsonpath.New("type"), knownvalue.StringExact("dir")),
			lookupState(a, tfjsonpath.New("target").AtMapKey("path"), knownvalue.StringExact(o.poolDir)),
			lookupState(a, tfjsonpath.New("autostart"), knownvalue.Bool(false)),
		)
	}
	for _, a := range []string{"data.libvirt_volume.by_name", "data.libvirt_volume.by_key"} {
		checks = append(checks,
			lookupState(a, tfjsonpath.New("id"), knownvalue.StringExact(o.volPath)),
			lookupState(a, tfjsonpath.New("key"), knownvalue.StringExact(o.volPath)),
			lookupState(a, tfjsonpath.New("path"), knownvalue.StringExact(o.volPath)),
			lookupState(a, tfjsonpath.New("pool"), knownvalue.StringExact(o.pool)),
			lookupState(a, tfjsonpath.New("name"), knownvalue.StringExact(o.vol)),
			// 16 MiB, which libvirt reports in bytes
			lookupState(a, tfjsonpath.New("capacity"), knownvalue.Int64Exact(16<<20)),
			lookupState(a, tfjsonpath.New("capacity_unit"), knownvalue.StringExact("bytes")),
			lookupState(a, tfjsonpath.New("target").AtMapKey("format").AtMapKey("type"), knownvalue.StringExact("qcow2")),
		)
	}
	for _, a := range []string{"data.libvirt_domain.by_name", "data.libvirt_domain.by_uuid"} {
		disk := tfjsonpath.New("devices").AtMapKey("disks").AtSliceIndex(0)
		iface := tfjsonpath.New("devices").AtMapKey("interfaces").AtSliceIndex(0)
		checks = append(checks,
			lookupState(a, tfjsonpath.New("id"), knownvalue.StringExact(lookupDomUUID)),
			lookupState(a, tfjsonpath.New("uuid"), knownvalue.StringExact(lookupDomUUID)),
			lookupState(a, tfjsonpath.New("name"), knownvalue.StringExact(o.dom)),
			lookupState(a, tfjsonpath.New("type"), knownvalue.StringExact(testAccDomainType())),
			// 96 MiB, which libvirt reports in KiB
			lookupState(a, tfjsonpath.New("memory"), knownvalue.Int64Exact(96*1024)),
			lookupState(a, tfjsonpath.New("memory_unit"), knownvalue.StringExact("KiB")),
			lookupState(a, tfjsonpath.New("vcpu"), knownvalue.Int64Exact(2)),
			lookupState(a, disk.AtMapKey("target").AtMapKey("dev"), knownvalue.StringExact("vdb")),
			lookupState(a, disk.AtMapKey("source").AtMapKey("file").AtMapKey("file"), knownvalue.StringExact(o.volPath)),
			lookupState(a, iface.AtMapKey("mac").AtMapKey("address"), knownvalue.StringExact(lookupMAC)),
			lookupState(a, iface.AtMapKey("source").AtMapKey("network").AtMapKey("network"), knownvalue.StringExact(o.net)),
			lookupState(a, tfjsonpath.New("running"), knownvalue.Bool(false)),
			lookupState(a, tfjsonpath.New("autostart"), knownvalue.Bool(false)),
			lookupState(a, tfjsonpath.New("console_urls"), knownvalue.ListExact([]knownvalue.Check{})),
		)
	}
	// started with virsh: the network and the domain run, the domain has a
	// VNC console; the definition read is the same
	running := []statecheck.StateCheck{
		lookupState("data.libvirt_network.by_name", tfjsonpath.New("running"), knownvalue.Bool(true)),
		lookupState("data.libvirt_domain.by_name", tfjsonpath.New("running"), knownvalue.Bool(true)),
		lookupState("data.libvirt_domain.by_name", tfjsonpath.New("console_urls"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringRegexp(vncRegexp)})),
		lookupState("data.libvirt_domain.by_name", tfjsonpath.New("vcpu"), knownvalue.Int64Exact(2)),
		lookupState("data.libvirt_domain.by_name", tfjsonpath.New("devices").AtMapKey("interfaces").AtSliceIndex(0).AtMapKey("mac").AtMapKey("address"), knownvalue.StringExact(lookupMAC)),
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:            config,
			ConfigStateChecks: checks,
		}, {
			PreConfig: func() {
				mustVirsh(t, "net-start", o.net)
				mustVirsh(t, "start", o.dom)
			},
			Config:            config,
			ConfigStateChecks: running,
		}},
	})
}

// TestAccLookupNotFound: looking up what libvirt does not have fails, and
// the message names what was looked up.
func TestAccLookupNotFound(t *testing.T) {
	testAccPreCheck(t)
	missing := lookupPrefix + "-missing"
	cases := map[string]struct{ config, want string }{
		"network by name": {
			renderConfig(`data "libvirt_network" "x" { name = {{q .}} }`, missing),
			`Cannot find network.*No network with name "` + missing + `"`,
		},
		"pool by uuid": {
			renderConfig(`data "libvirt_pool" "x" { uuid = {{q .}} }`, lookupMissing),
			`Cannot find pool.*No pool with uuid "` + lookupMissing + `"`,
		},
		"volume by pool and name": {
			renderConfig(`data "libvirt_volume" "x" {
  pool = {{q .Pool}}
  name = {{q .Name}}
}`, map[string]string{"Pool": testAccPool(), "Name": missing}),
			`Cannot find volume.*No volume with pool "` + testAccPool() + `" and name\s+"` + missing + `"`,
		},
		"volume in a missing pool": {
			renderConfig(`data "libvirt_volume" "x" {
  pool = {{q .}}
  name = "a.qcow2"
}`, missing),
			`Cannot find volume.*No volume with pool "` + missing + `" and name "a.qcow2".*(?i)storage\s+pool`,
		},
		"volume by key": {
			`data "libvirt_volume" "x" { key = "/nonexistent/` + missing + `.qcow2" }`,
			`Cannot find volume.*No volume with key\s+"/nonexistent/` + missing + `.qcow2"`,
		},
		"domain by uuid": {
			renderConfig(`data "libvirt_domain" "x" { uuid = {{q .}} }`, lookupMissing),
			`Cannot find domain.*No domain with uuid "` + lookupMissing + `"`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      testAccProviderConfig() + c.config,
					ExpectError: regexp.MustCompile(`(?s)` + c.want),
				}},
			})
		})
	}
}
