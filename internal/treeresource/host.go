package treeresource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Clients is provider data serving several connections, one per host
// (internal/hostroute routes the requests): ClientFor returns the one the
// request's context names (nil while its URI is unknown at plan), or
// diagnostics saying why there is none (a host the provider does not know).
type Clients interface {
	ClientFor(ctx context.Context) (*libvirtconn.Client, diag.Diagnostics)
}
