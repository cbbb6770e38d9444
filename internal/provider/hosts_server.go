package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	msgpack "github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"

	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// hostServer routes each request about a resource with a host attribute to
// that host: it reads the attribute from the request's value and names the
// host in the context, where the resource's Configure finds it
// (treeresource.ClientFromContext). It also holds the rules that are the same
// for every resource:
//
//   - plan: a changed host replaces the resource (RequiresReplace on host),
//     unless both names have the same uri, or the resource moves in place
//     (a treeresource.Movable: libvirt_domain plans its move itself,
//     domain_move.go);
//   - apply: a change of nothing but the host's name, between names with the
//     same uri, is stored without calling the resource;
//   - import: an ID "NAME/ID" whose NAME is one of the provider's hosts
//     imports ID from that host and records host = NAME.
type hostServer struct {
	*treeresource.Server
	p *libvirtProvider

	typesOnce sync.Once
	// hosted are the resource types with a host attribute, and their
	// object types
	hosted map[string]tftypes.Type
	// movable are the resource types whose host changes in place
	// (treeresource.Movable)
	movable map[string]bool
}

func newHostServer(s *treeresource.Server, p *libvirtProvider) *hostServer {
	return &hostServer{Server: s, p: p}
}

// hostedType returns the object type of a resource type with a host
// attribute; ok is false for the others.
func (s *hostServer) hostedType(ctx context.Context, typeName string) (tftypes.Type, bool) {
	s.typesOnce.Do(func() {
		s.hosted = map[string]tftypes.Type{}
		s.movable = map[string]bool{}
		for _, newResource := range s.p.Resources(ctx) {
			r := newResource()
			if _, ok := r.(treeresource.Movable); ok {
				var md resource.MetadataResponse
				r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: providerTypeName}, &md)
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

func (s *hostServer) set() *hostSet { return s.p.hosts }

func (s *hostServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if _, ok := s.hostedType(ctx, req.TypeName); !ok {
		return s.Server.PlanResourceChange(ctx, req)
	}
	prior, priorOK := hostOf(req.PriorState)
	planned, plannedOK := hostOf(req.ProposedNewState)
	h := planned
	if !plannedOK {
		h = prior // destroy
	}
	resp, err := s.Server.PlanResourceChange(withHost(ctx, h), req)
	if err != nil || resp == nil || !priorOK || !plannedOK || s.movable[req.TypeName] {
		return resp, err
	}
	if set := s.set(); set != nil && !set.sameHost(prior, planned) && !hasHostPath(resp.RequiresReplace) {
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

func (s *hostServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	typ, ok := s.hostedType(ctx, req.TypeName)
	if !ok {
		return s.Server.ApplyResourceChange(ctx, req)
	}
	prior, priorOK := hostOf(req.PriorState)
	planned, plannedOK := hostOf(req.PlannedState)
	h := planned
	if !plannedOK {
		h = prior // delete
	}
	if priorOK && plannedOK && prior != planned {
		if set := s.set(); set != nil && set.sameHost(prior, planned) && onlyHostDiffers(typ, req.PriorState, req.PlannedState) {
			// another name for the same connection: nothing to do on libvirt
			return &tfprotov6.ApplyResourceChangeResponse{NewState: req.PlannedState, Private: req.PlannedPrivate}, nil
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

func (s *hostServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	typ, ok := s.hostedType(ctx, req.TypeName)
	if !ok {
		return s.Server.ReadResource(ctx, req)
	}
	h, ok := hostOf(req.CurrentState)
	if !ok {
		return s.Server.ReadResource(ctx, req)
	}
	resp, err := s.Server.ReadResource(withHost(ctx, h), req)
	if err != nil || resp == nil || h.null || h.unknown {
		return resp, err
	}
	// The read after an import starts from nothing but the id and the host
	// (ImportResourceState) and may drop the host with the rest.
	if got, ok := hostOf(resp.NewState); ok && got.null {
		if st, err := setHost(typ, resp.NewState, h.name); err == nil {
			resp.NewState = st
		}
	}
	return resp, nil
}

// ImportResourceState imports "NAME/ID" from host NAME when NAME is one of the
// provider's hosts; any other ID is imported from the provider's uri as before.
func (s *hostServer) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	typ, ok := s.hostedType(ctx, req.TypeName)
	set := s.set()
	if !ok || set == nil {
		return s.Server.ImportResourceState(ctx, req)
	}
	name, rest, found := strings.Cut(req.ID, "/")
	if _, known := set.hosts[name]; !found || !known || rest == "" {
		return s.Server.ImportResourceState(ctx, req)
	}
	h := hostRef{name: name}
	r2 := *req
	r2.ID = rest
	resp, err := s.Server.ImportResourceState(withHost(ctx, h), &r2)
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

// hostOf reads the host attribute of a resource value without decoding the
// rest (a domain's value is large, and every plan and apply passes here).
// ok is false when the value itself is absent, null or unknown.
func hostOf(dv *tfprotov6.DynamicValue) (h hostRef, ok bool) {
	if dv == nil {
		return hostRef{}, false
	}
	if dv.MsgPack == nil {
		if dv.JSON == nil {
			return hostRef{}, false
		}
		return hostOfJSON(dv.JSON)
	}
	dec := msgpack.NewDecoder(bytes.NewReader(dv.MsgPack))
	code, err := dec.PeekCode()
	if err != nil || code == msgpcode.Nil || msgpcode.IsExt(code) {
		return hostRef{}, false
	}
	n, err := dec.DecodeMapLen()
	if err != nil || n < 0 {
		return hostRef{}, false
	}
	for i := 0; i < n; i++ {
		key, err := dec.DecodeString()
		if err != nil {
			return hostRef{}, false
		}
		if key != attrHost {
			if dec.Skip() != nil {
				return hostRef{}, false
			}
			continue
		}
		code, err := dec.PeekCode()
		switch {
		case err != nil:
			return hostRef{}, false
		case code == msgpcode.Nil:
			return hostRef{null: true}, true
		case msgpcode.IsExt(code):
			return hostRef{unknown: true}, true
		}
		name, err := dec.DecodeString()
		if err != nil {
			return hostRef{}, false
		}
		return hostRef{name: name}, true
	}
	return hostRef{null: true}, true // no such attribute (an older state)
}

func hostOfJSON(b []byte) (hostRef, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		return hostRef{}, false
	}
	raw, ok := m[attrHost]
	if !ok || string(raw) == "null" {
		return hostRef{null: true}, true
	}
	var name string
	if json.Unmarshal(raw, &name) != nil {
		return hostRef{unknown: true}, true
	}
	return hostRef{name: name}, true
}
