package treeresource

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// identFake is the fake tree resource with an identity: its UUID, and the
// host; LookUp resolves the pool's name or UUID.
type identFake struct{ fakeResource }

func (r *identFake) LookUp(_ context.Context, _ *libvirtconn.Client, importID string) (string, error) {
	if importID == fakeUUID || importID == "p" {
		return fakeUUID, nil
	}
	return "", fmt.Errorf("no pool %q: %w", importID, libvirtconn.ErrNotFound)
}

func newIdentityServer(t *testing.T) (*Server, tftypes.Object) {
	t.Helper()
	ctx := context.Background()
	fetch := func(id string) (*Fetched[libvirtxml.StoragePool], error) {
		if id != fakeUUID {
			return nil, fmt.Errorf("no pool %s: %w", id, libvirtconn.ErrNotFound)
		}
		return &Fetched[libvirtxml.StoragePool]{Doc: &libvirtxml.StoragePool{Type: "dir", Name: "p", UUID: fakeUUID},
			Own: map[string]tftypes.Value{"id": StringValue(id)}}, nil
	}
	newRes := func() resource.Resource {
		r := &identFake{fakeResource{fetch: fetch}}
		r.Base = NewBase(Spec[libvirtxml.StoragePool]{
			Name: "fake", Model: xmlschema.StoragePool(), Description: "fake", Own: fakeOwn(),
			ReplaceOnChange: []string{AllDocument},
			Identity:        &Identity{Attrs: []IdentityAttr{{Name: "uuid", Description: "UUID", RequiredForImport: true, Attr: "id"}}},
			// the host routing's attribute (hostroute.Attributes), which the identity carries too
			Routing: map[string]schema.Attribute{"host": schema.StringAttribute{Optional: true}},
		}, r)
		return r
	}
	p := &fakeProvider{resources: []func() resource.Resource{newRes}}
	srv, err := NewServer(ctx, providerserver.NewProtocol6(p)(), "libvirt", p.resources, func() any {
		if p.client == nil {
			return nil
		}
		return p.client
	})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || HasError(sch.Diagnostics) {
		t.Fatalf("schema: %v %v", err, sch.Diagnostics)
	}
	cfg, _ := tfprotov6.NewDynamicValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, map[string]tftypes.Value{}))
	if resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &cfg}); err != nil || HasError(resp.Diagnostics) {
		t.Fatalf("configure: %v %v", err, resp.Diagnostics)
	}
	return srv, sch.ResourceSchemas["libvirt_fake"].ValueType().(tftypes.Object)
}

var identType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"uuid": tftypes.String, "host": tftypes.String}}

func identityData(t *testing.T, uuid, host any) *tfprotov6.ResourceIdentityData {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(identType, tftypes.NewValue(identType, map[string]tftypes.Value{
		"uuid": tftypes.NewValue(tftypes.String, uuid), "host": tftypes.NewValue(tftypes.String, host)}))
	if err != nil {
		t.Fatal(err)
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}
}

// readIdentity decodes an identity the server returned.
func readIdentity(t *testing.T, id *tfprotov6.ResourceIdentityData) map[string]tftypes.Value {
	t.Helper()
	if id == nil || id.IdentityData == nil {
		t.Fatal("no identity returned")
	}
	v, err := id.IdentityData.Unmarshal(identType)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func objectValue(typ tftypes.Object, attrs map[string]tftypes.Value) tftypes.Value {
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		if v, ok := attrs[name]; ok {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(at, nil)
		}
	}
	return tftypes.NewValue(typ, vals)
}

func TestIdentitySchemas(t *testing.T) {
	srv, _ := newIdentityServer(t)
	resp, err := srv.GetResourceIdentitySchemas(context.Background(), &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	sch := resp.IdentitySchemas["libvirt_fake"]
	if sch == nil {
		t.Fatalf("no identity schema for libvirt_fake: %v", resp.IdentitySchemas)
	}
	got := map[string]string{}
	for _, a := range sch.IdentityAttributes {
		got[a.Name] = fmt.Sprintf("required=%v optional=%v", a.RequiredForImport, a.OptionalForImport)
	}
	want := map[string]string{"uuid": "required=true optional=false", "host": "required=false optional=true"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("identity attributes = %v, want %v", got, want)
	}
}

// A state written before identities existed (no CurrentIdentity) gains one
// on its next read.
func TestIdentityOnRead(t *testing.T) {
	srv, typ := newIdentityServer(t)
	state := objectValue(typ, map[string]tftypes.Value{"id": s(fakeUUID), "name": s("p"), "type": s("dir"), "host": s("h1")})
	dv, _ := tfprotov6.NewDynamicValue(typ, state)
	resp, err := srv.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{TypeName: "libvirt_fake", CurrentState: &dv})
	if err != nil || HasError(resp.Diagnostics) {
		t.Fatalf("read: %v %v", err, DiagStrings(resp.Diagnostics))
	}
	id := readIdentity(t, resp.NewIdentity)
	if !id["uuid"].Equal(s(fakeUUID)) || !id["host"].Equal(s("h1")) {
		t.Errorf("identity after read = %v, want uuid %s, host h1", id, fakeUUID)
	}
}

