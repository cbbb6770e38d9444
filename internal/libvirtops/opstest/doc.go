// Package opstest holds documents shared by the tests of libvirt
// operations (internal/libvirtops) and of the resources that call them
// (internal/provider), so that both test the same fixture. Only tests
// import it.
package opstest

import "libvirt.org/go/libvirtxml"

// NetworkDoc is a NAT network with a DNS host and two DHCP hosts, the
// starting point of the live network update tests.
func NetworkDoc() *libvirtxml.Network {
	return &libvirtxml.Network{
		Name:    "unit",
		UUID:    "6a0d6c8e-3c39-4a52-9a1e-0d1f4f1f3b21",
		Forward: &libvirtxml.NetworkForward{Mode: "nat"},
		Bridge:  &libvirtxml.NetworkBridge{Name: "virbr9"},
		Domain:  &libvirtxml.NetworkDomain{Name: "unit.local"},
		DNS: &libvirtxml.NetworkDNS{Host: []libvirtxml.NetworkDNSHost{
			{IP: "10.9.0.10", Hostnames: []libvirtxml.NetworkDNSHostHostname{{Hostname: "a"}}},
		}},
		IPs: []libvirtxml.NetworkIP{{
			Address: "10.9.0.1", Prefix: 24,
			DHCP: &libvirtxml.NetworkDHCP{
				Ranges: []libvirtxml.NetworkDHCPRange{{Start: "10.9.0.100", End: "10.9.0.200"}},
				Hosts: []libvirtxml.NetworkDHCPHost{
					{MAC: "52:54:00:00:00:0a", IP: "10.9.0.10", Name: "a"},
					{MAC: "52:54:00:00:00:0b", IP: "10.9.0.11", Name: "b"},
				},
			},
		}},
	}
}
