package provider

import (
	"context"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

func testAccNetworkConfig(name, hostIP string) string {
	return testConfig(`
resource "libvirt_network" "test" {
  name      = {{q .Name}}
  autostart = false
  forward   = null
  ipv6      = "yes"
  domain    = { name = "{{.Name}}.local" }
  ips = [{
    address = "10.213.7.1"
    prefix  = 24
    dhcp = {
      ranges = [{ start = "10.213.7.100", end = "10.213.7.200" }]
      hosts  = [{ mac = "52:54:00:AA:00:01", ip = {{q .HostIP}}, name = "node1" }]
    }
  }]
  dns = {
    enable = "yes"
    host   = [{ ip = {{q .HostIP}}, hostnames = [{ hostname = "node1" }] }]
  }
}
`, map[string]string{"Name": name, "HostIP": hostIP})
}

func TestAccNetwork_basic(t *testing.T) {
	name := "tfacc-net-basic"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccNetworkPreCheck(t, name) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckNetworkGone(name),
		Steps: []resource.TestStep{
			{
				Config: testAccNetworkConfig(name, "10.213.7.10"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("id"), knownvalue.StringRegexp(uuidRegexp)),
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("bridge").AtMapKey("name"), knownvalue.StringRegexp(nonEmpty)),
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("ipv6"), knownvalue.StringExact("yes")),
					statecheck.ExpectKnownValue("libvirt_network.test",
						tfjsonpath.New("ips").AtSliceIndex(0).AtMapKey("dhcp").AtMapKey("hosts").AtSliceIndex(0).AtMapKey("mac"),
						knownvalue.StringExact("52:54:00:AA:00:01")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName:      "libvirt_network.test",
				ImportState:       true,
				ImportStateVerify: false,
			},
		},
	})
}

// testAccNetworkHost is one DHCP reservation plus its DNS entry.
type testAccNetworkHost struct{ mac, ip, name string }

// testAccNetworkADRConfig is the ADR's NAT network shape: forward nat, one
// ip with a DHCP range and native reservations, DNS hosts, a domain name.
func testAccNetworkADRConfig(name, subnet, rangeEnd string, dhcp, dns []testAccNetworkHost) string {
	var hosts, dnsHosts []string
	for _, h := range dhcp {
		hosts = append(hosts, renderConfig(`{ mac = {{q .MAC}}, ip = {{q .IP}}, name = {{q .Name}} }`,
			map[string]string{"MAC": h.mac, "IP": h.ip, "Name": h.name}))
	}
	for _, h := range dns {
		dnsHosts = append(dnsHosts, renderConfig(`{ ip = {{q .IP}}, hostnames = [{ hostname = {{q .Name}} }] }`,
			map[string]string{"IP": h.ip, "Name": h.name}))
	}
	return testConfig(`
resource "libvirt_network" "test" {
  name      = {{q .Name}}
  autostart = true
  forward   = { mode = "nat" }
  domain    = { name = "{{.Name}}.local" }
  ips = [{
    address = "{{.Subnet}}.1"
    prefix  = 24
    dhcp = {
      ranges = [{ start = "{{.Subnet}}.100", end = "{{.Subnet}}.{{.RangeEnd}}" }]
      hosts  = {{list .Hosts}}
    }
  }]
  dns = {
    enable = "yes"
    host   = {{list .DNSHosts}}
  }
}
`, map[string]any{"Name": name, "Subnet": subnet, "RangeEnd": rangeEnd, "Hosts": hosts, "DNSHosts": dnsHosts})
}

// testAccNetworkLibvirtConn is one connection to the test libvirtd for out-of-band
// checks and changes, shared by the tests of this package.
var testAccNetworkLibvirtConn = sync.OnceValues(func() (*libvirtconn.Client, error) {
	return libvirtconn.New(testAccURI())
})

func testAccNetworkLibvirt() (*libvirt.Libvirt, error) {
	c, err := testAccNetworkLibvirtConn()
	if err != nil {
		return nil, err
	}
	return c.Libvirt(context.Background())
}

