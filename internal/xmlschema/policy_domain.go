package xmlschema

import "libvirt.org/go/libvirtxml"

// DomainPolicy is the policy of libvirt_domain.
var DomainPolicy = Policy{
	Root: "domain",
	// libvirt refuses a domain without a name or type (and dmacvicar 0.9 required both)
	Required: []string{"name", "type"},
	Skip: map[string]string{
		"Domain.ID": "runtime domain number; the resource's id is the UUID",
	},
	Computed: []string{
		"uuid",                           // generated when not given
		"devices.interfaces.mac.address", // generated when not given; users need it for DHCP reservations
	},
	Identity: map[string][]string{
		"devices.disks":      {"target.dev"},
		"devices.interfaces": {"mac.address"},
	},
	// A unix channel without a path (the guest agent's, as dmacvicar/libvirt 0.9.x's users write it with
	// mode = "bind"): libvirt generates the path when the domain starts and leaves <source mode='bind'/>
	// out of the stored definition, so the mode read back is empty although libvirt binds.
	Elided: map[string]string{"devices.channels.source.unix.mode": "bind"},
	Status: map[string]string{
		"devices.disks.mirror": "libvirt writes a disk's mirror while a block copy or mirror job runs " +
			"(virsh blockcopy) and drops it from a definition it is given; read it, do not set it",
	},
	// The console passwords: a write-only twin keeps them out of plan and state (libvirt returns
	// them only to the SECURE flag, which the provider reads with, so the leaf the configuration
	// leaves null stays null in state).
	WriteOnly: []string{"devices.graphics.vnc.passwd", "devices.graphics.spice.passwd"},
	// the plain passwords are at least kept out of plan output
	Sensitive:   []string{"devices.graphics.vnc.passwd", "devices.graphics.spice.passwd"},
	DefaultUnit: "KiB",
	Extra: []ExtraAttribute{{
		// dmacvicar/libvirt 0.9.x waits for an address at create with this; its configurations keep working
		Path: "devices.interfaces", Name: "wait_for_ip",
		Description: "Not XML: when the provider starts the domain (create, or `running` turning true), wait until this " +
			"interface has an IPv4 address (dmacvicar/libvirt 0.9.x's spelling; the `libvirt_domain_interface_addresses` " +
			"data source reads the addresses). A wait that times out fails the apply and leaves the domain tainted.",
		Fields: map[string]string{
			"source":  "Where to read the address: `lease` (the libvirt network's DHCP lease), `agent` (the QEMU guest agent) or `any` (the first that reports one). Default: `any`.",
			"timeout": "Seconds to wait. Default: 300.",
		},
		Numbers: []string{"timeout"},
	}},
}

// Domain returns the engine model of libvirt domains.
func Domain() *Model[libvirtxml.Domain] { return NewModel[libvirtxml.Domain](DomainPolicy) }
