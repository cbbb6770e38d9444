package xmlschema

import "libvirt.org/go/libvirtxml"

// DomainPolicy is the policy of libvirt_domain.
var DomainPolicy = Policy{
	Root: "domain",
	Skip: map[string]string{
		"Domain.ID":         "runtime domain number; the resource's id is the UUID",
		"DomainDisk.Mirror": "block-job status written by libvirt, never configuration",
	},
	Computed: []string{
		"uuid",                           // generated when not given
		"devices.interfaces.mac.address", // generated when not given; users need it for DHCP reservations
	},
	Identity: map[string][]string{
		"devices.disks":      {"target.dev"},
		"devices.interfaces": {"mac.address"},
	},
	DefaultUnit: "KiB",
}

// Domain returns the engine model of libvirt domains.
func Domain() *Model[libvirtxml.Domain] { return NewModel[libvirtxml.Domain](DomainPolicy) }
