package provider

import (
	"context"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// treeResource is a resource whose schema is an engine document tree plus
// top-level attributes of its own. Its plan is made by fastPlanner: plan
// modifiers and defaults are honoured on the top-level own attributes only
// (the tree has none), computed tree values follow the engine's rules, and
// the resource's ModifyPlan runs last.
type treeResource interface {
	resource.Resource
	documentModel() documentModel
}

// documentModel is what planning needs from an xmlschema.Model.
type documentModel interface {
	AttributeTypes() map[string]tftypes.Type
	PlanComputed(planned, config map[string]tftypes.Value) map[string]tftypes.Value
	Validate(vals map[string]tftypes.Value) error
}

type fastPlanner struct {
	newResource func() resource.Resource
	schema      schema.Schema
	objType     tftypes.Type
	model       documentModel
	own         map[string]schema.Attribute // top-level attributes outside the tree
	values      valueCache
}

func newFastPlanner(ctx context.Context, f func() resource.Resource) *fastPlanner {
	r := f()
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	model := r.(treeResource).documentModel()
	own := map[string]schema.Attribute{}
	docTypes := model.AttributeTypes()
	for name, a := range sr.Schema.Attributes {
		if _, inTree := docTypes[name]; !inTree {
			own[name] = a
		}
	}
	return &fastPlanner{
		newResource: f,
		schema:      sr.Schema,
		objType:     sr.Schema.Type().TerraformType(ctx),
		model:       model,
		own:         own,
	}
}

func (fp *fastPlanner) plan(ctx context.Context, client *libvirtconn.Client, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp := &tfprotov6.PlanResourceChangeResponse{PlannedPrivate: req.PriorPrivate}
	proposed, err := fp.values.decode(req.ProposedNewState, fp.objType)
	if err != nil {
		return nil, err
	}
	if proposed.IsNull() {
		resp.PlannedState = req.ProposedNewState // destroy
		return resp, nil
	}
	prior, err := fp.values.decode(req.PriorState, fp.objType)
	if err != nil {
		return nil, err
	}
	config, err := fp.values.decode(req.Config, fp.objType)
	if err != nil {
		return nil, err
	}
	pa, ca, sa := objectAttrs(proposed), objectAttrs(config), objectAttrs(prior)
	var diags diag.Diagnostics

	// defaults of own attributes, as the framework applies them
	for name, a := range fp.own {
		if v := ca[name]; v.IsNull() {
			if d, ok := defaultValue(ctx, a); ok {
				pa[name] = d
			}
		}
	}
	if prior.IsNull() || !sameAttrs(pa, sa) {
		docTypes := fp.model.AttributeTypes()
		for name, v := range fp.model.PlanComputed(docValues(docTypes, pa), docValues(docTypes, ca)) {
			pa[name] = v
		}
		for name, a := range fp.own {
			if a.IsComputed() && ca[name].IsNull() {
				if _, hasDefault := defaultValue(ctx, a); !hasDefault {
					pa[name] = tftypes.NewValue(pa[name].Type(), tftypes.UnknownValue)
				}
			}
		}
	}
	cfg := tfsdk.Config{Schema: fp.schema, Raw: config}
	state := tfsdk.State{Schema: fp.schema, Raw: prior}
	plan := tfsdk.Plan{Schema: fp.schema, Raw: proposed} // modifiers read their own values from the requests
	var replace []path.Path
	for name, a := range fp.own {
		fp.runModifiers(ctx, name, a, cfg, state, &plan, pa, ca, sa, &replace, &diags)
	}
	plan.Raw = tftypes.NewValue(fp.objType, pa)

	r := fp.newResource()
	if rc, ok := r.(resource.ResourceWithConfigure); ok && client != nil {
		rc.Configure(ctx, resource.ConfigureRequest{ProviderData: client}, &resource.ConfigureResponse{})
	}
	if rm, ok := r.(resource.ResourceWithModifyPlan); ok && !diags.HasError() {
		mreq := resource.ModifyPlanRequest{Config: cfg, Plan: plan, State: state}
		mresp := resource.ModifyPlanResponse{Plan: plan, RequiresReplace: replace}
		rm.ModifyPlan(ctx, mreq, &mresp)
		diags.Append(mresp.Diagnostics...)
		plan, replace = mresp.Plan, mresp.RequiresReplace
	}
	resp.Diagnostics = toProtoDiagnostics(diags)
	if diags.HasError() {
		return resp, nil
	}
	planned, err := fp.values.encode(fp.objType, plan.Raw)
	if err != nil {
		return nil, err
	}
	resp.PlannedState = &planned
	for _, p := range replace {
		if ap := toAttributePath(p); ap != nil {
			resp.RequiresReplace = append(resp.RequiresReplace, ap)
		}
	}
	return resp, nil
}

// defaultValue returns the Default of a top-level own attribute as a tftypes value.
func defaultValue(ctx context.Context, a schema.Attribute) (tftypes.Value, bool) {
	switch a := a.(type) {
	case schema.BoolAttribute:
		if a.Default == nil {
			return tftypes.Value{}, false
		}
		var r defaults.BoolResponse
		a.Default.DefaultBool(ctx, defaults.BoolRequest{}, &r)
		return tftypes.NewValue(tftypes.Bool, r.PlanValue.ValueBool()), true
	case schema.StringAttribute:
		if a.Default == nil {
			return tftypes.Value{}, false
		}
		var r defaults.StringResponse
		a.Default.DefaultString(ctx, defaults.StringRequest{}, &r)
		return tftypes.NewValue(tftypes.String, r.PlanValue.ValueString()), true
	case schema.Int64Attribute:
		if a.Default == nil {
			return tftypes.Value{}, false
		}
		var r defaults.Int64Response
		a.Default.DefaultInt64(ctx, defaults.Int64Request{}, &r)
		return tftypes.NewValue(tftypes.Number, r.PlanValue.ValueInt64()), true
	}
	return tftypes.Value{}, false
}

// runModifiers runs the plan modifiers of a top-level string, bool or int64
// attribute and writes the result into pa.
func (fp *fastPlanner) runModifiers(ctx context.Context, name string, a schema.Attribute, cfg tfsdk.Config, state tfsdk.State, plan *tfsdk.Plan,
	pa, ca, sa map[string]tftypes.Value, replace *[]path.Path, diags *diag.Diagnostics) {
	p := path.Root(name)
	stateVal := func(t tftypes.Type) tftypes.Value {
		if v, ok := sa[name]; ok {
			return v
		}
		return tftypes.NewValue(t, nil)
	}
	switch a := a.(type) {
	case schema.StringAttribute:
		for _, m := range a.PlanModifiers {
			req := planmodifier.StringRequest{Path: p, Config: cfg, State: state, Plan: *plan,
				ConfigValue: toString(ca[name]), PlanValue: toString(pa[name]), StateValue: toString(stateVal(tftypes.String))}
			resp := planmodifier.StringResponse{PlanValue: req.PlanValue}
			m.PlanModifyString(ctx, req, &resp)
			diags.Append(resp.Diagnostics...)
			pa[name] = fromAttrValue(ctx, resp.PlanValue)
			if resp.RequiresReplace {
				*replace = append(*replace, p)
			}
		}
	case schema.BoolAttribute:
		for _, m := range a.PlanModifiers {
			req := planmodifier.BoolRequest{Path: p, Config: cfg, State: state, Plan: *plan,
				ConfigValue: toBool(ca[name]), PlanValue: toBool(pa[name]), StateValue: toBool(stateVal(tftypes.Bool))}
			resp := planmodifier.BoolResponse{PlanValue: req.PlanValue}
			m.PlanModifyBool(ctx, req, &resp)
			diags.Append(resp.Diagnostics...)
			pa[name] = fromAttrValue(ctx, resp.PlanValue)
			if resp.RequiresReplace {
				*replace = append(*replace, p)
			}
		}
	case schema.Int64Attribute:
		for _, m := range a.PlanModifiers {
			req := planmodifier.Int64Request{Path: p, Config: cfg, State: state, Plan: *plan,
				ConfigValue: toInt64(ca[name]), PlanValue: toInt64(pa[name]), StateValue: toInt64(stateVal(tftypes.Number))}
			resp := planmodifier.Int64Response{PlanValue: req.PlanValue}
			m.PlanModifyInt64(ctx, req, &resp)
			diags.Append(resp.Diagnostics...)
			pa[name] = fromAttrValue(ctx, resp.PlanValue)
			if resp.RequiresReplace {
				*replace = append(*replace, p)
			}
		}
	case schema.ListAttribute, schema.SingleNestedAttribute, schema.ListNestedAttribute:
		if hasModifiers(a) {
			diags.AddError("Provider bug", fmt.Sprintf("attribute %q: plan modifiers on collection attributes are not supported by the tree planner", name))
		}
	}
}

func hasModifiers(a schema.Attribute) bool {
	switch a := a.(type) {
	case schema.ListAttribute:
		return len(a.PlanModifiers) > 0
	case schema.SingleNestedAttribute:
		return len(a.PlanModifiers) > 0
	case schema.ListNestedAttribute:
		return len(a.PlanModifiers) > 0
	}
	return false
}

func toString(v tftypes.Value) types.String {
	switch {
	case v.Type() == nil || v.IsNull():
		return types.StringNull()
	case !v.IsKnown():
		return types.StringUnknown()
	}
	var s string
	_ = v.As(&s)
	return types.StringValue(s)
}

func toBool(v tftypes.Value) types.Bool {
	switch {
	case v.Type() == nil || v.IsNull():
		return types.BoolNull()
	case !v.IsKnown():
		return types.BoolUnknown()
	}
	var b bool
	_ = v.As(&b)
	return types.BoolValue(b)
}

func toInt64(v tftypes.Value) types.Int64 {
	switch {
	case v.Type() == nil || v.IsNull():
		return types.Int64Null()
	case !v.IsKnown():
		return types.Int64Unknown()
	}
	var f big.Float
	_ = v.As(&f)
	i, _ := f.Int64()
	return types.Int64Value(i)
}

func fromAttrValue(ctx context.Context, v attr.Value) tftypes.Value {
	tv, err := v.ToTerraformValue(ctx)
	if err != nil {
		return tftypes.NewValue(v.Type(ctx).TerraformType(ctx), tftypes.UnknownValue)
	}
	return tv
}

// toProtoDiagnostics converts framework diagnostics for a protocol response.
func toProtoDiagnostics(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Summary: d.Summary(), Detail: d.Detail(), Severity: tfprotov6.DiagnosticSeverityWarning}
		if d.Severity() == diag.SeverityError {
			pd.Severity = tfprotov6.DiagnosticSeverityError
		}
		if dp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = toAttributePath(dp.Path())
		}
		out = append(out, pd)
	}
	return out
}