// testAccNetworkLiveXML returns the running network's XML (virsh net-dumpxml).
func testAccNetworkLiveXML(name string) (*libvirtxml.Network, string, error) {
	l, err := testAccNetworkLibvirt()
	if err != nil {
		return nil, "", err
	}
	n, err := l.NetworkLookupByName(name)
	if err != nil {
		return nil, "", err
	}
	if active, err := l.NetworkIsActive(n); err != nil || active != 1 {
		return nil, "", fmt.Errorf("network %s is not active (%d, %v)", name, active, err)
	}
	x, err := l.NetworkGetXMLDesc(n, 0)
	if err != nil {
		return nil, "", err
	}
	var doc libvirtxml.Network
	if err := doc.Unmarshal(x); err != nil {
		return nil, "", err
	}
	return &doc, x, nil
}

// networkBridgeIfindex tracks the network bridge's interface index: a restart
// deletes and recreates the bridge, which gets a new index. The tests run
// against the local libvirtd, so the bridge is visible here.
type networkBridgeIfindex struct{ index int }

func (b *networkBridgeIfindex) current(name string) (int, error) {
	doc, _, err := testAccNetworkLiveXML(name)
	if err != nil {
		return 0, err
	}
	iface, err := net.InterfaceByName(doc.Bridge.Name)
	if err != nil {
		return 0, fmt.Errorf("bridge %s of network %s: %w", doc.Bridge.Name, name, err)
	}
	return iface.Index, nil
}

// record remembers the bridge's index.
func (b *networkBridgeIfindex) record(name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		i, err := b.current(name)
		b.index = i
		return err
	}
}

// unchanged fails when the bridge was recreated (the network restarted).
func (b *networkBridgeIfindex) unchanged(name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		i, err := b.current(name)
		if err != nil {
			return err
		}
		if i != b.index {
			return fmt.Errorf("bridge of %s was recreated (ifindex %d -> %d): the network restarted", name, b.index, i)
		}
		return nil
	}
}

// changed fails unless the bridge was recreated, then remembers the new index.
func (b *networkBridgeIfindex) changed(name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		i, err := b.current(name)
		if err != nil {
			return err
		}
		if i == b.index {
			return fmt.Errorf("bridge of %s kept ifindex %d: the network did not restart", name, i)
		}
		b.index = i
		return nil
	}
}

// testAccCheckNetworkHosts compares the running network's DHCP reservations
// and DNS hosts with want, and checks that dnsmasq's files (which libvirt
// rewrites and signals dnsmasq to reload) list the reservations.
func testAccCheckNetworkHosts(name string, dhcp, dns []testAccNetworkHost) resource.TestCheckFunc {
	return func(*terraform.State) error {
		doc, x, err := testAccNetworkLiveXML(name)
		if err != nil {
			return err
		}
		var got, want []string
		for _, h := range libvirtops.NetworkDHCPHosts(&doc.IPs[0]) {
			got = append(got, strings.ToLower(h.MAC)+","+h.IP+","+h.Name)
		}
		for _, h := range dhcp {
			want = append(want, strings.ToLower(h.mac)+","+h.ip+","+h.name)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			return fmt.Errorf("running network's DHCP hosts = %v, want %v\n%s", got, want, x)
		}
		got, want = nil, nil
		for _, h := range libvirtops.NetworkDNSHosts(doc) {
			for _, hn := range h.Hostnames {
				got = append(got, h.IP+"="+hn.Hostname)
			}
		}
		for _, h := range dns {
			want = append(want, h.ip+"="+h.name)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			return fmt.Errorf("running network's DNS hosts = %v, want %v\n%s", got, want, x)
		}
		if !strings.HasPrefix(testAccURI(), "qemu:///") {
			return nil // dnsmasq's files are on the remote host
		}
		hostsfile, err := os.ReadFile("/var/lib/libvirt/dnsmasq/" + name + ".hostsfile")
		if err != nil && len(dhcp) > 0 {
			return err
		}
		for _, h := range dhcp {
			line := strings.ToLower(h.mac) + "," + h.ip + "," + h.name
			if !strings.Contains(string(hostsfile), line) {
				return fmt.Errorf("dnsmasq hostsfile lacks %q:\n%s", line, hostsfile)
			}
		}
		if got := strings.Count(strings.TrimSpace(string(hostsfile)), "\n") + 1; len(dhcp) > 0 && got != len(dhcp) {
			return fmt.Errorf("dnsmasq hostsfile has %d lines, want %d:\n%s", got, len(dhcp), hostsfile)
		}
		return nil
	}
}

