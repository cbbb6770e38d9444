package treeresource

import (
	"context"
	"fmt"

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
			s.schemaErr = s.markWriteOnly(s.schemaResp)
		}
		if s.schemaErr == nil && s.schemaResp != nil {
			s.schemaErr = s.addDataSchemas(s.schemaResp)
		}
	})
	return s.schemaResp, s.schemaErr
}

// markWriteOnly marks the tree's write-only twins (xmlschema.Policy.WriteOnly)
// write-only in the schemas served. The framework's schema cannot say so: it
// refuses a write-only attribute under a computed nested attribute, and every
// object of the tree is computed (the planner keeps what libvirt fills in).
// OpenTofu and Terraform accept it; this layer plans them null itself
// (nullWriteOnly), as the framework does for its own write-only attributes.
// The attributes on the way are copied: the response is the framework's.
func (s *Server) markWriteOnly(resp *tfprotov6.GetProviderSchemaResponse) error {
	for name, t := range s.types {
		for _, p := range t.doc.WriteOnlyPaths() {
			res, ok := resp.ResourceSchemas[name]
			if !ok || res.Block == nil {
				return fmt.Errorf("resource %s: no schema to mark %v write-only in", name, p)
			}
			copied := *res
			block := *res.Block
			copied.Block = &block
			resp.ResourceSchemas[name] = &copied
			attrs, err := markWriteOnlyAt(block.Attributes, p)
			if err != nil {
				return fmt.Errorf("resource %s: %w", name, err)
			}
			block.Attributes = attrs
		}
	}
	return nil
}

// markWriteOnlyAt returns attrs with the attribute at path p (names through
// nested attributes) copied and marked write-only.
func markWriteOnlyAt(attrs []*tfprotov6.SchemaAttribute, p []string) ([]*tfprotov6.SchemaAttribute, error) {
	out := append([]*tfprotov6.SchemaAttribute(nil), attrs...)
	for i, a := range out {
		if a.Name != p[0] {
			continue
		}
		c := *a
		out[i] = &c
		if len(p) == 1 {
			c.WriteOnly = true
			return out, nil
		}
		if c.NestedType == nil {
			return nil, fmt.Errorf("write-only path %v: %s has no nested attributes", p, a.Name)
		}
		nested := *c.NestedType
		inner, err := markWriteOnlyAt(nested.Attributes, p[1:])
		if err != nil {
			return nil, err
		}
		nested.Attributes = inner
		c.NestedType = &nested
		return out, nil
	}
	return nil, fmt.Errorf("write-only path %v: no attribute %s", p, p[0])
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