func toAttributePath(p path.Path) *tftypes.AttributePath {
	if p.Equal(path.Empty()) {
		return nil
	}
	ap := tftypes.NewAttributePath()
	for _, s := range p.Steps() {
		switch s := s.(type) {
		case path.PathStepAttributeName:
			ap = ap.WithAttributeName(string(s))
		case path.PathStepElementKeyInt:
			ap = ap.WithElementKeyInt(int(s))
		case path.PathStepElementKeyString:
			ap = ap.WithElementKeyString(string(s))
		default:
			return ap
		}
	}
	return ap
}

// sameAttrs compares two attribute maps value by value (cheaper than building
// and comparing whole objects, which re-checks the large tree type).
func sameAttrs(a, b map[string]tftypes.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !v.Equal(w) {
			return false
		}
	}
	return true
}

func (fp *fastPlanner) validate(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	config, err := fp.values.decode(req.Config, fp.objType)
	if err != nil {
		return nil, err
	}
	ca := objectAttrs(config)
	cfg := tfsdk.Config{Schema: fp.schema, Raw: config}
	var diags diag.Diagnostics
	// what the engine would reject at apply, reported now at its path
	if ca != nil {
		if err := fp.model.Validate(docValues(fp.model.AttributeTypes(), ca)); err != nil {
			addConversionError(&diags, "Invalid configuration", err)
		}
	}
	for name, a := range fp.own {
		p := path.Root(name)
		switch a := a.(type) {
		case schema.StringAttribute:
			for _, v := range a.Validators {
				var r validator.StringResponse
				v.ValidateString(ctx, validator.StringRequest{Path: p, Config: cfg, ConfigValue: toString(ca[name])}, &r)
				diags.Append(r.Diagnostics...)
			}
		case schema.BoolAttribute:
			for _, v := range a.Validators {
				var r validator.BoolResponse
				v.ValidateBool(ctx, validator.BoolRequest{Path: p, Config: cfg, ConfigValue: toBool(ca[name])}, &r)
				diags.Append(r.Diagnostics...)
			}
		case schema.Int64Attribute:
			for _, v := range a.Validators {
				var r validator.Int64Response
				v.ValidateInt64(ctx, validator.Int64Request{Path: p, Config: cfg, ConfigValue: toInt64(ca[name])}, &r)
				diags.Append(r.Diagnostics...)
			}
		default:
			if hasValidators(a) {
				diags.AddError("Provider bug", fmt.Sprintf("attribute %q: validators on collection attributes are not supported by the tree validator", name))
			}
		}
	}
	r := fp.newResource()
	if rv, ok := r.(resource.ResourceWithValidateConfig); ok {
		var resp resource.ValidateConfigResponse
		rv.ValidateConfig(ctx, resource.ValidateConfigRequest{Config: cfg}, &resp)
		diags.Append(resp.Diagnostics...)
	}
	if rv, ok := r.(resource.ResourceWithConfigValidators); ok {
		for _, v := range rv.ConfigValidators(ctx) {
			var resp resource.ValidateConfigResponse
			v.ValidateResource(ctx, resource.ValidateConfigRequest{Config: cfg}, &resp)
			diags.Append(resp.Diagnostics...)
		}
	}
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: toProtoDiagnostics(diags)}, nil
}

