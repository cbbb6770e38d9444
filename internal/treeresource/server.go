package treeresource

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// Document is what the protocol layer needs from an engine model
// (*xmlschema.Model[T]).
type Document interface {
	AttributeTypes() map[string]tftypes.Type
	PlanComputed(planned, config map[string]tftypes.Value) map[string]tftypes.Value
	PlanUpdate(config, prior map[string]tftypes.Value, shape *xmlschema.Shape, changing bool) (map[string]tftypes.Value, *xmlschema.Shape)
	ShapeOf(config map[string]tftypes.Value) *xmlschema.Shape
	Validate(vals map[string]tftypes.Value) error
	NullWriteOnly(vals map[string]tftypes.Value) (map[string]tftypes.Value, bool)
	WriteOnlyPaths() [][]string
}

// TreeResource is a resource whose schema is a document tree plus attributes
// of its own. Base implements it.
type TreeResource interface {
	resource.Resource
	Document() Document
}

// Server is the provider's protocol 6 server: the framework's server, with
// GetProviderSchema cached and ValidateResourceConfig, PlanResourceChange,
// ReadResource and UpgradeResourceState of tree resources answered here.
type Server struct {
	tfprotov6.ProviderServer
	providerData func() any
	types        map[string]*treeType
	providerName string
	// data are the lookup data sources (datasource.go)
	data map[string]*dataType

	schemaOnce  sync.Once
	schemaResp  *tfprotov6.GetProviderSchemaResponse
	schemaErr   error
	schemaReady atomic.Bool // set once schemaOnce built schemaResp
}

// treeType is one tree resource type, prepared once per process.
type treeType struct {
	newResource func() resource.Resource
	schema      schema.Schema
	objType     tftypes.Type
	doc         Document
	own         []ownAttribute
	values      valueCache
	// identity is the type's resource identity (identity.go); nil: none
	identity *identityDef
}

// NewServer wraps framework, the framework's server of the same provider.
// providerData returns what the provider's Configure gave resources (nil
// before it ran, or when the connection is not known yet). The tree
// resources among resources are served here; an error names a resource
// whose own attributes have behaviour this layer cannot run as the
// framework would (a programming error: the package's tests build the
// server for every resource).
func NewServer(ctx context.Context, framework tfprotov6.ProviderServer, providerName string, resources []func() resource.Resource, providerData func() any) (*Server, error) {
	s := &Server{ProviderServer: framework, providerData: providerData, types: map[string]*treeType{}, providerName: providerName}
	for _, f := range resources {
		r := f()
		tr, ok := r.(TreeResource)
		if !ok {
			continue
		}
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: providerName}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		if sr.Diagnostics.HasError() {
			return nil, fmt.Errorf("%s: schema: %v", md.TypeName, sr.Diagnostics)
		}
		doc := tr.Document()
		own, err := ownAttributes(ctx, sr.Schema, doc.AttributeTypes())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", md.TypeName, err)
		}
		s.types[md.TypeName] = &treeType{
			newResource: f,
			schema:      sr.Schema,
			objType:     sr.Schema.Type().TerraformType(ctx),
			doc:         doc,
			own:         own,
		}
		if idr, ok := r.(Identified); ok {
			s.types[md.TypeName].identity = newIdentityDef(idr.IdentitySpec())
		}
	}
	return s, nil
}

// TreeTypes lists the resource type names this server plans itself.
func (s *Server) TreeTypes() []string {
	out := make([]string, 0, len(s.types))
	for name := range s.types {
		out = append(out, name)
	}
	return out
}

func (s *Server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if t, ok := s.types[req.TypeName]; ok {
		return t.validate(ctx, s.providerData(), req)
	}
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

func (s *Server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if t, ok := s.types[req.TypeName]; ok {
		return t.plan(ctx, s.providerData(), req)
	}
	return s.ProviderServer.PlanResourceChange(ctx, req)
}

func (s *Server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if t, ok := s.types[req.TypeName]; ok && req.CurrentState != nil {
		return t.read(ctx, s.providerData(), req)
	}
	return s.ProviderServer.ReadResource(ctx, req)
}

func (s *Server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	if t, ok := s.types[req.TypeName]; ok && req.Version == t.schema.Version && req.RawState != nil {
		if resp, ok := t.upgrade(req); ok {
			return resp, nil
		}
	}
	return s.ProviderServer.UpgradeResourceState(ctx, req)
}

// configure hands the provider's data to a new resource instance, as the
// framework does before every call; false when that failed.
func configure(ctx context.Context, r resource.Resource, providerData any, diags *diag.Diagnostics) bool {
	rc, ok := r.(resource.ResourceWithConfigure)
	if !ok {
		return true
	}
	var resp resource.ConfigureResponse
	rc.Configure(ctx, resource.ConfigureRequest{ProviderData: providerData}, &resp)
	diags.Append(resp.Diagnostics...)
	return !resp.Diagnostics.HasError()
}
