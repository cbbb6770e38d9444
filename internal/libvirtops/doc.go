// Package libvirtops holds the provider's libvirt operations, one adapter per
// object kind (domain, network, nwfilter, pool, volume, secret, snapshot):
// lookup by UUID, name or key, fetching the XML, define, start and stop,
// removal, the name-collision check, listing a host's objects (list.go, for
// the list resources and plural data sources), and the longer procedures built on them
// (the hot-plug diff, live network updates, migration, resize, address
// polling), and the day-2 operations the actions run (reboot, reset,
// shutdown, snapshot revert, and filesystem growth in the guest through the
// QEMU guest agent).
//
// It speaks go-libvirt and libvirtxml and nothing of Terraform: the resources
// and data sources in internal/provider call it and turn its results and
// errors into plans, state and diagnostics. Nothing here imports the plugin
// framework, so every operation can be tested against a real libvirtd (its
// test:///default driver serves most of them) without a resource around it.
package libvirtops