func testAccCheckNetworkGone(name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		l, err := testAccNetworkLibvirt()
		if err != nil {
			return err
		}
		_, err = l.NetworkLookupByName(name)
		if err == nil {
			return fmt.Errorf("network %s still exists", name)
		}
		if !libvirtconn.IsNotFound(err) {
			return err
		}
		return nil
	}
}

// testAccNetworkPreCheck removes networks left behind under the test's own
// names by an earlier run that died (libvirtd restarted under it): a stale
// network would make the create fail with "already exists".
func testAccNetworkPreCheck(t *testing.T, names ...string) {
	t.Helper()
	testAccPreCheck(t)
	l, err := testAccNetworkLibvirt()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		n, err := l.NetworkLookupByName(name)
		if libvirtconn.IsNotFound(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("removing network %s left behind by an earlier run", name)
		_ = l.NetworkDestroy(n)
		if err := l.NetworkUndefine(n); err != nil {
			t.Fatal(err)
		}
	}
}

var networkEmptyPlanAfterApply = resource.ConfigPlanChecks{
	PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
}

// Live DHCP/DNS host changes: applied with virNetworkUpdate, the bridge is
// never recreated (same ifindex), and the running network has the new hosts.
// A DHCP range change restarts the network (new ifindex).
func TestAccNetwork_liveHosts(t *testing.T) {
	name := "tfacc-net-live"
	const subnet = "10.213.8"
	n1 := testAccNetworkHost{"52:54:00:aa:08:01", subnet + ".10", "node1"}
	n2 := testAccNetworkHost{"52:54:00:aa:08:02", subnet + ".11", "node2"}
	n1moved := testAccNetworkHost{n1.mac, subnet + ".20", "node1"}
	n1swapped := testAccNetworkHost{n1.mac, n2.ip, "node1"}
	n2swapped := testAccNetworkHost{n2.mac, n1moved.ip, "node2"}
	bridge := &networkBridgeIfindex{}
	hostsPath := tfjsonpath.New("ips").AtSliceIndex(0).AtMapKey("dhcp").AtMapKey("hosts")
	// every update plans an in-place change, and libvirt's choices (UUID,
	// bridge name, bridge MAC) stay known in the plan, not "known after apply"
	update := func() resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("libvirt_network.test", plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("uuid"), knownvalue.StringRegexp(uuidRegexp)),
				plancheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("bridge").AtMapKey("name"), knownvalue.StringRegexp(nonEmpty)),
				plancheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("mac").AtMapKey("address"), knownvalue.StringRegexp(nonEmpty)),
			},
			PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
		}
	}
	// the bridge keeps its name through live updates and the restart
	sameBridge := statecheck.CompareValue(compare.ValuesSame())
	sameBridgePath := tfjsonpath.New("bridge").AtMapKey("name")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccNetworkPreCheck(t, name) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckNetworkGone(name),
		Steps: []resource.TestStep{
			{
				Config:            testAccNetworkADRConfig(name, subnet, "200", []testAccNetworkHost{n1}, []testAccNetworkHost{n1}),
				Check:             resource.ComposeTestCheckFunc(bridge.record(name), testAccCheckNetworkHosts(name, []testAccNetworkHost{n1}, []testAccNetworkHost{n1})),
				ConfigStateChecks: []statecheck.StateCheck{sameBridge.AddStateValue("libvirt_network.test", sameBridgePath)},
				ConfigPlanChecks:  networkEmptyPlanAfterApply,
			},
			{ // add a reservation and a DNS host
				Config: testAccNetworkADRConfig(name, subnet, "200", []testAccNetworkHost{n1, n2}, []testAccNetworkHost{n1, n2}),
				Check: resource.ComposeTestCheckFunc(bridge.unchanged(name),
					testAccCheckNetworkHosts(name, []testAccNetworkHost{n1, n2}, []testAccNetworkHost{n1, n2})),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_network.test", hostsPath.AtSliceIndex(1).AtMapKey("mac"), knownvalue.StringExact(n2.mac)),
				},
				ConfigPlanChecks: update(),
			},
			{ // change a reservation's IP (modify) and its DNS host (delete + add)
				Config: testAccNetworkADRConfig(name, subnet, "200", []testAccNetworkHost{n1moved, n2}, []testAccNetworkHost{n1moved, n2}),
				Check: resource.ComposeTestCheckFunc(bridge.unchanged(name),
					testAccCheckNetworkHosts(name, []testAccNetworkHost{n1moved, n2}, []testAccNetworkHost{n2, n1moved})),
				ConfigPlanChecks: update(),
			},
			{ // two reservations swap addresses
				Config: testAccNetworkADRConfig(name, subnet, "200", []testAccNetworkHost{n1swapped, n2swapped}, []testAccNetworkHost{n2, n1moved}),
				Check: resource.ComposeTestCheckFunc(bridge.unchanged(name),
					testAccCheckNetworkHosts(name, []testAccNetworkHost{n1swapped, n2swapped}, []testAccNetworkHost{n2, n1moved})),
				ConfigPlanChecks: update(),
			},
			{ // remove a reservation and a DNS host
				Config: testAccNetworkADRConfig(name, subnet, "200", []testAccNetworkHost{n1swapped}, []testAccNetworkHost{n2}),
				Check: resource.ComposeTestCheckFunc(bridge.unchanged(name),
					testAccCheckNetworkHosts(name, []testAccNetworkHost{n1swapped}, []testAccNetworkHost{n2})),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_network.test", hostsPath, knownvalue.ListSizeExact(1)),
				},
				ConfigPlanChecks: update(),
			},
			{ // a DHCP range change cannot apply live: the network restarts
				Config: testAccNetworkADRConfig(name, subnet, "150", []testAccNetworkHost{n1swapped}, []testAccNetworkHost{n2}),
				Check: resource.ComposeTestCheckFunc(bridge.changed(name),
					testAccCheckNetworkHosts(name, []testAccNetworkHost{n1swapped}, []testAccNetworkHost{n2}),
					func(*terraform.State) error {
						doc, _, err := testAccNetworkLiveXML(name)
						if err != nil {
							return err
						}
						if end := doc.IPs[0].DHCP.Ranges[0].End; end != subnet+".150" {
							return fmt.Errorf("running network's DHCP range ends at %s, want %s.150", end, subnet)
						}
						return nil
					}),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("autostart"), knownvalue.Bool(true)),
					sameBridge.AddStateValue("libvirt_network.test", sameBridgePath),
				},
				ConfigPlanChecks: update(),
			},
			{ // autostart alone: set without a restart
				Config: strings.Replace(testAccNetworkADRConfig(name, subnet, "150", []testAccNetworkHost{n1swapped}, []testAccNetworkHost{n2}),
					"autostart = true", "autostart = false", 1),
				Check: resource.ComposeTestCheckFunc(bridge.unchanged(name), func(*terraform.State) error {
					l, err := testAccNetworkLibvirt()
					if err != nil {
						return err
					}
					n, err := l.NetworkLookupByName(name)
					if err != nil {
						return err
					}
					if a, err := l.NetworkGetAutostart(n); err != nil || a != 0 {
						return fmt.Errorf("autostart = %d (%v), want 0", a, err)
					}
					return nil
				}),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("autostart"), knownvalue.Bool(false)),
					sameBridge.AddStateValue("libvirt_network.test", sameBridgePath),
				},
				ConfigPlanChecks: update(),
			},
		},
	})
}

