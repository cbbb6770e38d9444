package hostroute

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// Server routes each request about a resource with a host attribute to
// that host: it reads the attribute from the request's value and names the
// host in the context, where the resource's Configure finds it
// (treeresource.ClientFromContext). It also holds the rules that are the same
// for every resource:
//
//   - plan: a changed host replaces the resource (RequiresReplace on host),
//     unless both names have the same uri, or the resource moves in place
//     (a Movable: libvirt_domain plans its move itself,
//     domain_move.go);
//   - apply: a change of nothing but the host's name, between names with the
//     same uri, is stored without calling the resource;
//   - import: an ID "NAME/ID" whose NAME is one of the provider's hosts
//     imports ID from that host and records host = NAME;
//   - actions: an action's plan and invocation go to the host its host
//     attribute names.
type Server struct {
	*treeresource.Server
	// hosts is the provider's host set (nil before it is configured)
	hosts func() *Set
	// resources are the provider's resources, asked whether they move
	resources func(context.Context) []func() resource.Resource
	typeName  string // the provider's type name, the prefix of resource types

	typesOnce sync.Once
	// hosted are the resource types with a host attribute, and their
	// object types
	hosted map[string]tftypes.Type
	// movable are the resource types whose host changes in place
	// (Movable)
	movable map[string]bool
}

// NewServer puts the host routing in front of the tree-resource core s.
// hosts returns the provider's configured host set; resources and typeName
// are the provider's (Movable marks the resources that move).
func NewServer(s *treeresource.Server, hosts func() *Set, resources func(context.Context) []func() resource.Resource, typeName string) *Server {
	return &Server{Server: s, hosts: hosts, resources: resources, typeName: typeName}
}

// HostedType returns the object type of a resource type with a host
// attribute; ok is false for the others.
func (s *Server) HostedType(ctx context.Context, typeName string) (tftypes.Type, bool) {
	s.typesOnce.Do(func() {
		s.hosted = map[string]tftypes.Type{}
		s.movable = map[string]bool{}
		for _, newResource := range s.resources(ctx) {
			r := newResource()
			if _, ok := r.(Movable); ok {
				var md resource.MetadataResponse
				r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: s.typeName}, &md)
				s.movable[md.TypeName] = true
			}
		}
		resp, err := s.Server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil || resp == nil {
			return
		}
		for name, sch := range resp.ResourceSchemas {
			if sch == nil || sch.Block == nil {
				continue
			}
			for _, a := range sch.Block.Attributes {
				if a.Name == attrHost {
					s.hosted[name] = sch.ValueType()
				}
			}
		}
	})
	t, ok := s.hosted[typeName]
	return t, ok
}

func (s *Server) set() *Set { return s.hosts() }

func (s *Server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	typ, ok := s.HostedType(ctx, req.TypeName)
	if !ok {
		return s.Server.PlanResourceChange(ctx, req)
	}
	prior, priorOK := s.host(req.TypeName, typ, req.PriorState)
	planned, plannedOK := s.host(req.TypeName, typ, req.ProposedNewState)
	h := planned
	if !plannedOK {
		h = prior // destroy
	}
	resp, err := s.Server.PlanResourceChange(withHost(ctx, h), req)
	if err != nil || resp == nil || !priorOK || !plannedOK || s.movable[req.TypeName] {
		return resp, err
	}
	if set := s.set(); set != nil && !set.SameHost(prior, planned) && !hasHostPath(resp.RequiresReplace) {
		resp.RequiresReplace = append(resp.RequiresReplace, tftypes.NewAttributePath().WithAttributeName(attrHost))
	}
	return resp, nil
}

func hasHostPath(paths []*tftypes.AttributePath) bool {
	for _, p := range paths {
		if p.Equal(tftypes.NewAttributePath().WithAttributeName(attrHost)) {
			return true
		}
	}
	return false
}

