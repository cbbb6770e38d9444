package treeresource

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// IdentityAttr is one attribute of a tree resource's identity: the stable
// key Terraform (1.12 and later) stores beside the state and imports by
// (`import { identity = {...} }`), and that list resources return.
type IdentityAttr struct {
	Name        string
	Description string
	// RequiredForImport: an import by identity must give it; otherwise it
	// is optional there.
	RequiredForImport bool
	// Attr is the top-level string attribute of the state it is read from.
	Attr string
	// Part, when set, takes the identity's value out of Attr's (a part of a
	// composite id).
	Part func(attr string) string
}

// Identity describes a tree resource's identity. Every identity also has
// the resource's routing attributes (Spec.Routing: the host), taken from the
// state.
//
// The identity is served at the protocol layer (Server), derived from the
// state every time a state leaves the provider (read, apply, import), so it
// never disagrees with the state and a state written before identities
// existed gains one on its next refresh. The framework does not know about
// it: its create and update would demand that every Create and Update of
// every resource set it as well.
type Identity struct {
	Attrs []IdentityAttr
	// ImportID turns the identity values an import gives (null ones absent)
	// into the import ID Hooks.LookUp resolves; an error says which
	// attributes are missing. Nil: the value of the one required attribute.
	ImportID func(vals map[string]string) (string, error)
}

// identityDef is a resource type's identity, prepared for the protocol.
type identityDef struct {
	spec   Identity
	typ    tftypes.Object
	schema *tfprotov6.ResourceIdentitySchema
}

// Identified is a tree resource with an identity (Base implements it when its
// Spec has one).
type Identified interface {
	IdentitySpec() *Identity
}

// IdentitySpec is the resource's identity, nil when its Spec has none.
func (b *Base[T]) IdentitySpec() *Identity {
	if b.spec.Identity == nil {
		return nil
	}
	id := *b.spec.Identity
	id.Attrs = append([]IdentityAttr(nil), id.Attrs...)
	names := make([]string, 0, len(b.spec.Routing))
	for name := range b.spec.Routing {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		id.Attrs = append(id.Attrs, IdentityAttr{
			Name:        name,
			Description: "The `" + name + "` the " + b.noun() + " lives on (a key of the provider's `hosts`); null: the provider's `uri`.",
			Attr:        name,
		})
	}
	return &id
}

func newIdentityDef(spec *Identity) *identityDef {
	if spec == nil {
		return nil
	}
	d := &identityDef{spec: *spec, typ: tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, schema: &tfprotov6.ResourceIdentitySchema{}}
	for _, a := range spec.Attrs {
		d.typ.AttributeTypes[a.Name] = tftypes.String
		d.schema.IdentityAttributes = append(d.schema.IdentityAttributes, &tfprotov6.ResourceIdentitySchemaAttribute{
			Name:              a.Name,
			Type:              tftypes.String,
			RequiredForImport: a.RequiredForImport,
			OptionalForImport: !a.RequiredForImport,
			Description:       a.Description,
		})
	}
	return d
}

// valueOf is the identity of a resource value; nil for a null value, or
// one in which an attribute the identity is made of is not known yet (a
// planned create).
func (d *identityDef) valueOf(state tftypes.Value) *tftypes.Value {
	return d.valueOfAttrs(ObjectAttrs(state))
}

// valueOfAttrs is valueOf for the top-level attributes of a value.
func (d *identityDef) valueOfAttrs(attrs map[string]tftypes.Value) *tftypes.Value {
	if attrs == nil {
		return nil
	}
	vals := make(map[string]tftypes.Value, len(d.spec.Attrs))
	for _, a := range d.spec.Attrs {
		src, ok := attrs[a.Attr]
		if ok && !src.IsKnown() {
			return nil
		}
		s, ok := String(attrs, a.Attr)
		if ok && a.Part != nil {
			s = a.Part(s)
		}
		if ok && s != "" {
			vals[a.Name] = tftypes.NewValue(tftypes.String, s)
		} else {
			vals[a.Name] = tftypes.NewValue(tftypes.String, nil)
		}
	}
	v := tftypes.NewValue(d.typ, vals)
	return &v
}