// Import by name and by UUID: the following plan is empty, and both imports
// store the same state. An unknown name fails with a clear message.
func TestAccNetwork_import(t *testing.T) {
	name := "tfacc-net-import"
	hosts := []testAccNetworkHost{{"52:54:00:aa:09:01", "10.213.9.10", "node1"}}
	// import steps with their own configuration do not get the test
	// harness's provider source: name it
	config := "\n" + virtxmlRequiredProviders + testAccNetworkADRConfig(name, "10.213.9", "200", hosts, hosts)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccNetworkPreCheck(t, name) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckNetworkGone(name),
		Steps: []resource.TestStep{
			{
				Config:           config,
				ConfigPlanChecks: networkEmptyPlanAfterApply,
			},
			{
				ResourceName:  "libvirt_network.test",
				ImportState:   true,
				ImportStateId: "tfacc-no-such-network",
				ExpectError:   regexp.MustCompile(`no network with UUID or name "tfacc-no-such-network"`),
			},
			{ // forget the network without destroying it (tofu "removed" block)
				Config: testAccProviderConfig() + `
removed {
  from = libvirt_network.test
  lifecycle { destroy = false }
}
`,
				Check: func(*terraform.State) error {
					_, _, err := testAccNetworkLiveXML(name)
					return err
				},
			},
			{ // tofu import libvirt_network.test <name>
				Config:             config,
				ResourceName:       "libvirt_network.test",
				ImportState:        true,
				ImportStateId:      name,
				ImportStatePersist: true,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 {
						return fmt.Errorf("imported %d resources, want 1", len(states))
					}
					a := states[0].Attributes
					for k, want := range map[string]string{
						"name": name, "forward.mode": "nat", "ips.0.address": "10.213.9.1", "ips.0.prefix": "24",
						"ips.0.dhcp.hosts.0.mac": hosts[0].mac, "ips.0.dhcp.hosts.0.ip": hosts[0].ip,
						"dns.host.0.hostnames.0.hostname": "node1", "domain.name": name + ".local", "autostart": "true",
					} {
						if a[k] != want {
							return fmt.Errorf("imported %s = %q, want %q", k, a[k], want)
						}
					}
					if !uuidRegexp.MatchString(a["id"]) || a["id"] != a["uuid"] {
						return fmt.Errorf("imported id %q / uuid %q", a["id"], a["uuid"])
					}
					return nil
				},
			},
			{ // the imported state needs no change
				Config:   config,
				PlanOnly: true,
			},
			{
				ResourceName: "libvirt_network.test",
				ImportState:  true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return s.RootModule().Resources["libvirt_network.test"].Primary.ID, nil
				},
				ImportStateVerify: true,
			},
			{
				Config:           config,
				ConfigPlanChecks: networkEmptyPlanAfterApply,
			},
		},
	})
}

