package provider

import (
	"errors"
	"testing"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

func TestUnitDomainInterfaceAddresses_validation(t *testing.T) {
	cases := map[string]struct {
		attrs string
		want  string
	}{
		"bad source":       {`source = "dhcp"`, `(?s)Attribute source value must be one of.*"lease".*"any"`},
		"bad timeout":      {`wait = { timeout = "soon" }`, `(?s)wait.timeout must be a positive duration such as "90s" or "5m", got\s+"soon"`},
		"negative timeout": {`wait = { timeout = "-1m" }`, `(?s)wait.timeout must be a positive duration`},
		"bad until":        {`wait = { until = "ipv5" }`, `(?s)Attribute wait.until value must be one of.*"ipv4".*"all_interfaces"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			testUnitPlanError(t, "data \"libvirt_domain_interface_addresses\" \"x\" {\n  domain = \"d\"\n  "+tc.attrs+"\n}\n", tc.want)
		})
	}
}

// TestDomainRefUUIDOrName pins which domain references are looked up by UUID
// and which by name.
func TestDomainRefUUIDOrName(t *testing.T) {
	u, err := libvirtops.ParseUUID("0B9D6F4E-1C2A-4D3B-8E5F-6A7B8C9D0E1F")
	if err != nil {
		t.Fatal("canonical upper-case UUID not accepted")
	}
	if got := libvirtops.UUIDString(u); got != "0b9d6f4e-1c2a-4d3b-8e5f-6a7b8c9d0e1f" {
		t.Errorf("round trip = %s", got)
	}
	for _, name := range []string{"web-1", "tfacc-ifaddr-stopped", "0b9d6f4e-1c2a-4d3b-8e5f-6a7b8c9d0e1", "zz9d6f4e-1c2a-4d3b-8e5f-6a7b8c9d0e1f"} {
		if _, err := libvirtops.ParseUUID(name); err == nil {
			t.Errorf("%q parsed as a UUID; it must be looked up by name", name)
		}
	}
}

func TestWaitSatisfiedIgnoresLoopbackAndLinkLocal(t *testing.T) {
	agentBeforeDHCP := []domainInterfaceData{
		{Name: "lo", Hwaddr: "00:00:00:00:00:00", Addrs: []domainIPAddress{{"ipv4", "127.0.0.1", 8}, {"ipv6", "::1", 128}}},
		{Name: "eth0", Hwaddr: "52:54:00:00:00:01", Addrs: []domainIPAddress{{"ipv6", "fe80::5054:ff:fe00:1", 64}, {"ipv4", "169.254.3.4", 16}}},
	}
	if waitSatisfied(waitForIPv4, agentBeforeDHCP, nil) {
		t.Error("loopback/link-local satisfied wait.until = ipv4")
	}
	if got := usableIPv4(agentBeforeDHCP); len(got) != 0 {
		t.Errorf("usableIPv4 = %v, want none", got)
	}
	withLease := append(agentBeforeDHCP, domainInterfaceData{Name: "eth1", Hwaddr: "52:54:00:00:00:02",
		Addrs: []domainIPAddress{{"ipv4", "10.17.3.10", 24}}})
	if !waitSatisfied(waitForIPv4, withLease, nil) {
		t.Error("a routable IPv4 did not satisfy wait.until = ipv4")
	}
	if got := usableIPv4(withLease); len(got) != 1 || got[0] != "10.17.3.10" {
		t.Errorf("usableIPv4 = %v", got)
	}
	macs := []string{"52:54:00:00:00:01", "52:54:00:00:00:02"}
	if waitSatisfied(waitForAllInterfaces, withLease, macs) {
		t.Error("all_interfaces satisfied although 52:54:00:00:00:01 has only link-local addresses")
	}
	withLease[1].Addrs = append(withLease[1].Addrs, domainIPAddress{"ipv6", "fd00::10", 64})
	if !waitSatisfied(waitForAllInterfaces, withLease, macs) {
		t.Error("all_interfaces not satisfied although every MAC has a usable address")
	}
}

func TestSourceObservationString(t *testing.T) {
	o := sourceObservation{source: "lease", interfaces: []domainInterfaceData{
		{Name: "vnet3", Hwaddr: "52:54:00:00:00:01", Addrs: []domainIPAddress{{"ipv4", "10.0.0.5", 24}}},
		{Name: "vnet4", Hwaddr: "52:54:00:00:00:02", Addrs: []domainIPAddress{}},
	}}
	want := "lease: vnet3 (52:54:00:00:00:01): 10.0.0.5/24; vnet4 (52:54:00:00:00:02): no addresses"
	if got := o.String(); got != want {
		t.Errorf("String() = %q\nwant        %q", got, want)
	}
	if got := (sourceObservation{source: "agent", err: errors.New("agent not connected")}).String(); got != "agent: agent not connected" {
		t.Errorf("error observation = %q", got)
	}
}
