package xmlschema

import "libvirt.org/go/libvirtxml"

// The policies: everything the engine does differently from its default rule,
// per document type. Keep each entry justified.

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

// NetworkPolicy is the policy of libvirt_network.
var NetworkPolicy = Policy{
	Root: "network",
	Computed: []string{
		"uuid",        // generated when not given
		"bridge.name", // virbrN chosen by libvirt
		"mac.address", // generated bridge MAC
	},
	Identity: map[string][]string{
		"ips":            {"address"},
		"ips.dhcp.hosts": {"mac"},
	},
	DefaultUnit: "KiB",
}

// StoragePoolPolicy is the policy of libvirt_pool.
var StoragePoolPolicy = Policy{
	Root: "pool",
	Computed: []string{
		"uuid",
		// sizes are reported by libvirt, never configured
		"allocation", "allocation_unit", "capacity", "capacity_unit", "available", "available_unit",
	},
	DefaultUnit: "bytes",
}

// StorageVolumePolicy is the policy of libvirt_volume.
var StorageVolumePolicy = Policy{
	Root: "volume",
	Skip: map[string]string{
		"StorageVolume.Physical": "reported size on disk, never configuration",
	},
	Computed: []string{
		"key",                           // chosen by libvirt (the path for file pools); also the resource id
		"allocation", "allocation_unit", // reported by libvirt
		"capacity", "capacity_unit", // taken from uploaded content when not given
	},
	DefaultUnit: "bytes",
}

// Domain returns the engine model of libvirt domains.
func Domain() *Model[libvirtxml.Domain] { return NewModel[libvirtxml.Domain](DomainPolicy) }

// Network returns the engine model of libvirt networks.
func Network() *Model[libvirtxml.Network] { return NewModel[libvirtxml.Network](NetworkPolicy) }

// StoragePool returns the engine model of libvirt storage pools.
func StoragePool() *Model[libvirtxml.StoragePool] {
	return NewModel[libvirtxml.StoragePool](StoragePoolPolicy)
}

// StorageVolume returns the engine model of libvirt storage volumes.
func StorageVolume() *Model[libvirtxml.StorageVolume] {
	return NewModel[libvirtxml.StorageVolume](StorageVolumePolicy)
}