// testAccNetworkDomain defines and starts a tiny guest (no disk, 32 MiB) with
// one interface on network; it is removed when the test ends.
func testAccNetworkDomain(t *testing.T, name, network string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		l, err := testAccNetworkLibvirt()
		if err != nil {
			return err
		}
		doc := libvirtxml.Domain{
			Type: testAccDomainType(), Name: name,
			Memory: &libvirtxml.DomainMemory{Value: 32, Unit: "MiB"},
			VCPU:   &libvirtxml.DomainVCPU{Value: 1},
			OS:     &libvirtxml.DomainOS{Type: &libvirtxml.DomainOSType{Type: "hvm"}},
			Devices: &libvirtxml.DomainDeviceList{Interfaces: []libvirtxml.DomainInterface{{
				Source: &libvirtxml.DomainInterfaceSource{Network: &libvirtxml.DomainInterfaceSourceNetwork{Network: network}},
				Model:  &libvirtxml.DomainInterfaceModel{Type: "virtio"},
			}}},
		}
		x, err := doc.Marshal()
		if err != nil {
			return err
		}
		if stale, err := l.DomainLookupByName(name); err == nil { // left by a run that died
			_ = l.DomainDestroy(stale)
			_ = l.DomainUndefine(stale)
		}
		dom, err := l.DomainDefineXML(x)
		if err != nil {
			return err
		}
		t.Cleanup(func() {
			if l, err := testAccNetworkLibvirt(); err == nil {
				_ = l.DomainDestroy(dom)
				_ = l.DomainUndefine(dom)
			}
		})
		return l.DomainCreate(dom)
	}
}

func testAccStopDomain(t *testing.T, name string) func() {
	return func() {
		l, err := testAccNetworkLibvirt()
		if err != nil {
			t.Fatal(err)
		}
		dom, err := l.DomainLookupByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.DomainDestroy(dom); err != nil {
			t.Fatal(err)
		}
	}
}

