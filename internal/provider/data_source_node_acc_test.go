package provider

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The expectations of these tests come from virsh's own output, parsed here
// with encoding/xml and string splitting, never from the data sources' code.

// nodeVirshInfo parses `virsh nodeinfo` into label -> value.
func nodeVirshInfo(t *testing.T) map[string]string {
	t.Helper()
	out, err := virsh("nodeinfo")
	if err != nil {
		t.Fatal(err)
	}
	info := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok {
			info[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return info
}

func nodeVirshInt(t *testing.T, info map[string]string, label string) int64 {
	t.Helper()
	f := strings.Fields(info[label])
	if len(f) == 0 {
		t.Fatalf("virsh nodeinfo has no %q: %v", label, info)
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		t.Fatalf("virsh nodeinfo %q: %v", label, err)
	}
	return n
}

// nodeVirshList is `virsh nodedev-list [--cap c] --all`, sorted.
func nodeVirshList(t *testing.T, capability string) []string {
	t.Helper()
	args := []string{"nodedev-list", "--all"}
	if capability != "" {
		args = append(args, "--cap", capability)
	}
	out, err := virsh(args...)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			names = append(names, l)
		}
	}
	sort.Strings(names)
	return names
}

func nodeStringSet(names []string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(names))
	for i, n := range names {
		checks[i] = knownvalue.StringExact(n)
	}
	return knownvalue.SetExact(checks)
}

