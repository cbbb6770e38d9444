package provider

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ProtocolServer returns the provider's protocol 6 server: the
// plugin-framework server, with two things done in front of it.
//
//   - GetProviderSchema is answered from a response built once per process.
//   - PlanResourceChange of the XML-tree resources is planned here, in one
//     pass over the value (see fastplan.go). The framework's generic planning
//     walks every attribute of the schema and rewrites the whole value once
//     per top-level attribute; with libvirt's domain tree (thousands of
//     attributes) that cost about 0.25 s per unchanged domain.
//
// Everything else (configuration, validation, CRUD, import) is the framework's.
func ProtocolServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := &libvirtProvider{version: version}
		return &protocolServer{
			ProviderServer: providerserver.NewProtocol6(p)(),
			provider:       p,
		}
	}
}

type protocolServer struct {
	tfprotov6.ProviderServer
	provider *libvirtProvider

	schemaOnce sync.Once
	schemaResp *tfprotov6.GetProviderSchemaResponse
	schemaErr  error

	plannersOnce sync.Once
	planners     map[string]*fastPlanner
}

func (s *protocolServer) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	s.schemaOnce.Do(func() {
		s.schemaResp, s.schemaErr = s.ProviderServer.GetProviderSchema(ctx, req)
	})
	return s.schemaResp, s.schemaErr
}

func (s *protocolServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	s.plannersOnce.Do(func() { s.planners = s.buildPlanners(ctx) })
	if fp, ok := s.planners[req.TypeName]; ok {
		return fp.plan(ctx, s.provider.client, req)
	}
	return s.ProviderServer.PlanResourceChange(ctx, req)
}

// buildPlanners prepares a fast planner for every resource that opts in.
func (s *protocolServer) buildPlanners(ctx context.Context) map[string]*fastPlanner {
	out := map[string]*fastPlanner{}
	for _, f := range s.provider.Resources(ctx) {
		r := f()
		if _, ok := r.(treeResource); !ok {
			continue
		}
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "libvirt"}, &md)
		out[md.TypeName] = newFastPlanner(ctx, f)
	}
	return out
}

// UpgradeResourceState of a tree resource at the current schema version only
// re-reads the stored JSON with the (cached) object type; the framework's
// generic path rebuilds the type from the schema on every call.
func (s *protocolServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	s.plannersOnce.Do(func() { s.planners = s.buildPlanners(ctx) })
	fp, ok := s.planners[req.TypeName]
	if !ok || req.Version != 0 || req.RawState == nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	v, err := req.RawState.UnmarshalWithOpts(fp.objType, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		return s.ProviderServer.UpgradeResourceState(ctx, req) // let the framework explain
	}
	dv, err := fp.values.encode(fp.objType, v)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}, nil
}

// ValidateResourceConfig of a tree resource runs the validators that exist:
// those of its top-level own attributes and the resource's own ValidateConfig.
// The document tree has no validators (libvirt validates the XML at define),
// so the framework's walk over every attribute of the tree is skipped.
func (s *protocolServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	s.plannersOnce.Do(func() { s.planners = s.buildPlanners(ctx) })
	fp, ok := s.planners[req.TypeName]
	if !ok {
		return s.ProviderServer.ValidateResourceConfig(ctx, req)
	}
	return fp.validate(ctx, req)
}

// ReadResource of a tree resource calls the resource's Read directly: the
// framework's generic path compares every top-level attribute for semantic
// equality and rewrites the whole value for write-only attributes, neither of
// which the tree has, and each costs a walk over the large schema.
func (s *protocolServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	s.plannersOnce.Do(func() { s.planners = s.buildPlanners(ctx) })
	fp, ok := s.planners[req.TypeName]
	if !ok || req.CurrentState == nil {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	return fp.read(ctx, s.provider.client, req)
}