// Destroying a network that a running guest uses fails and names the guest;
// once the guest stops, the network goes.
func TestAccNetwork_deleteInUse(t *testing.T) {
	name := "tfacc-net-inuse"
	guest := "tfacc-net-inuse-guest"
	config := testAccNetworkConfig(name, "10.213.7.10")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccNetworkPreCheck(t, name) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckNetworkGone(name),
		Steps: []resource.TestStep{
			{
				Config:           config,
				Check:            testAccNetworkDomain(t, guest, name),
				ConfigPlanChecks: networkEmptyPlanAfterApply,
			},
			{
				Config:      config,
				Destroy:     true,
				ExpectError: regexp.MustCompile(`(?s)Network is in use.*` + guest),
			},
			{ // stopping it is refused as well
				Config:      strings.Replace(config, "autostart = false", "autostart = false\n  running   = false", 1),
				ExpectError: regexp.MustCompile(`(?s)Network is in use.*` + guest),
			},
			{ // the refused destroy and stop left the network running
				Config: config,
				Check: func(*terraform.State) error {
					_, _, err := testAccNetworkLiveXML(name)
					return err
				},
				ConfigPlanChecks: networkEmptyPlanAfterApply,
			},
			{
				PreConfig: testAccStopDomain(t, guest),
				Config:    testAccProviderConfig(),
				Check:     testAccCheckNetworkGone(name),
			},
		},
	})
}

// Out-of-band changes show in the plan: a DHCP host added with virsh
// net-update is removed again, an undefined network is created again.
func TestAccNetwork_drift(t *testing.T) {
	name := "tfacc-net-drift"
	hosts := []testAccNetworkHost{{"52:54:00:aa:0a:01", "10.213.10.10", "node1"}}
	config := testAccNetworkADRConfig(name, "10.213.10", "200", hosts, hosts)
	outOfBand := func(op func(l *libvirt.Libvirt, n libvirt.Network) error) func() {
		return func() {
			l, err := testAccNetworkLibvirt()
			if err != nil {
				t.Fatal(err)
			}
			n, err := l.NetworkLookupByName(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := op(l, n); err != nil {
				t.Fatal(err)
			}
		}
	}
	hostsPath := tfjsonpath.New("ips").AtSliceIndex(0).AtMapKey("dhcp").AtMapKey("hosts")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccNetworkPreCheck(t, name) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckNetworkGone(name),
		Steps: []resource.TestStep{
			{
				Config:           config,
				ConfigPlanChecks: networkEmptyPlanAfterApply,
			},
			{ // virsh net-update add-last ip-dhcp-host ... --live --config
				PreConfig: outOfBand(func(l *libvirt.Libvirt, n libvirt.Network) error {
					return l.NetworkUpdate(n, uint32(libvirt.NetworkUpdateCommandAddLast), uint32(libvirt.NetworkSectionIPDhcpHost), 0,
						`<host mac="52:54:00:aa:0a:99" ip="10.213.10.99" name="intruder"/>`, libvirt.NetworkUpdateAffectLive|libvirt.NetworkUpdateAffectConfig)
				}),
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_network.test", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("libvirt_network.test", hostsPath, knownvalue.ListSizeExact(1)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: testAccCheckNetworkHosts(name, hosts, hosts),
			},
			{ // virsh net-destroy: with running = true the plan starts it again
				// (left unset, running keeps what the host has)
				PreConfig: outOfBand(func(l *libvirt.Libvirt, n libvirt.Network) error { return l.NetworkDestroy(n) }),
				Config:    strings.Replace(config, "autostart = true", "autostart = true\n  running   = true", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_network.test", plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("running"), knownvalue.Bool(true)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: testAccCheckNetworkHosts(name, hosts, hosts),
			},
			{ // running = false stops it, keeping the definition
				Config: strings.Replace(config, "autostart = true", "autostart = true\n  running   = false", 1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("running"), knownvalue.Bool(false)),
				},
				ConfigPlanChecks: networkEmptyPlanAfterApply,
				Check: func(*terraform.State) error {
					if _, _, err := testAccNetworkLiveXML(name); err == nil || !strings.Contains(err.Error(), "not active") {
						return fmt.Errorf("network should be defined but stopped, got %v", err)
					}
					return nil
				},
			},
			{ // virsh net-undefine (it is stopped already): the plan creates it again
				PreConfig: outOfBand(func(l *libvirt.Libvirt, n libvirt.Network) error { return l.NetworkUndefine(n) }),
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_network.test", plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: testAccCheckNetworkHosts(name, hosts, hosts),
			},
		},
	})
}