func TestIdentityImport(t *testing.T) {
	srv, typ := newIdentityServer(t)
	ctx := context.Background()
	resp, err := srv.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: "libvirt_fake", Identity: identityData(t, "p", nil)})
	if err != nil || HasError(resp.Diagnostics) {
		t.Fatalf("import: %v %v", err, DiagStrings(resp.Diagnostics))
	}
	if len(resp.ImportedResources) != 1 {
		t.Fatalf("imported %d resources", len(resp.ImportedResources))
	}
	v, err := resp.ImportedResources[0].State.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := String(ObjectAttrs(v), "id"); id != fakeUUID {
		t.Errorf("imported id = %q, want the UUID the name resolves to", id)
	}
	if resp.ImportedResources[0].Identity == nil {
		t.Error("the import answer has no identity (Terraform requires one)")
	}

	// no uuid: a diagnostic naming the attribute
	resp, err = srv.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: "libvirt_fake", Identity: identityData(t, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if d := strings.Join(DiagStrings(resp.Diagnostics), " "); !strings.Contains(d, "identity.uuid is required") {
		t.Errorf("import without uuid: diagnostics %q, want one naming identity.uuid", d)
	}
}

func TestIdentityPlan(t *testing.T) {
	srv, typ := newIdentityServer(t)
	ctx := context.Background()
	state := objectValue(typ, map[string]tftypes.Value{"id": s(fakeUUID), "name": s("p"), "type": s("dir")})
	sdv, _ := tfprotov6.NewDynamicValue(typ, state)
	resp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "libvirt_fake",
		PriorState: &sdv, ProposedNewState: &sdv, Config: &sdv})
	if err != nil || HasError(resp.Diagnostics) {
		t.Fatalf("plan: %v %v", err, DiagStrings(resp.Diagnostics))
	}
	if id := readIdentity(t, resp.PlannedIdentity); !id["uuid"].Equal(s(fakeUUID)) {
		t.Errorf("planned identity = %v", id)
	}

	// a create does not know its UUID yet: no planned identity
	create := objectValue(typ, map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, tftypes.UnknownValue), "name": s("p"), "type": s("dir")})
	cdv, _ := tfprotov6.NewDynamicValue(typ, create)
	cfg := objectValue(typ, map[string]tftypes.Value{"name": s("p"), "type": s("dir")})
	cfgdv, _ := tfprotov6.NewDynamicValue(typ, cfg)
	null, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	resp, err = srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: "libvirt_fake",
		PriorState: &null, ProposedNewState: &cdv, Config: &cfgdv})
	if err != nil || HasError(resp.Diagnostics) {
		t.Fatalf("plan create: %v %v", err, DiagStrings(resp.Diagnostics))
	}
	if resp.PlannedIdentity != nil {
		t.Errorf("a create planned an identity: %v", resp.PlannedIdentity)
	}
}

func TestIdentityUpgrade(t *testing.T) {
	srv, _ := newIdentityServer(t)
	resp, err := srv.UpgradeResourceIdentity(context.Background(), &tfprotov6.UpgradeResourceIdentityRequest{TypeName: "libvirt_fake",
		RawIdentity: &tfprotov6.RawState{JSON: []byte(`{"uuid":"` + fakeUUID + `","host":null,"gone":1}`)}})
	if err != nil || HasError(resp.Diagnostics) {
		t.Fatalf("upgrade: %v %v", err, DiagStrings(resp.Diagnostics))
	}
	if id := readIdentity(t, resp.UpgradedIdentity); !id["uuid"].Equal(s(fakeUUID)) || !id["host"].IsNull() {
		t.Errorf("upgraded identity = %v", id)
	}
}