// data encodes the identity of a resource value for the protocol; nil for
// a null value.
func (d *identityDef) data(state tftypes.Value) (*tfprotov6.ResourceIdentityData, error) {
	v := d.valueOf(state)
	if v == nil {
		return nil, nil
	}
	dv, err := tfprotov6.NewDynamicValue(d.typ, *v)
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}, nil
}

// values decodes an identity given by Terraform: the non-null attributes.
func (d *identityDef) values(id *tfprotov6.ResourceIdentityData) (map[string]string, error) {
	if id == nil || id.IdentityData == nil {
		return nil, fmt.Errorf("no identity given")
	}
	v, err := id.IdentityData.Unmarshal(d.typ)
	if err != nil {
		return nil, err
	}
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, av := range m {
		if av.IsNull() || !av.IsKnown() {
			continue
		}
		var s string
		if err := av.As(&s); err != nil {
			return nil, err
		}
		if s != "" {
			out[name] = s
		}
	}
	return out, nil
}

// importID is the import ID an identity stands for.
func (d *identityDef) importID(vals map[string]string) (string, error) {
	if d.spec.ImportID != nil {
		return d.spec.ImportID(vals)
	}
	var missing []string
	for _, a := range d.spec.Attrs {
		if !a.RequiredForImport {
			continue
		}
		if v, ok := vals[a.Name]; ok {
			return v, nil
		}
		missing = append(missing, a.Name)
	}
	return "", fmt.Errorf("identity.%s is required", strings.Join(missing, ", identity."))
}

// IdentityHost returns the host an identity given to import names ("" when
// it names none), for the host routing in front of this server; ok is false
// when the type has no identity or the value cannot be read.
func (s *Server) IdentityHost(typeName, attr string, id *tfprotov6.ResourceIdentityData) (host string, ok bool) {
	t, known := s.types[typeName]
	if !known || t.identity == nil {
		return "", false
	}
	vals, err := t.identity.values(id)
	if err != nil {
		return "", false
	}
	return vals[attr], true
}

