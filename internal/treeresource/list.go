package treeresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The list resources' calls (Terraform's `terraform query`) go to the
// framework, which serves the list resources: Server embeds the framework's
// server as a tfprotov6.ProviderServer, an interface without them, so they
// are passed on here.
var _ tfprotov6.ProviderServerWithListResource = (*Server)(nil)

func (s *Server) listServer() (tfprotov6.ListResourceServer, error) {
	ls, ok := s.ProviderServer.(tfprotov6.ListResourceServer)
	if !ok {
		return nil, fmt.Errorf("the framework server %T serves no list resources", s.ProviderServer)
	}
	return ls, nil
}

func (s *Server) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	ls, err := s.listServer()
	if err != nil {
		return nil, err
	}
	return ls.ValidateListResourceConfig(ctx, req)
}

// ListResource builds the provider schema first (Terraform need not have
// asked this process for it): the list resources take the resource and
// identity schemas from it (ResourceSchema), and the framework asks them
// while it holds its list resources' lock, which building the schema takes
// too.
func (s *Server) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	ls, err := s.listServer()
	if err != nil {
		return nil, err
	}
	if _, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		return nil, err
	}
	return ls.ListResource(ctx, req)
}
