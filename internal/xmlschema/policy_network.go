package xmlschema

import "libvirt.org/go/libvirtxml"

// NetworkPolicy is the policy of libvirt_network.
var NetworkPolicy = Policy{
	Root: "network",
	// libvirt refuses a network without a name
	Required: []string{"name"},
	Computed: []string{
		"uuid",        // generated when not given
		"bridge.name", // virbrN chosen by libvirt
		"mac.address", // generated bridge MAC
	},
	Identity: map[string][]string{
		"ips":            {"address"},
		"ips.dhcp.hosts": {"mac"},
		// libvirt keeps one DNS host entry per IP; with an identity, entries
		// added out of band stay in state and show as drift
		"dns.host": {"ip"},
	},
	DefaultUnit: "KiB",
}

// Network returns the engine model of libvirt networks.
func Network() *Model[libvirtxml.Network] { return NewModel[libvirtxml.Network](NetworkPolicy) }