// The documented example applies as written (with its own name and subnet so
// it cannot clash with a real network) and plans no change afterwards.
func TestAccNetwork_example(t *testing.T) {
	example, err := os.ReadFile("../../examples/resources/libvirt_network/resource.tf")
	if err != nil {
		t.Fatal(err)
	}
	const name = "tfacc-net-example"
	config := string(example)
	for old, new := range map[string]string{`name      = "cluster"`: `name      = "` + name + `"`, "10.17.3.0/24": "10.213.11.0/24"} {
		if !strings.Contains(config, old) {
			t.Fatalf("example no longer contains %q; update this test", old)
		}
		config = strings.ReplaceAll(config, old, new)
	}
	hosts := []testAccNetworkHost{{"52:54:00:17:03:0a", "10.213.11.10", "cp1"}, {"52:54:00:17:03:14", "10.213.11.20", "worker1"}}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccNetworkPreCheck(t, name) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckNetworkGone(name),
		Steps: []resource.TestStep{{
			Config:           testAccProviderConfig() + config,
			Check:            testAccCheckNetworkHosts(name, hosts, hosts),
			ConfigPlanChecks: networkEmptyPlanAfterApply,
		}},
	})
}

// Create never takes over a network it did not define, and a network that
// libvirt defines but cannot start (its subnet is taken) is removed again.
func TestAccNetwork_createFailures(t *testing.T) {
	const other = "tfacc-net-other"
	name := "tfacc-net-clash"
	testAccNetworkPreCheck(t, name, other)
	l, err := testAccNetworkLibvirt()
	if err != nil {
		t.Fatal(err)
	}
	otherNet, err := l.NetworkDefineXML(`<network><name>` + other + `</name><ip address="10.213.13.1" prefix="24"/></network>`)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if l, err := testAccNetworkLibvirt(); err == nil {
			_ = l.NetworkDestroy(otherNet)
			_ = l.NetworkUndefine(otherNet)
		}
	})
	if err := l.NetworkCreate(otherNet); err != nil {
		t.Fatal(err)
	}
	config := func(name string) string {
		return testConfig(`
resource "libvirt_network" "test" {
  name = {{q .}}
  ips  = [{ address = "10.213.13.1", prefix = 24 }]
}
`, name)
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckNetworkGone(name),
		Steps: []resource.TestStep{
			{
				Config:      config(other),
				ExpectError: regexp.MustCompile(`(?s)a network named "` + other + `" already exists.*import`),
			},
			{
				Config:      config(name),
				ExpectError: regexp.MustCompile(`(?s)starting network "` + name + `".*partly created network was removed`),
			},
			{ // nothing left behind, and the other network was not touched
				Config: testAccProviderConfig(),
				Check: resource.ComposeTestCheckFunc(testAccCheckNetworkGone(name), func(*terraform.State) error {
					_, _, err := testAccNetworkLiveXML(other)
					return err
				}),
			},
		},
	})
}

// TestAccNetwork_trueFalseWords writes true and false for attributes that
// libvirt's grammar allows only "yes"/"no" for: libvirt receives the words,
// state keeps what the configuration says, and the plan after apply is empty.
func TestAccNetwork_trueFalseWords(t *testing.T) {
	name := "tfacc-net-words"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccNetworkPreCheck(t, name) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             testAccCheckNetworkGone(name),
		Steps: []resource.TestStep{{
			Config: testConfig(`
resource "libvirt_network" "test" {
  name = {{q .}}
  ipv6 = true
  dns  = { enable = false }
  ips  = [{ address = "10.213.9.1", prefix = 24, local_ptr = true }]
}
`, name),
			Check: resource.ComposeTestCheckFunc(
				testCheckVirsh(regexp.MustCompile(`<network ipv6='yes'`), "net-dumpxml", name),
				testCheckVirsh(regexp.MustCompile(`<dns enable='no'`), "net-dumpxml", name),
				testCheckVirsh(regexp.MustCompile(`localPtr='yes'`), "net-dumpxml", name),
			),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("ipv6"), knownvalue.StringExact("true")),
				statecheck.ExpectKnownValue("libvirt_network.test", tfjsonpath.New("dns").AtMapKey("enable"), knownvalue.StringExact("false")),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}
