package xmlschema

import "libvirt.org/go/libvirtxml"

// StoragePoolPolicy is the policy of libvirt_pool.
var StoragePoolPolicy = Policy{
	Root: "pool",
	// libvirt refuses a pool without a name or type
	Required: []string{"name", "type"},
	Computed: []string{
		"uuid",
		// sizes are reported by libvirt, never configured
		"allocation", "allocation_unit", "capacity", "capacity_unit", "available", "available_unit",
		// libvirt derives it for some types (logical: /dev/<vg>); dir pools need it set
		"target.path",
	},
	// sizes change as volumes come and go: unknown in every changing plan
	Volatile:    []string{"allocation", "allocation_unit", "capacity", "capacity_unit", "available", "available_unit"},
	DefaultUnit: "bytes",
}

// StorageVolumePolicy is the policy of libvirt_volume.
var StorageVolumePolicy = Policy{
	Root: "volume",
	// libvirt refuses a volume without a name
	Required: []string{"name"},
	Computed: []string{
		"key",                           // chosen by libvirt (the path for file pools); also the resource id
		"allocation", "allocation_unit", // reported by libvirt
		"physical", "physical_unit", // the size on disk, reported by libvirt (dmacvicar 0.9.7 has it)
		"capacity", "capacity_unit", // taken from uploaded content when not given
		"target.format.type", // taken from uploaded content (qcow2 magic) when not given
		"target.path",        // the pool's directory and the volume's name, chosen by libvirt (dmacvicar 0.9 kept it in state)
	},
	// allocation and the size on disk grow as the guest writes
	Volatile:    []string{"allocation", "allocation_unit", "physical", "physical_unit"},
	DefaultUnit: "bytes",
}

// StoragePool returns the engine model of libvirt storage pools.
func StoragePool() *Model[libvirtxml.StoragePool] {
	return NewModel[libvirtxml.StoragePool](StoragePoolPolicy)
}

// StorageVolume returns the engine model of libvirt storage volumes.
func StorageVolume() *Model[libvirtxml.StorageVolume] {
	return NewModel[libvirtxml.StorageVolume](StorageVolumePolicy)
}