func TestAccNodeInfo_matchesVirsh(t *testing.T) {
	testAccPreCheck(t)
	info := nodeVirshInfo(t)
	capsOut, err := virsh("capabilities")
	if err != nil {
		t.Fatal(err)
	}
	var caps struct {
		UUID  string `xml:"host>uuid"`
		Model string `xml:"host>cpu>model"`
		Cells struct {
			Num int64 `xml:"num,attr"`
		} `xml:"host>topology>cells"`
	}
	if err := xml.Unmarshal([]byte(capsOut), &caps); err != nil {
		t.Fatal(err)
	}
	if caps.UUID == "" || caps.Cells.Num == 0 {
		t.Fatalf("virsh capabilities lacks host uuid or NUMA cells: %+v", caps)
	}
	const address = "data.libvirt_node_info.host"
	cfg := testAccProviderConfig() + `
data "libvirt_node_info" "host" {}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact(caps.UUID)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("cpu_model"), knownvalue.StringExact(info["CPU model"])),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("cpu_model_name"), knownvalue.StringExact(caps.Model)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("cpu_cores_total"), knownvalue.Int64Exact(nodeVirshInt(t, info, "CPU(s)"))),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("cpu_sockets"), knownvalue.Int64Exact(nodeVirshInt(t, info, "CPU socket(s)"))),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("cpu_cores_per_socket"), knownvalue.Int64Exact(nodeVirshInt(t, info, "Core(s) per socket"))),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("cpu_threads_per_core"), knownvalue.Int64Exact(nodeVirshInt(t, info, "Thread(s) per core"))),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("memory_total_kb"), knownvalue.Int64Func(func(v int64) error {
					// The test host's memory is resized by its hypervisor now
					// and then: the value must be what virsh said before or says now.
					before, now := nodeVirshInt(t, info, "Memory size"), nodeVirshInt(t, nodeVirshInfo(t), "Memory size")
					if v != before && v != now {
						return fmt.Errorf("memory_total_kb %d, virsh nodeinfo says %d KiB (before) and %d KiB (now)", v, before, now)
					}
					return nil
				})),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("numa_nodes"), knownvalue.Int64Exact(caps.Cells.Num)),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}

func TestAccNodeDevices_byCapability(t *testing.T) {
	testAccPreCheck(t)
	pci := nodeVirshList(t, "pci")
	system := nodeVirshList(t, "system")
	if len(pci) == 0 || len(system) != 1 {
		t.Fatalf("the test host should have PCI devices and one system device: pci=%v system=%v", pci, system)
	}
	cfg := func(capability string) string {
		return testConfig(`
data "libvirt_node_devices" "pci" {
  capability = {{q .}}
}

data "libvirt_node_devices" "system" {
  capability = "system"
}

data "libvirt_node_devices" "all" {}
`, capability)
	}
	// The full list changes while others create vnet/bridge devices, so it
	// is checked to hold the stable ones rather than compared whole.
	partial := make([]knownvalue.Check, 0, len(pci)+1)
	for _, n := range append(append([]string{}, pci...), system...) {
		partial = append(partial, knownvalue.StringExact(n))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			// First: the post-test destroy runs the last configuration,
			// which must be valid.
			{
				// 0.9.7 documents "usb_device" style names; "pcie" is a typo libvirt would not know.
				Config:      cfg("pcie"),
				ExpectError: regexp.MustCompile(`(?s)Attribute capability value must be one of:.*"pci".*"usb_device"`),
			},
			{
				Config: cfg("pci"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.libvirt_node_devices.pci", tfjsonpath.New("devices"), nodeStringSet(pci)),
					statecheck.ExpectKnownValue("data.libvirt_node_devices.pci", tfjsonpath.New("id"), knownvalue.StringExact("pci")),
					statecheck.ExpectKnownValue("data.libvirt_node_devices.system", tfjsonpath.New("devices"), nodeStringSet(system)),
					statecheck.ExpectKnownValue("data.libvirt_node_devices.all", tfjsonpath.New("devices"), knownvalue.SetPartial(partial)),
					statecheck.ExpectKnownValue("data.libvirt_node_devices.all", tfjsonpath.New("id"), knownvalue.StringExact("all")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// nodeVirshDevice is what the test reads from `virsh nodedev-dumpxml`.
type nodeVirshDevice struct {
	Path       string `xml:"path"`
	Parent     string `xml:"parent"`
	Driver     string `xml:"driver>name"`
	Capability struct {
		Type     string `xml:"type,attr"`
		Class    string `xml:"class"`
		Domain   string `xml:"domain"`
		Bus      string `xml:"bus"`
		Slot     string `xml:"slot"`
		Function string `xml:"function"`
		Product  struct {
			ID string `xml:"id,attr"`
		} `xml:"product"`
		Vendor struct {
			ID string `xml:"id,attr"`
		} `xml:"vendor"`
		Interface string `xml:"interface"`
		Address   string `xml:"address"`
		Link      struct {
			State string `xml:"state,attr"`
		} `xml:"link"`
	} `xml:"capability"`
}

func nodeVirshDumpXML(t *testing.T, name string) (nodeVirshDevice, string) {
	t.Helper()
	out, err := virsh("nodedev-dumpxml", name)
	if err != nil {
		t.Fatal(err)
	}
	var d nodeVirshDevice
	if err := xml.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	return d, out
}

func nodeInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		t.Fatalf("parsing %q: %v", s, err)
	}
	return n
}

// nodeOptString is the state value a possibly absent XML string gives.
func nodeOptString(s string) knownvalue.Check {
	if s == "" {
		return knownvalue.Null()
	}
	return knownvalue.StringExact(s)
}

func TestAccNodeDeviceInfo_pciAndNet(t *testing.T) {
	testAccPreCheck(t)
	// A PCI device with a bound driver, as for passthrough, and the loopback
	// interface, which every host has.
	var pciName string
	var pci nodeVirshDevice
	for _, n := range nodeVirshList(t, "pci") {
		if d, _ := nodeVirshDumpXML(t, n); d.Driver != "" {
			pciName, pci = n, d
			break
		}
	}
	if pciName == "" {
		t.Fatal("no PCI device with a driver on the test host")
	}
	netName := ""
	for _, n := range nodeVirshList(t, "net") {
		if strings.HasPrefix(n, "net_lo_") {
			netName = n
		}
	}
	if netName == "" {
		t.Fatal("no loopback net device on the test host")
	}
	netDev, _ := nodeVirshDumpXML(t, netName)
	_, pciXML := nodeVirshDumpXML(t, pciName)
	t.Logf("PCI device %s (driver %s), net device %s", pciName, pci.Driver, netName)

	const pa, na = "data.libvirt_node_device_info.pci", "data.libvirt_node_device_info.lo"
	capPath := func(attr string) tfjsonpath.Path { return tfjsonpath.New("capability").AtMapKey(attr) }
	cfg := testConfig(`
data "libvirt_node_device_info" "pci" {
  name = {{q .PCI}}
}

data "libvirt_node_device_info" "lo" {
  name = {{q .Net}}
}
`, map[string]string{"PCI": pciName, "Net": netName})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(pa, tfjsonpath.New("id"), knownvalue.StringExact(pciName)),
					statecheck.ExpectKnownValue(pa, tfjsonpath.New("path"), knownvalue.StringExact(pci.Path)),
					statecheck.ExpectKnownValue(pa, tfjsonpath.New("parent"), knownvalue.StringExact(pci.Parent)),
					statecheck.ExpectKnownValue(pa, tfjsonpath.New("driver"), knownvalue.StringExact(pci.Driver)),
					statecheck.ExpectKnownValue(pa, tfjsonpath.New("xml"), knownvalue.StringFunc(func(v string) error {
						// virsh's output is trimmed by the helper.
						if strings.TrimSpace(v) != pciXML {
							return fmt.Errorf("xml differs from virsh nodedev-dumpxml:\n%s", v)
						}
						return nil
					})),
					statecheck.ExpectKnownValue(pa, capPath("type"), knownvalue.StringExact("pci")),
					statecheck.ExpectKnownValue(pa, capPath("domain"), knownvalue.Int64Exact(nodeInt(t, pci.Capability.Domain))),
					statecheck.ExpectKnownValue(pa, capPath("bus"), knownvalue.Int64Exact(nodeInt(t, pci.Capability.Bus))),
					statecheck.ExpectKnownValue(pa, capPath("slot"), knownvalue.Int64Exact(nodeInt(t, pci.Capability.Slot))),
					statecheck.ExpectKnownValue(pa, capPath("function"), knownvalue.Int64Exact(nodeInt(t, pci.Capability.Function))),
					statecheck.ExpectKnownValue(pa, capPath("class"), knownvalue.StringExact(pci.Capability.Class)),
					statecheck.ExpectKnownValue(pa, capPath("vendor_id"), knownvalue.StringExact(pci.Capability.Vendor.ID)),
					statecheck.ExpectKnownValue(pa, capPath("product_id"), knownvalue.StringExact(pci.Capability.Product.ID)),
					// Fields of other capability types stay null.
					statecheck.ExpectKnownValue(pa, capPath("interface"), knownvalue.Null()),
					statecheck.ExpectKnownValue(pa, capPath("lun"), knownvalue.Null()),

					statecheck.ExpectKnownValue(na, tfjsonpath.New("parent"), knownvalue.StringExact(netDev.Parent)),
					statecheck.ExpectKnownValue(na, capPath("type"), knownvalue.StringExact("net")),
					statecheck.ExpectKnownValue(na, capPath("interface"), knownvalue.StringExact(netDev.Capability.Interface)),
					statecheck.ExpectKnownValue(na, capPath("address"), knownvalue.StringExact(netDev.Capability.Address)),
					statecheck.ExpectKnownValue(na, capPath("link_state"), nodeOptString(netDev.Capability.Link.State)),
					statecheck.ExpectKnownValue(na, capPath("domain"), knownvalue.Null()),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: testAccProviderConfig() + `
data "libvirt_node_device_info" "missing" {
  name = "pci_ffff_ff_1f_7"
}
`,
				ExpectError: regexp.MustCompile(`(?s)No such node device.*pci_ffff_ff_1f_7`),
			},
		},
	})
}
