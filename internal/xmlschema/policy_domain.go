package xmlschema

import "libvirt.org/go/libvirtxml"

// DomainPolicy is the policy of libvirt_domain.
var DomainPolicy = Policy{
	Root: "domain",
	// libvirt refuses a domain without a name or type (and dmacvicar 0.9 required both)
	Required: []string{"name", "type"},
	// dmacvicar/libvirt 0.9 names the flattened <vcpu cpuset> so; configurations written for it keep working
	Rename: map[string]string{"DomainVCPU.CPUSet": "vcpu_cpuset"},
	Skip: map[string]string{
		"Domain.ID":         "runtime domain number; the resource's id is the UUID",
		"DomainDisk.Mirror": "block-job status written by libvirt, never configuration",
		// NVRAM on a network or block device (a whole disk source, ~250 attributes); the NVRAM file path
		// (os.nv_ram.nv_ram) and template cover local firmware variables. Skipped to keep the schema,
		// plan cost and the documentation page within bounds.
		"DomainNVRam.Source": "network/block NVRAM backends are out of scope",
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
