package treeresource

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// A fake tree resource (the pool document, own attributes of every kind
// with validators, defaults and plan modifiers, private state in ModifyPlan
// and Read) and a fake provider serving it, so that the protocol layer can
// be compared with the framework's server without libvirtd.

// reject is a validator of every kind that refuses one value, named by its
// string form.
type reject struct{ bad string }

func (v reject) Description(context.Context) string         { return "not " + v.bad }
func (v reject) MarkdownDescription(context.Context) string { return "not " + v.bad }

func (v reject) check(p path.Path, val attr.Value, add func(path.Path, string, string)) {
	if !val.IsNull() && !val.IsUnknown() && val.String() == v.bad {
		add(p, "Rejected value", fmt.Sprintf("%s must not be %s", p, v.bad))
	}
}
func (v reject) ValidateString(_ context.Context, r validator.StringRequest, w *validator.StringResponse) {
	v.check(r.Path, r.ConfigValue, w.Diagnostics.AddAttributeError)
}
func (v reject) ValidateBool(_ context.Context, r validator.BoolRequest, w *validator.BoolResponse) {
	v.check(r.Path, r.ConfigValue, w.Diagnostics.AddAttributeError)
}
func (v reject) ValidateInt64(_ context.Context, r validator.Int64Request, w *validator.Int64Response) {
	v.check(r.Path, r.ConfigValue, w.Diagnostics.AddAttributeError)
}
func (v reject) ValidateFloat64(_ context.Context, r validator.Float64Request, w *validator.Float64Response) {
	v.check(r.Path, r.ConfigValue, w.Diagnostics.AddAttributeError)
}
func (v reject) ValidateNumber(_ context.Context, r validator.NumberRequest, w *validator.NumberResponse) {
	v.check(r.Path, r.ConfigValue, w.Diagnostics.AddAttributeError)
}
func (v reject) ValidateList(_ context.Context, r validator.ListRequest, w *validator.ListResponse) {
	v.check(r.Path, r.ConfigValue, w.Diagnostics.AddAttributeError)
}
func (v reject) ValidateSet(_ context.Context, r validator.SetRequest, w *validator.SetResponse) {
	v.check(r.Path, r.ConfigValue, w.Diagnostics.AddAttributeError)
}
func (v reject) ValidateMap(_ context.Context, r validator.MapRequest, w *validator.MapResponse) {
	v.check(r.Path, r.ConfigValue, w.Diagnostics.AddAttributeError)
}
func (v reject) ValidateObject(_ context.Context, r validator.ObjectRequest, w *validator.ObjectResponse) {
	v.check(r.Path, r.ConfigValue, w.Diagnostics.AddAttributeError)
}

// remember is a string plan modifier that records the planned value in the
// resource's private state.
type remember struct{}

func (remember) Description(context.Context) string         { return "remember" }
func (remember) MarkdownDescription(context.Context) string { return "remember" }
func (remember) PlanModifyString(ctx context.Context, r planmodifier.StringRequest, w *planmodifier.StringResponse) {
	if r.PlanValue.IsNull() || r.PlanValue.IsUnknown() {
		return
	}
	w.Diagnostics.Append(w.Private.SetKey(ctx, "label", []byte(fmt.Sprintf("%q", r.PlanValue.ValueString())))...)
}

func fakeOwn() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"label": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("none"),
			Validators: []validator.String{reject{`"bad"`}}, PlanModifiers: []planmodifier.String{remember{}, stringplanmodifier.RequiresReplace()}},
		"enabled":  schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true), Validators: []validator.Bool{reject{"false"}}},
		"replicas": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(1), Validators: []validator.Int64{reject{"13"}}, PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()}},
		"ratio":    schema.Float64Attribute{Optional: true, Validators: []validator.Float64{reject{"0.500000"}}},
		"big":      schema.NumberAttribute{Optional: true, Validators: []validator.Number{reject{"7"}}},
		"tags":     schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: []validator.List{reject{`["x"]`}}},
		"set":      schema.SetAttribute{Optional: true, ElementType: types.StringType, Validators: []validator.Set{reject{`["y"]`}}},
		"labels":   schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: []validator.Map{reject{`{"k":"v"}`}}},
		"plain":    schema.ObjectAttribute{Optional: true, AttributeTypes: map[string]attr.Type{"a": types.StringType}, Validators: []validator.Object{reject{`{"a":"z"}`}}},
		"nested": schema.SingleNestedAttribute{Optional: true, Validators: []validator.Object{reject{`{"inner":"whole"}`}}, Attributes: map[string]schema.Attribute{
			"inner": schema.StringAttribute{Optional: true, Validators: []validator.String{reject{`"deep"`}}},
		}},
		"items": schema.ListNestedAttribute{Optional: true, Validators: []validator.List{reject{`[{"v":"all"}]`}}, NestedObject: schema.NestedAttributeObject{
			Validators: []validator.Object{reject{`{"v":"elem"}`}},
			Attributes: map[string]schema.Attribute{"v": schema.StringAttribute{Optional: true, Validators: []validator.String{reject{`"leaf"`}}}},
		}},
		"old": schema.StringAttribute{Optional: true, DeprecationMessage: "use label"},
	}
}

