// Command schema-floor is a benchmark instrument, not part of the product. It
// serves the provider's real schema over plugin protocol 6 but does no work:
// plan returns tofu's proposed state, read returns the prior state, apply
// returns the plan (unknowns as null) and nothing touches libvirt.
//
// `tofu plan` over N libvirt_domain resources served by it measures what tofu
// itself spends on a schema of this size: the lowest plan time any provider
// with this schema can reach on a machine. scripts/bench-plan.sh runs it next
// to the real provider.
//
// SCHEMA_FLOOR_MAX_SUBTREE=K prunes every nested attribute of libvirt_domain
// whose subtree has more than K attributes, except those on the paths the
// benchmark configuration sets. It gives the cost curve of smaller schemas
// without building a different provider.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/provider"
)

// keepPaths are the nested attributes the benchmark configuration sets; they
// survive pruning so the same configuration plans at every schema size.
var keepPaths = []string{"os", "devices", "devices.serials", "devices.serials.target",
	"devices.consoles", "devices.consoles.target"}

func main() {
	maxSubtree := -1
	if s := os.Getenv("SCHEMA_FLOOR_MAX_SUBTREE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			log.Fatalf("schema-floor: SCHEMA_FLOOR_MAX_SUBTREE=%q: want a number", s)
		}
		maxSubtree = n
	}
	if len(os.Args) > 1 && os.Args[1] == "count" {
		// prints the attribute count of libvirt_domain at this setting
		s := newServer(maxSubtree)
		resp, err := s.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(countBlock(resp.ResourceSchemas["libvirt_domain"].Block))
		return
	}
	err := tf6server.Serve("registry.opentofu.org/virtxml/libvirt", func() tfprotov6.ProviderServer {
		return newServer(maxSubtree)
	})
	if err != nil {
		log.Fatalf("schema-floor: %v", err)
	}
}

type server struct {
	tfprotov6.ProviderServer // the real provider, for everything not answered here
	schema                   *tfprotov6.GetProviderSchemaResponse
	types                    map[string]tftypes.Type // read-only after newServer
}

// newServer builds the (pruned) schema once, before any request: tofu caches
// schemas, so a process may be asked to apply without being asked for it.
func newServer(maxSubtree int) *server {
	s := &server{ProviderServer: provider.ProtocolServer("floor")(), types: map[string]tftypes.Type{}}
	resp, err := s.ProviderServer.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || resp == nil {
		log.Fatalf("schema-floor: provider schema: %v", err)
	}
	if d := resp.ResourceSchemas["libvirt_domain"]; d != nil && maxSubtree >= 0 {
		d.Block.Attributes = prune(d.Block.Attributes, "", maxSubtree)
	}
	for name, sch := range resp.ResourceSchemas {
		s.types[name] = sch.ValueType()
	}
	s.schema = resp
	return s
}

func (s *server) GetProviderSchema(context.Context, *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return s.schema, nil
}

func prune(attrs []*tfprotov6.SchemaAttribute, prefix string, max int) []*tfprotov6.SchemaAttribute {
	var out []*tfprotov6.SchemaAttribute
	for _, a := range attrs {
		path := strings.TrimPrefix(prefix+"."+a.Name, ".")
		if a.NestedType != nil {
			kept := false
			for _, k := range keepPaths {
				kept = kept || k == path
			}
			if !kept && countAttrs(a.NestedType.Attributes) > max {
				continue
			}
			a.NestedType.Attributes = prune(a.NestedType.Attributes, path, max)
		}
		out = append(out, a)
	}
	return out
}

func countBlock(b *tfprotov6.SchemaBlock) int { return countAttrs(b.Attributes) }

func countAttrs(attrs []*tfprotov6.SchemaAttribute) int {
	n := len(attrs)
	for _, a := range attrs {
		if a.NestedType != nil {
			n += countAttrs(a.NestedType.Attributes)
		}
	}
	return n
}

func (s *server) ConfigureProvider(context.Context, *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	return &tfprotov6.ConfigureProviderResponse{}, nil
}

func (s *server) ValidateResourceConfig(context.Context, *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return &tfprotov6.ValidateResourceConfigResponse{}, nil
}

func (s *server) UpgradeResourceState(_ context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &tfprotov6.DynamicValue{JSON: req.RawState.JSON}}, nil
}

func (s *server) ReadResource(_ context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}, nil
}

func (s *server) PlanResourceChange(_ context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return &tfprotov6.PlanResourceChangeResponse{PlannedState: req.ProposedNewState, PlannedPrivate: req.PriorPrivate}, nil
}

// ApplyResourceChange stores the plan, with values left unknown set to null.
func (s *server) ApplyResourceChange(_ context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	typ, ok := s.types[req.TypeName]
	if !ok {
		return nil, fmt.Errorf("schema-floor: unknown resource type %q", req.TypeName)
	}
	planned, err := req.PlannedState.Unmarshal(typ)
	if err != nil {
		return nil, err
	}
	known, err := tftypes.Transform(planned, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		return nil, err
	}
	state, err := tfprotov6.NewDynamicValue(typ, known)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ApplyResourceChangeResponse{NewState: &state, Private: req.PlannedPrivate}, nil
}
