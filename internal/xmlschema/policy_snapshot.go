package xmlschema

import "libvirt.org/go/libvirtxml"

// DomainSnapshotPolicy is the policy of libvirt_domain_snapshot. A snapshot
// document is small, but it embeds whole domain documents and disk sources:
// what libvirt writes or what a snapshot cannot use is skipped, so that the
// schema (and the cost of planning it) stays what a snapshot needs.
var DomainSnapshotPolicy = Policy{
	Root: "domainsnapshot",
	// the snapshot's name is its identity within the domain; libvirt would
	// otherwise pick the creation time, which the configuration cannot know
	Required: []string{"name"},
	Skip: map[string]string{
		// written by libvirt: the domain definition at snapshot time (thousands of attributes)
		"DomainSnapshot.Domain":         "libvirt's copy of the domain definition, never configuration",
		"DomainSnapshot.InactiveDomain": "libvirt's copy of the inactive definition, never configuration",
		"DomainSnapshot.Cookie":         "hypervisor data written by libvirt",
		"DomainSnapshot.Active":         "libvirt's internal flag for checkpoints of running domains",
		// output only: read-only attributes of the resource (state, creation_time, parent)
		"DomainSnapshot.State":        "the domain state libvirt records; the resource's state attribute",
		"DomainSnapshot.CreationTime": "set by libvirt; the resource's creation_time attribute",
		"DomainSnapshot.Parent":       "set by libvirt; the resource's parent attribute",
		// an external snapshot's overlay is a local file or block device; network
		// and other sources, their TLS, cookies and reservations are out of scope
		"DomainDiskSource.Dir":           "not a snapshot target",
		"DomainDiskSource.Network":       "network overlays are out of scope",
		"DomainDiskSource.Volume":        "libvirt takes no pool volume as overlay",
		"DomainDiskSource.NVME":          "not a snapshot target",
		"DomainDiskSource.VHostUser":     "not a snapshot target",
		"DomainDiskSource.VHostVDPA":     "not a snapshot target",
		"DomainDiskSource.Ctl":           "not a snapshot target",
		"DomainDiskSource.StartupPolicy": "a domain disk setting",
		"DomainDiskSource.Index":         "backing chain index written by libvirt",
		"DomainDiskSource.Encryption":    "encrypted overlays are out of scope",
		"DomainDiskSource.Reservations":  "a network/block source setting",
		"DomainDiskSource.Slices":        "a domain disk setting",
		"DomainDiskSource.SSL":           "a network source setting",
		"DomainDiskSource.Cookies":       "a network source setting",
		"DomainDiskSource.Readahead":     "a network source setting",
		"DomainDiskSource.Timeout":       "a network source setting",
		"DomainDiskSource.DataStore":     "external data files are out of scope",
		"DomainDiskSourceFile.FDGroup":   "file descriptors passed by the caller, not through this provider",
		"DomainDiskSourceFile.SecLabel":  "a domain disk setting",
		"DomainDiskSourceBlock.SecLabel": "a domain disk setting",
		// an overlay's driver has only a format
		"DomainDiskDriver.Name":           "a domain disk setting",
		"DomainDiskDriver.Cache":          "a domain disk setting",
		"DomainDiskDriver.ErrorPolicy":    "a domain disk setting",
		"DomainDiskDriver.RErrorPolicy":   "a domain disk setting",
		"DomainDiskDriver.IO":             "a domain disk setting",
		"DomainDiskDriver.IOEventFD":      "a domain disk setting",
		"DomainDiskDriver.EventIDX":       "a domain disk setting",
		"DomainDiskDriver.CopyOnRead":     "a domain disk setting",
		"DomainDiskDriver.Discard":        "a domain disk setting",
		"DomainDiskDriver.DiscardNoUnref": "a domain disk setting",
		"DomainDiskDriver.IOThread":       "a domain disk setting",
		"DomainDiskDriver.IOThreads":      "a domain disk setting",
		"DomainDiskDriver.DetectZeros":    "a domain disk setting",
		"DomainDiskDriver.Queues":         "a domain disk setting",
		"DomainDiskDriver.QueueSize":      "a domain disk setting",
		"DomainDiskDriver.IOMMU":          "a domain disk setting",
		"DomainDiskDriver.ATS":            "a domain disk setting",
		"DomainDiskDriver.Packed":         "a domain disk setting",
		"DomainDiskDriver.PagePerVQ":      "a domain disk setting",
		"DomainDiskDriver.MetadataCache":  "a domain disk setting",
		"DomainDiskDriver.Statistics":     "a domain disk setting",
	},
	Computed: []string{
		// libvirt records how each disk and the memory were taken when the
		// configuration leaves it to libvirt's default
		"memory.snapshot", "memory.file", "disks.disks",
		// per listed disk: the mode libvirt's default gives, the overlay's
		// format (qcow2) and the overlay file libvirt names when not given
		"disks.disks.snapshot", "disks.disks.driver.type", "disks.disks.source.file.file",
	},
	Identity: map[string][]string{
		"disks.disks": {"name"},
	},
	DefaultUnit: "KiB",
}

// DomainSnapshot returns the engine model of libvirt domain snapshots.
func DomainSnapshot() *Model[libvirtxml.DomainSnapshot] {
	return NewModel[libvirtxml.DomainSnapshot](DomainSnapshotPolicy)
}