func hasValidators(a schema.Attribute) bool {
	switch a := a.(type) {
	case schema.ListAttribute:
		return len(a.Validators) > 0
	case schema.SingleNestedAttribute:
		return len(a.Validators) > 0
	case schema.ListNestedAttribute:
		return len(a.Validators) > 0
	}
	return false
}

func (fp *fastPlanner) read(ctx context.Context, client *libvirtconn.Client, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	current, err := fp.values.decode(req.CurrentState, fp.objType)
	if err != nil {
		return nil, err
	}
	resp := &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}
	if current.IsNull() {
		return resp, nil
	}
	r := fp.newResource()
	if rc, ok := r.(resource.ResourceWithConfigure); ok {
		var cresp resource.ConfigureResponse
		var data any
		if client != nil {
			data = client
		}
		rc.Configure(ctx, resource.ConfigureRequest{ProviderData: data}, &cresp)
		if cresp.Diagnostics.HasError() {
			resp.Diagnostics = toProtoDiagnostics(cresp.Diagnostics)
			return resp, nil
		}
	}
	state := tfsdk.State{Schema: fp.schema, Raw: current}
	rresp := resource.ReadResponse{State: state}
	r.Read(ctx, resource.ReadRequest{State: state}, &rresp)
	resp.Diagnostics = toProtoDiagnostics(rresp.Diagnostics)
	if rresp.Diagnostics.HasError() {
		return resp, nil
	}
	newState, err := fp.values.encode(fp.objType, rresp.State.Raw)
	if err != nil {
		return nil, err
	}
	resp.NewState = &newState
	return resp, nil
}
