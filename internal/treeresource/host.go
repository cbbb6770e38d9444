package treeresource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// HostAttr is the own attribute every tree resource has: the name of the
// provider host the object lives on (null: the provider's uri).
const HostAttr = "host"

// Clients is provider data serving several connections, one per host:
// ClientFor returns the one of the host the request's context names (nil
// while its URI is unknown at plan), or an error for a host the provider
// does not know.
type Clients interface {
	ClientFor(ctx context.Context) (*libvirtconn.Client, error)
}

// Movable is a resource whose object moves when its host changes
// (libvirt_domain migrates), so the host routing plans no replacement for
// it; every other resource is replaced on another host.
type Movable interface {
	// MovesBetweenHosts marks the resource; it plans and applies the move
	// itself.
	MovesBetweenHosts()
}

// withHostAttribute adds the host attribute to a resource's own
// attributes, unless the resource declares its own (a Movable resource
// describes its move).
func withHostAttribute(noun string, own map[string]schema.Attribute) map[string]schema.Attribute {
	if _, ok := own[HostAttr]; ok {
		return own
	}
	out := make(map[string]schema.Attribute, len(own)+1)
	for k, v := range own {
		out[k] = v
	}
	out[HostAttr] = schema.StringAttribute{
		Optional: true,
		Description: "The host the " + noun + " lives on: a key of the provider's `hosts`. Unset: the provider's `uri`. " +
			"Changing it replaces the " + noun + " (destroyed on the old host, created on the new one), unless both " +
			"names have the same uri.",
	}
	return out
}
