package xmlschema

import "libvirt.org/go/libvirtxml"

// NWFilterPolicy is the policy of libvirt_nwfilter.
var NWFilterPolicy = Policy{
	Root: "filter",
	// libvirt refuses a filter without a name
	Required: []string{"name"},
	// the engine's snake_case runs the protocol into its IP version
	// (tcpipv6) or splits it (udp_lite): the names follow the XML elements
	Rename: map[string]string{
		"NWFilterEntry.Ref":        "filter_ref", // as a domain interface's filter_ref
		"NWFilterRule.UDPLite":     "udplite",
		"NWFilterRule.TCPIPv6":     "tcp_ipv6",
		"NWFilterRule.UDPIPv6":     "udp_ipv6",
		"NWFilterRule.UDPLiteIPv6": "udplite_ipv6",
		"NWFilterRule.ESPIPv6":     "esp_ipv6",
		"NWFilterRule.AHIPv6":      "ah_ipv6",
		"NWFilterRule.SCTPIPv6":    "sctp_ipv6",
	},
	// libvirtxml writes the entries itself, in order, as <rule> or <filterref>
	Element: map[string]string{
		"NWFilter.Entries":   "rule or filterref, in order",
		"NWFilterEntry.Rule": "rule",
		"NWFilterEntry.Ref":  "filterref",
	},
	Computed: []string{
		"uuid", // generated when not given
		// libvirt writes the defaults it applies: a rule's priority is 500,
		// a filter's the priority of its chain (root -1000, ipv4 -700...)
		"priority",
		"entries.rule.priority",
		"chain", // "root" when not given
	},
	Identity: map[string][]string{
		// a filter reference's parameters are named, one value per name
		"entries.filter_ref.parameters": {"name"},
	},
}

// NWFilter returns the engine model of libvirt network filters.
func NWFilter() *Model[libvirtxml.NWFilter] { return NewModel[libvirtxml.NWFilter](NWFilterPolicy) }