func (s *Server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	typ, ok := s.HostedType(ctx, req.TypeName)
	if !ok {
		return s.Server.ApplyResourceChange(ctx, req)
	}
	prior, priorOK := s.host(req.TypeName, typ, req.PriorState)
	planned, plannedOK := s.host(req.TypeName, typ, req.PlannedState)
	h := planned
	if !plannedOK {
		h = prior // delete
	}
	if priorOK && plannedOK && prior != planned {
		if set := s.set(); set != nil && set.SameHost(prior, planned) && onlyHostDiffers(typ, req.PriorState, req.PlannedState) {
			// another name for the same connection: nothing to do on libvirt
			id, err := s.Server.IdentityData(req.TypeName, req.PlannedState)
			if err != nil {
				return nil, err
			}
			return &tfprotov6.ApplyResourceChangeResponse{NewState: req.PlannedState, Private: req.PlannedPrivate, NewIdentity: id}, nil
		}
	}
	return s.Server.ApplyResourceChange(withHost(ctx, h), req)
}

// onlyHostDiffers tells whether the two values differ in their host only.
func onlyHostDiffers(typ tftypes.Type, a, b *tfprotov6.DynamicValue) bool {
	va, err := a.Unmarshal(typ)
	if err != nil {
		return false
	}
	vb, err := b.Unmarshal(typ)
	if err != nil {
		return false
	}
	var ma, mb map[string]tftypes.Value
	if va.As(&ma) != nil || vb.As(&mb) != nil || ma == nil || mb == nil {
		return false
	}
	mb[attrHost] = ma[attrHost]
	return tftypes.NewValue(typ, mb).Equal(va)
}

func (s *Server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	typ, ok := s.HostedType(ctx, req.TypeName)
	if !ok {
		return s.Server.ReadResource(ctx, req)
	}
	h, ok := s.host(req.TypeName, typ, req.CurrentState)
	if !ok {
		return s.Server.ReadResource(ctx, req)
	}
	resp, err := s.Server.ReadResource(withHost(ctx, h), req)
	if err != nil || resp == nil || h.Null || h.Unknown {
		return resp, err
	}
	// The read after an import starts from nothing but the id and the host
	// (ImportResourceState) and may drop the host with the rest.
	if got, ok := s.host(req.TypeName, typ, resp.NewState); ok && got.Null {
		if st, err := setHost(typ, resp.NewState, h.Name); err == nil {
			resp.NewState = st
			// and the identity, made from the state, names the host too
			if resp.NewIdentity != nil {
				if resp.NewIdentity, err = s.Server.IdentityData(req.TypeName, st); err != nil {
					return nil, err
				}
			}
		}
	}
	return resp, nil
}

// ImportResourceState imports "NAME/ID" from host NAME when NAME is one of the
// provider's hosts; any other ID is imported from the provider's uri as before.
func (s *Server) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	typ, ok := s.HostedType(ctx, req.TypeName)
	set := s.set()
	if !ok {
		return s.Server.ImportResourceState(ctx, req)
	}
	if req.Identity != nil && req.ID == "" {
		// an import by identity names its host in identity.host
		name, ok := s.Server.IdentityHost(req.TypeName, attrHost, req.Identity)
		if !ok || name == "" {
			return s.Server.ImportResourceState(ctx, req)
		}
		if set != nil {
			if _, _, err := set.resolve(Ref{Name: name}); err != nil {
				return &tfprotov6.ImportResourceStateResponse{Diagnostics: []*tfprotov6.Diagnostic{{
					Severity: tfprotov6.DiagnosticSeverityError,
					Summary:  "Unknown host in the import identity",
					Detail:   fmt.Sprintf("identity.host: %v; leave it null for the provider's uri.", err),
				}}}, nil
			}
		}
		resp, err := s.Server.ImportResourceState(withHost(ctx, Ref{Name: name}), req)
		return recordHost(typ, resp, err, name)
	}
	if set == nil {
		return s.Server.ImportResourceState(ctx, req)
	}
	name, rest, found := strings.Cut(req.ID, "/")
	if _, known := set.hosts[name]; !found || !known || rest == "" {
		return s.Server.ImportResourceState(ctx, req)
	}
	h := Ref{Name: name}
	r2 := *req
	r2.ID = rest
	resp, err := s.Server.ImportResourceState(withHost(ctx, h), &r2)
	return recordHost(typ, resp, err, name)
}

