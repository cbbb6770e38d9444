package hostroute

import (
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// Attr is the attribute every resource that talks to libvirt has: the name
// of the provider host its object lives on (null: the provider's uri).
const Attr = "host"

// attrHost is Attr inside this package.
const attrHost = Attr

// Movable is a resource whose object moves when its host changes
// (libvirt_domain migrates), so Server plans no replacement for it; every
// other resource is replaced on another host.
type Movable interface {
	// MovesBetweenHosts marks the resource; it plans and applies the move
	// itself.
	MovesBetweenHosts()
}

// Attributes are the routing attributes of a resource whose object is a
// noun ("network"), for treeresource.Spec.Routing: the host attribute.
func Attributes(noun string) map[string]rschema.Attribute {
	return map[string]rschema.Attribute{Attr: rschema.StringAttribute{
		Optional: true,
		Description: "The host the " + noun + " lives on: a key of the provider's `hosts`. Unset: the provider's `uri`. " +
			"Changing it replaces the " + noun + " (destroyed on the old host, created on the new one), unless both " +
			"names have the same uri.",
	}}
}
