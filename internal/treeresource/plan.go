package treeresource

import (
	"context"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// plan answers PlanResourceChange in one pass over the value, in the
// framework's order: defaults of own attributes; when the resource changes,
// the engine's rules for the tree (a computed value the user left out keeps
// its prior value, or is unknown when there is none or the policy calls it
// volatile) and unknown for own computed attributes that the configuration
// leaves null and that have no default (as the framework marks them); the plan
// modifiers of own attributes; the resource's ModifyPlan, on destroy too.
// The framework instead marks every computed null in the tree unknown and
// rewrites the whole value once per top-level attribute: with libvirt's
// domain tree that cost about 0.25 s per unchanged domain.
func (t *treeType) plan(ctx context.Context, providerData any, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	proposed, err := t.values.decode(req.ProposedNewState, t.objType)
	if err != nil {
		return nil, err
	}
	// a write-only value is no change of the planned object (the resource
	// finds it in the configuration)
	proposed = t.nullWriteOnly(proposed)
	prior, err := t.values.decode(req.PriorState, t.objType)
	if err != nil {
		return nil, err
	}
	config, err := t.values.decode(req.Config, t.objType)
	if err != nil {
		return nil, err
	}
	ps, err := decodePrivate(req.PriorPrivate)
	if err != nil {
		return nil, err
	}
	resp := &tfprotov6.PlanResourceChangeResponse{}
	var diags diag.Diagnostics
	r := t.newResource()
	if !configure(ctx, r, providerData, &diags) {
		resp.Diagnostics = toProtoDiagnostics(diags)
		return resp, nil
	}
	// carrier holds the resource's private state in the framework's type
	var carrier resource.ModifyPlanRequest
	diags.Append(providerDataFor(ctx, &carrier.Private, ps.provider)...)

	cfg := tfsdk.Config{Schema: t.schema, Raw: config}
	state := tfsdk.State{Schema: t.schema, Raw: prior}
	plan := tfsdk.Plan{Schema: t.schema, Raw: proposed}
	var replace path.Paths
	var newShape *xmlschema.Shape // the configuration's shape, aligned with the planned tree
	if !proposed.IsNull() && !diags.HasError() {
		pa, ca, sa := ObjectAttrs(proposed), attrsView(config), attrsView(prior) // only pa is written
		for _, o := range t.own {
			if o.hasDef && isNull(ca[o.name]) {
				pa[o.name] = o.def
			}
		}
		docTypes := t.doc.AttributeTypes()
		// the tree's write-only values are no part of any plan
		docConfig, _ := t.doc.NullWriteOnly(DocValues(docTypes, ca))
		changing := prior.IsNull()
		if !changing {
			// an existing resource: the tree from the configuration, the
			// prior state and the recorded shape; a second pass only when
			// something changes (computed values may then become unknown)
			docPrior, shape := DocValues(docTypes, sa), recordedShape(ps)
			planned, rec := t.doc.PlanUpdate(docConfig, docPrior, shape, false)
			for name, v := range planned {
				pa[name] = v
			}
			if changing = !sameAttrs(pa, sa); changing {
				planned, rec = t.doc.PlanUpdate(docConfig, docPrior, shape, true)
				for name, v := range planned {
					pa[name] = v
				}
			}
			newShape = rec
		} else {
			for name, v := range t.doc.PlanComputed(DocValues(docTypes, pa), docConfig) {
				pa[name] = v
			}
			newShape = t.doc.ShapeOf(docConfig)
		}
		if changing {
			for _, o := range t.own {
				if o.attr.IsComputed() && !o.hasDef && isNull(ca[o.name]) {
					pa[o.name] = tftypes.NewValue(o.typ, tftypes.UnknownValue)
				}
			}
		}
		plan.Raw = tftypes.NewValue(t.objType, pa)
		for _, o := range t.own {
			t.modifyAttribute(ctx, o, cfg, state, &plan, pa, ca, sa, &carrier, &replace, &diags)
		}
	}
	if rm, ok := r.(resource.ResourceWithModifyPlan); ok && !diags.HasError() {
		mreq := resource.ModifyPlanRequest{ClientCapabilities: modifyPlanCapabilities(req), Config: cfg, Plan: plan, State: state, Private: carrier.Private}
		mresp := resource.ModifyPlanResponse{Diagnostics: diags, Plan: plan, RequiresReplace: path.Paths{}, Private: carrier.Private}
		rm.ModifyPlan(ctx, mreq, &mresp)
		diags, plan, carrier.Private = mresp.Diagnostics, mresp.Plan, mresp.Private
		replace = append(replace, mresp.RequiresReplace...)
	}
	if proposed.IsNull() && !plan.Raw.IsNull() {
		diags.AddError("Unexpected Planned Resource State on Destroy",
			"The resource's ModifyPlan returned state data for a resource planned for destruction. This is a provider bug.")
	}
	resp.Diagnostics = toProtoDiagnostics(diags)
	if diags.HasError() {
		return resp, nil
	}
	plan.Raw = t.nullWriteOnly(plan.Raw)
	planned, err := t.values.encode(t.objType, plan.Raw)
	if err != nil {
		return nil, err
	}
	resp.PlannedState = &planned
	if t.identity != nil && !plan.Raw.IsNull() {
		// the identity the apply will return; while the plan does not know
		// it yet (a create), the prior one, if any
		if v := t.identity.valueOf(plan.Raw); v != nil {
			if resp.PlannedIdentity, err = t.identity.data(plan.Raw); err != nil {
				return nil, err
			}
		} else {
			resp.PlannedIdentity = req.PriorIdentity
		}
	}
	ps.provider = providerDataKeys(carrier.Private)
	if newShape != nil {
		if err := recordShape(ps, newShape); err != nil {
			return nil, err
		}
	}
	if resp.PlannedPrivate, err = ps.encode(); err != nil {
		return nil, err
	}
	for _, p := range normaliseReplace(replace) {
		if ap := toAttributePath(p); ap != nil {
			resp.RequiresReplace = append(resp.RequiresReplace, ap)
		}
	}
	return resp, nil
}

func modifyPlanCapabilities(req *tfprotov6.PlanResourceChangeRequest) resource.ModifyPlanClientCapabilities {
	if req.ClientCapabilities == nil {
		return resource.ModifyPlanClientCapabilities{}
	}
	return resource.ModifyPlanClientCapabilities{DeferralAllowed: req.ClientCapabilities.DeferralAllowed}
}

// normaliseReplace drops duplicate paths and sorts them, as the framework does.
func normaliseReplace(ps path.Paths) path.Paths {
	var out path.Paths
	for _, p := range ps {
		if !out.Contains(p) {
			out = append(out, p)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].String() < out[j-1].String(); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func isNull(v tftypes.Value) bool { return v.Type() == nil || v.IsNull() }

// modifyAttribute runs the plan modifiers of a top-level string, bool or
// int64 own attribute (ownAttributes refuses them elsewhere) and writes the
// result into plan.
// pa, ca and sa are the attributes of plan, config and state; pa is
// updated with plan.
func (t *treeType) modifyAttribute(ctx context.Context, o ownAttribute, cfg tfsdk.Config, state tfsdk.State, plan *tfsdk.Plan,
	pa, ca, sa map[string]tftypes.Value, carrier *resource.ModifyPlanRequest, replace *path.Paths, diags *diag.Diagnostics) {
	p := path.Root(o.name)
	get := func(m map[string]tftypes.Value) tftypes.Value {
		if v, ok := m[o.name]; ok {
			return v
		}
		return tftypes.NewValue(o.typ, nil)
	}
	cv, sv, pv := get(ca), get(sa), get(pa)
	var out tftypes.Value
	changed := false
	switch a := o.attr.(type) {
	case schema.StringAttribute:
		if len(a.PlanModifiers) == 0 {
			return
		}
		planValue := toString(pv)
		for _, m := range a.PlanModifiers {
			req := planmodifier.StringRequest{Path: p, PathExpression: p.Expression(), Config: cfg, State: state, Plan: *plan,
				ConfigValue: toString(cv), PlanValue: planValue, StateValue: toString(sv), Private: carrier.Private}
			resp := planmodifier.StringResponse{PlanValue: req.PlanValue, Private: req.Private}
			m.PlanModifyString(ctx, req, &resp)
			diags.Append(resp.Diagnostics...)
			planValue, carrier.Private = resp.PlanValue, resp.Private
			if resp.RequiresReplace {
				*replace = append(*replace, p)
			}
			if diags.HasError() {
				return
			}
		}
		out, changed = mustTerraform(ctx, planValue), true
	case schema.BoolAttribute:
		if len(a.PlanModifiers) == 0 {
			return
		}
		planValue := toBool(pv)
		for _, m := range a.PlanModifiers {
			req := planmodifier.BoolRequest{Path: p, PathExpression: p.Expression(), Config: cfg, State: state, Plan: *plan,
				ConfigValue: toBool(cv), PlanValue: planValue, StateValue: toBool(sv), Private: carrier.Private}
			resp := planmodifier.BoolResponse{PlanValue: req.PlanValue, Private: req.Private}
			m.PlanModifyBool(ctx, req, &resp)
			diags.Append(resp.Diagnostics...)
			planValue, carrier.Private = resp.PlanValue, resp.Private
			if resp.RequiresReplace {
				*replace = append(*replace, p)
			}
			if diags.HasError() {
				return
			}
		}
		out, changed = mustTerraform(ctx, planValue), true
	case schema.Int64Attribute:
		if len(a.PlanModifiers) == 0 {
			return
		}
		planValue := toInt64(pv)
		for _, m := range a.PlanModifiers {
			req := planmodifier.Int64Request{Path: p, PathExpression: p.Expression(), Config: cfg, State: state, Plan: *plan,
				ConfigValue: toInt64(cv), PlanValue: planValue, StateValue: toInt64(sv), Private: carrier.Private}
			resp := planmodifier.Int64Response{PlanValue: req.PlanValue, Private: req.Private}
			m.PlanModifyInt64(ctx, req, &resp)
			diags.Append(resp.Diagnostics...)
			planValue, carrier.Private = resp.PlanValue, resp.Private
			if resp.RequiresReplace {
				*replace = append(*replace, p)
			}
			if diags.HasError() {
				return
			}
		}
		out, changed = mustTerraform(ctx, planValue), true
	}
	if changed && !out.Equal(pv) {
		pa[o.name] = out
		plan.Raw = tftypes.NewValue(t.objType, pa)
	}
}

func mustTerraform(ctx context.Context, v interface {
	ToTerraformValue(context.Context) (tftypes.Value, error)
}) tftypes.Value {
	tv, err := v.ToTerraformValue(ctx)
	if err != nil {
		panic(err) // values of the framework's own base types always convert
	}
	return tv
}

func toString(v tftypes.Value) types.String {
	switch {
	case isNull(v):
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
	case isNull(v):
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
	case isNull(v):
		return types.Int64Null()
	case !v.IsKnown():
		return types.Int64Unknown()
	}
	var f big.Float
	_ = v.As(&f)
	i, _ := f.Int64()
	return types.Int64Value(i)
}

// nullWriteOnly returns v with every write-only attribute null, as the
// framework plans them: their values live in the configuration only, never in
// a plan or state. ownAttributes allows them at the top level only; the
// tree's (the engine's write-only twins) are nulled by the engine.
func (t *treeType) nullWriteOnly(v tftypes.Value) tftypes.Value {
	if v.IsNull() || !v.IsKnown() {
		return v
	}
	var attrs map[string]tftypes.Value
	changed := false
	if docVals, docChanged := t.doc.NullWriteOnly(DocValues(t.doc.AttributeTypes(), ObjectAttrs(v))); docChanged {
		attrs, changed = ObjectAttrs(v), true
		for name, dv := range docVals {
			attrs[name] = dv
		}
	}
	for _, o := range t.own {
		if !o.attr.IsWriteOnly() {
			continue
		}
		if attrs == nil {
			attrs = ObjectAttrs(v)
		}
		if cur, ok := attrs[o.name]; ok && !isNull(cur) {
			attrs[o.name] = tftypes.NewValue(o.typ, nil)
			changed = true
		}
	}
	if !changed {
		return v
	}
	return tftypes.NewValue(t.objType, attrs)
}
