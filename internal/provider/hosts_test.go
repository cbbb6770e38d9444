package provider

import (
	"context"
	"testing"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
)

// TestHostServerSchema: every tree resource has the host attribute (hostroute.Server
// routes their calls); the others do not.
func TestHostServerSchema(t *testing.T) {
	s, err := newProtocolServer(&libvirtProvider{version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range s.TreeTypes() {
		if _, ok := s.HostedType(ctx, name); !ok {
			t.Errorf("%s has no host attribute", name)
		}
	}
	for _, name := range []string{"libvirt_cloudinit_disk", "libvirt_ignition", "libvirt_combustion"} {
		if _, ok := s.HostedType(ctx, name); ok {
			t.Errorf("%s has a host attribute but does not talk to libvirt", name)
		}
	}
}

// The host routing learns which resources move from the resources
// themselves (hostroute.Movable): a domain moves, everything else with a
// host attribute is replaced on another host.
func TestHostServerMovableFromResources(t *testing.T) {
	srv := ProtocolServer("test")().(*hostroute.Server)
	ctx := context.Background()
	for typ, wantHosted := range map[string]bool{"libvirt_domain": true, "libvirt_network": true, "libvirt_volume": true, "libvirt_cloudinit_disk": false} {
		if _, hosted := srv.HostedType(ctx, typ); hosted != wantHosted {
			t.Errorf("%s: hosted %v, want %v", typ, hosted, wantHosted)
		}
	}
	for typ, want := range map[string]bool{"libvirt_domain": true, "libvirt_network": false, "libvirt_volume": false,
		"libvirt_pool": false, "libvirt_domain_snapshot": false, "libvirt_secret": false, "libvirt_nwfilter": false} {
		if got := srv.Moves(ctx, typ); got != want {
			t.Errorf("%s moves between hosts: %v, want %v", typ, got, want)
		}
	}
}