// GetResourceIdentitySchemas adds the tree resources' identity schemas to the
// framework's.
func (s *Server) GetResourceIdentitySchemas(ctx context.Context, req *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	resp, err := s.ProviderServer.GetResourceIdentitySchemas(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp == nil {
		resp = &tfprotov6.GetResourceIdentitySchemasResponse{}
	}
	if resp.IdentitySchemas == nil {
		resp.IdentitySchemas = map[string]*tfprotov6.ResourceIdentitySchema{}
	}
	for name, t := range s.types {
		if t.identity != nil {
			resp.IdentitySchemas[name] = t.identity.schema
		}
	}
	return resp, nil
}

// IdentitySchema is the identity schema of a tree resource type (nil when it
// has none): list resources return identities of this schema.
func (s *Server) IdentitySchema(typeName string) *tfprotov6.ResourceIdentitySchema {
	if t, ok := s.types[typeName]; ok && t.identity != nil {
		return t.identity.schema
	}
	return nil
}

// IdentityOf is the identity of a value of the tree resource type (nil when
// the type has none or the value is null).
func (s *Server) IdentityOf(typeName string, state tftypes.Value) *tftypes.Value {
	if t, ok := s.types[typeName]; ok && t.identity != nil {
		return t.identity.valueOf(state)
	}
	return nil
}

// IdentityOfAttrs is IdentityOf for the attributes the identity is made of
// (a listing knows them without reading the whole object).
func (s *Server) IdentityOfAttrs(typeName string, attrs map[string]tftypes.Value) *tftypes.Value {
	if t, ok := s.types[typeName]; ok && t.identity != nil {
		return t.identity.valueOfAttrs(attrs)
	}
	return nil
}

// UpgradeResourceIdentity reads a stored identity of a tree resource (there
// is one version so far; attributes it does not know are dropped).
func (s *Server) UpgradeResourceIdentity(ctx context.Context, req *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	t, ok := s.types[req.TypeName]
	if !ok || t.identity == nil {
		return s.ProviderServer.UpgradeResourceIdentity(ctx, req)
	}
	resp := &tfprotov6.UpgradeResourceIdentityResponse{}
	if req.RawIdentity == nil {
		return resp, nil
	}
	v, err := req.RawIdentity.UnmarshalWithOpts(t.identity.typ, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		resp.Diagnostics = []*tfprotov6.Diagnostic{{
			Severity: tfprotov6.DiagnosticSeverityError,
			Summary:  "Cannot read the stored identity",
			Detail:   fmt.Sprintf("%s: %v", req.TypeName, err),
		}}
		return resp, nil
	}
	dv, err := tfprotov6.NewDynamicValue(t.identity.typ, v)
	if err != nil {
		return nil, err
	}
	resp.UpgradedIdentity = &tfprotov6.ResourceIdentityData{IdentityData: &dv}
	return resp, nil
}

// ImportResourceState imports by identity: the identity is turned into the
// import ID the resource resolves (the host, if any, is the host routing's
// business), and the read that follows derives the full identity from the
// state. An import by ID goes to the framework unchanged.
func (s *Server) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	t, ok := s.types[req.TypeName]
	if !ok || t.identity == nil || req.Identity == nil || req.ID != "" {
		return s.ProviderServer.ImportResourceState(ctx, req)
	}
	vals, err := t.identity.values(req.Identity)
	if err == nil {
		var id string
		if id, err = t.identity.importID(vals); err == nil {
			r2 := *req
			r2.ID, r2.Identity = id, nil
			resp, err := s.ProviderServer.ImportResourceState(ctx, &r2)
			if err != nil || resp == nil {
				return resp, err
			}
			// the identity as given (Terraform requires one); the read that
			// follows derives the whole of it from the state
			for _, imp := range resp.ImportedResources {
				if imp != nil {
					imp.Identity = req.Identity
				}
			}
			return resp, nil
		}
	}
	names := make([]string, 0, len(t.identity.spec.Attrs))
	for _, a := range t.identity.spec.Attrs {
		names = append(names, a.Name)
	}
	sort.Strings(names)
	return &tfprotov6.ImportResourceStateResponse{Diagnostics: []*tfprotov6.Diagnostic{{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Invalid import identity",
		Detail:   fmt.Sprintf("%s: %v (identity attributes: %s)", req.TypeName, err, strings.Join(names, ", ")),
	}}}, nil
}

// ApplyResourceChange adds the identity of the new state to the framework's
// answer. The framework's resources know no identity (it is served here), so
// the planned identity is not passed on: the framework refuses identity data
// for a resource without an identity schema ("Unable to Convert Resource
// Identity", on every update of a resource that has one).
func (s *Server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	t, ok := s.types[req.TypeName]
	if !ok || t.identity == nil {
		return s.ProviderServer.ApplyResourceChange(ctx, req)
	}
	fwReq := *req
	fwReq.PlannedIdentity = nil
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, &fwReq)
	if err != nil || resp == nil {
		return resp, err
	}
	if err := t.addIdentity(resp.NewState, &resp.NewIdentity); err != nil {
		return nil, err
	}
	return resp, nil
}

// IdentityData is the identity of an encoded value of the tree resource
// type; nil when the type has none, or the value is null or not known yet.
func (s *Server) IdentityData(typeName string, state *tfprotov6.DynamicValue) (*tfprotov6.ResourceIdentityData, error) {
	t, ok := s.types[typeName]
	if !ok {
		return nil, nil
	}
	var out *tfprotov6.ResourceIdentityData
	err := t.addIdentity(state, &out)
	return out, err
}

// addIdentity sets *out to the identity of the encoded state (left alone when
// the state is null, as a destroyed resource has none, or not known yet).
func (t *treeType) addIdentity(state *tfprotov6.DynamicValue, out **tfprotov6.ResourceIdentityData) error {
	if t.identity == nil || state == nil {
		return nil
	}
	v, err := t.values.decode(state, t.objType)
	if err != nil {
		return err
	}
	if v.IsNull() {
		return nil
	}
	id, err := t.identity.data(v)
	if err != nil || id == nil {
		return err
	}
	*out = id
	return nil
}
