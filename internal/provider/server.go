package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// ProtocolServer returns the provider's protocol 6 server: the framework's
// server, with the tree resources' validate, plan, read and upgrade calls
// and the schema answered by internal/treeresource, which also serves the
// lookup data sources (TreeDataSources), behind hostroute.Server, which sends
// each resource's calls to its host.
func ProtocolServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := &libvirtProvider{version: version}
		s, err := newProtocolServer(p)
		if err != nil {
			panic(err) // a programming error; TestProtocolServerBuilds catches it
		}
		return s
	}
}

func newProtocolServer(p *libvirtProvider) (*hostroute.Server, error) {
	ctx := context.Background()
	s, err := treeresource.NewServer(ctx, providerserver.NewProtocol6(p)(), providerTypeName, p.Resources(ctx), func() any {
		if p.hosts == nil {
			return nil
		}
		return p.hosts
	})
	if err != nil {
		return nil, fmt.Errorf("libvirt provider: %w", err)
	}
	p.tree = s
	if err := s.AddDataSources(p.TreeDataSources()...); err != nil {
		return nil, fmt.Errorf("libvirt provider: %w", err)
	}
	return hostroute.NewServer(s, func() *hostroute.Set { return p.hosts }, p.Resources, providerTypeName), nil
}
