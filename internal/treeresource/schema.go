package treeresource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// GetProviderSchema answers from the framework's response, built once per
// process: with the domain tree it is about 1 MB, and OpenTofu asks for it
// at the start of every command. The lookup data sources' schemas are
// added to it (datasource.go).
func (s *Server) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	s.schemaOnce.Do(func() {
		defer s.schemaReady.Store(true)
		s.schemaResp, s.schemaErr = s.ProviderServer.GetProviderSchema(ctx, req)
		if s.schemaErr == nil && s.schemaResp != nil {
			s.schemaErr = s.addDataSchemas(s.schemaResp)
		}
	})
	return s.schemaResp, s.schemaErr
}

// ResourceSchema is the protocol schema of a resource type once
// GetProviderSchema has answered, nil before and while it is being built:
// the list resources hand it to the framework, which asks for it while it
// builds that very answer too (ListResource builds it first).
func (s *Server) ResourceSchema(typeName string) *tfprotov6.Schema {
	if !s.schemaReady.Load() || s.schemaResp == nil {
		return nil
	}
	return s.schemaResp.ResourceSchemas[typeName]
}