type fakeResource struct {
	Base[libvirtxml.StoragePool]
	fetch func(id string) (*Fetched[libvirtxml.StoragePool], error)
}

func newFakeResource(fetch func(id string) (*Fetched[libvirtxml.StoragePool], error)) func() resource.Resource {
	return func() resource.Resource {
		r := &fakeResource{fetch: fetch}
		r.Base = NewBase(Spec[libvirtxml.StoragePool]{
			Name: "fake", Model: xmlschema.StoragePool(), Description: "fake", Own: fakeOwn(),
			ReplaceOnChange: []string{AllDocument},
		}, r)
		return r
	}
}

func (r *fakeResource) Fetch(_ context.Context, _ *libvirtconn.Client, id string) (*Fetched[libvirtxml.StoragePool], error) {
	return r.fetch(id)
}

func (r *fakeResource) LookUp(context.Context, *libvirtconn.Client, string) (string, error) {
	return "", errors.New("not used")
}

func (r *fakeResource) FixUp(prior map[string]tftypes.Value, doc *libvirtxml.StoragePool) {
	// keep the user's spelling of the type, as real fix-ups keep theirs
	if s, ok := String(prior, "type"); ok && s == "DIR" && doc.Type == "dir" {
		doc.Type = s
	}
}

func (r *fakeResource) PruneImported(doc *libvirtxml.StoragePool) { doc.Source = nil }

func (r *fakeResource) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {}
func (r *fakeResource) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}
func (r *fakeResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

func (r *fakeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.AddWarning("Destroying fake", "ModifyPlan runs on destroy")
		return
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, "planned", []byte(`true`))...)
	if plan := r.PlanUpdate(req, &resp.RequiresReplace); plan != nil {
		SetPlan(resp, plan)
	}
}

func (r *fakeResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if s, ok := String(ObjectAttrs(req.Config.Raw), "name"); ok && s == "forbidden" {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Forbidden name", "the fake refuses this name")
	}
}

func (r *fakeResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{nameNotLabel{}}
}

type nameNotLabel struct{}

func (nameNotLabel) Description(context.Context) string         { return "name differs from label" }
func (nameNotLabel) MarkdownDescription(context.Context) string { return "name differs from label" }
func (nameNotLabel) ValidateResource(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	a := ObjectAttrs(req.Config.Raw)
	if n, ok := String(a, "name"); ok {
		if l, ok := String(a, "label"); ok && n == l {
			resp.Diagnostics.AddWarning("Name equals label", "name and label are the same")
		}
	}
}

// Read adds a private key on top of the base's Read.
func (r *fakeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.Base.Read(ctx, req, resp)
	if old, _ := req.Private.GetKey(ctx, "planned"); old != nil {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, "read", old)...)
	}
}

type fakeProvider struct {
	resources []func() resource.Resource
	client    *libvirtconn.Client
}

func (p *fakeProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "libvirt"
}
func (p *fakeProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{}
}
func (p *fakeProvider) Configure(_ context.Context, _ provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	c, err := libvirtconn.New("test:///default")
	if err != nil {
		resp.Diagnostics.AddError("client", err.Error())
		return
	}
	p.client = c
	resp.ResourceData = c
}
func (p *fakeProvider) Resources(context.Context) []func() resource.Resource { return p.resources }
func (p *fakeProvider) DataSources(context.Context) []func() datasource.DataSource {
	return nil
}