// recordHost sets host = name in the states an import on that host returned.
func recordHost(typ tftypes.Type, resp *tfprotov6.ImportResourceStateResponse, err error, name string) (*tfprotov6.ImportResourceStateResponse, error) {
	if err != nil || resp == nil {
		return resp, err
	}
	for i, imp := range resp.ImportedResources {
		if imp == nil || imp.State == nil {
			continue
		}
		st, err := setHost(typ, imp.State, name)
		if err != nil {
			resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{
				Severity: tfprotov6.DiagnosticSeverityError,
				Summary:  "Cannot record the host of the imported resource",
				Detail:   err.Error(),
			})
			continue
		}
		resp.ImportedResources[i].State = st
	}
	return resp, nil
}

// PlanAction plans an action on the host its configuration names (its host
// attribute, as a resource's).
func (s *Server) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	return s.Server.PlanAction(withHost(ctx, s.actionHost(ctx, req.ActionType, req.Config)), req)
}

// InvokeAction runs an action on the host its configuration names. The
// framework runs the action with this context after InvokeAction returned
// (the response's event stream), so the host travels with it.
func (s *Server) InvokeAction(ctx context.Context, req *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error) {
	return s.Server.InvokeAction(withHost(ctx, s.actionHost(ctx, req.ActionType, req.Config)), req)
}

// actionHost reads the host attribute of an action's configuration,
// decoded with the action's schema type; an action without one runs on the
// provider's uri.
func (s *Server) actionHost(ctx context.Context, actionType string, config *tfprotov6.DynamicValue) Ref {
	resp, err := s.Server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || resp == nil || config == nil {
		return Ref{Null: true}
	}
	sch := resp.ActionSchemas[actionType]
	if sch == nil || sch.Schema == nil {
		return Ref{Null: true}
	}
	if h, ok := hostOf(config.Unmarshal(sch.Schema.ValueType())); ok {
		return h
	}
	return Ref{Null: true}
}

// setHost returns the value dv with its host attribute set to name.
func setHost(typ tftypes.Type, dv *tfprotov6.DynamicValue, name string) (*tfprotov6.DynamicValue, error) {
	v, err := dv.Unmarshal(typ)
	if err != nil {
		return nil, err
	}
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil || m == nil {
		return nil, fmt.Errorf("imported state is not an object: %v", err)
	}
	m[attrHost] = tftypes.NewValue(tftypes.String, name)
	out, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, m))
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Moves tells whether resources of this type move between hosts in place
// (Movable) instead of being replaced.
func (s *Server) Moves(ctx context.Context, typeName string) bool {
	s.HostedType(ctx, typeName)
	return s.movable[typeName]
}

// RefOf reads the host attribute of a resource's decoded attributes (null
// when it has none).
func RefOf(attrs map[string]tftypes.Value) Ref {
	v, ok := attrs[attrHost]
	switch {
	case !ok || v.IsNull():
		return Ref{Null: true}
	case !v.IsKnown():
		return Ref{Unknown: true}
	}
	var s string
	_ = v.As(&s)
	return Ref{Name: s}
}

// host reads the host attribute of a value of resource type typeName (of
// object type typ). The tree-resource core decodes it through its cache of
// decoded values, where the core finds it again when the request reaches
// it: the value is decoded once.
func (s *Server) host(typeName string, typ tftypes.Type, dv *tfprotov6.DynamicValue) (Ref, bool) {
	if dv == nil || (dv.MsgPack == nil && dv.JSON == nil) {
		return Ref{}, false
	}
	v, cached, err := s.Server.Decode(typeName, dv)
	if !cached {
		v, err = dv.Unmarshal(typ)
	}
	return hostOf(v, err)
}

// hostOf reads the host attribute of a decoded resource value (err: the
// decoding's error). ok is false when the value is absent, null, unknown or
// could not be decoded.
func hostOf(v tftypes.Value, err error) (h Ref, ok bool) {
	if err != nil || v.Type() == nil || v.IsNull() || !v.IsKnown() {
		return Ref{}, false
	}
	var attrs map[string]tftypes.Value
	if v.As(&attrs) != nil {
		return Ref{}, false
	}
	return RefOf(attrs), true
}
