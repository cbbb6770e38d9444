package treeresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// validate answers ValidateResourceConfig: what the engine would reject at
// apply (reported now, at its path), the validators of the own attributes
// (nested ones included), then the resource's ValidateConfig and
// ConfigValidators. The tree has no validators: the framework's walk over it
// is what this skips.
func (t *treeType) validate(ctx context.Context, providerData any, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	config, err := t.values.decode(req.Config, t.objType)
	if err != nil {
		return nil, err
	}
	ca := attrsView(config)
	cfg := tfsdk.Config{Schema: t.schema, Raw: config}
	var diags diag.Diagnostics
	if ca != nil {
		if err := t.doc.Validate(DocValues(t.doc.AttributeTypes(), ca)); err != nil {
			AddConversionError(&diags, "Invalid configuration", err)
		}
	}
	writeOnlyAllowed := req.ClientCapabilities != nil && req.ClientCapabilities.WriteOnlyAttributesAllowed
	for _, o := range t.own {
		v, ok := ca[o.name]
		if !ok {
			v = tftypes.NewValue(o.typ, nil)
		}
		// as the framework: a client without write-only support would
		// report a confusing inconsistency when the plan returns null
		if o.attr.IsWriteOnly() && !writeOnlyAllowed && !isNull(v) {
			diags.AddAttributeError(path.Root(o.name), "WriteOnly Attribute Not Allowed",
				fmt.Sprintf("The resource contains a non-null value for WriteOnly attribute %s. Write-only attributes are only supported in Terraform 1.11 and later.", o.name))
		}
		validateAttribute(ctx, path.Root(o.name), o.attr, v, cfg, &diags)
	}
	r := t.newResource()
	if !configure(ctx, r, providerData, &diags) {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: toProtoDiagnostics(diags)}, nil
	}
	if rv, ok := r.(resource.ResourceWithValidateConfig); ok {
		resp := resource.ValidateConfigResponse{Diagnostics: diags}
		rv.ValidateConfig(ctx, resource.ValidateConfigRequest{Config: cfg}, &resp)
		diags = resp.Diagnostics
	}
	if rv, ok := r.(resource.ResourceWithConfigValidators); ok {
		for _, v := range rv.ConfigValidators(ctx) {
			resp := resource.ValidateConfigResponse{}
			v.ValidateResource(ctx, resource.ValidateConfigRequest{Config: cfg}, &resp)
			diags.Append(resp.Diagnostics...)
		}
	}
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: toProtoDiagnostics(diags)}, nil
}

// validateAttribute runs the validators of attribute a at p on its
// configuration value v, then those of its nested attributes when v is a
// known object or list (as the framework's schema walk does).
func validateAttribute(ctx context.Context, p path.Path, a schema.Attribute, v tftypes.Value, cfg tfsdk.Config, diags *diag.Diagnostics) {
	val, err := a.GetType().ValueFromTerraform(ctx, v)
	if err != nil {
		diags.AddAttributeError(p, "Attribute Value Conversion Error", err.Error())
		return
	}
	if msg := a.GetDeprecationMessage(); msg != "" && !v.IsNull() && v.IsKnown() {
		diags.AddAttributeWarning(p, "Attribute Deprecated", msg)
	}
	expr := p.Expression()
	switch a := a.(type) {
	case schema.StringAttribute:
		cv, d := val.(basetypes.StringValuable).ToStringValue(ctx)
		if appendOK(diags, d) {
			for _, x := range a.Validators {
				r := validator.StringResponse{}
				x.ValidateString(ctx, validator.StringRequest{Path: p, PathExpression: expr, Config: cfg, ConfigValue: cv}, &r)
				diags.Append(r.Diagnostics...)
			}
		}
	case schema.BoolAttribute:
		cv, d := val.(basetypes.BoolValuable).ToBoolValue(ctx)
		if appendOK(diags, d) {
			for _, x := range a.Validators {
				r := validator.BoolResponse{}
				x.ValidateBool(ctx, validator.BoolRequest{Path: p, PathExpression: expr, Config: cfg, ConfigValue: cv}, &r)
				diags.Append(r.Diagnostics...)
			}
		}
	case schema.Int64Attribute:
		cv, d := val.(basetypes.Int64Valuable).ToInt64Value(ctx)
		if appendOK(diags, d) {
			for _, x := range a.Validators {
				r := validator.Int64Response{}
				x.ValidateInt64(ctx, validator.Int64Request{Path: p, PathExpression: expr, Config: cfg, ConfigValue: cv}, &r)
				diags.Append(r.Diagnostics...)
			}
		}
	case schema.Float64Attribute:
		cv, d := val.(basetypes.Float64Valuable).ToFloat64Value(ctx)
		if appendOK(diags, d) {
			for _, x := range a.Validators {
				r := validator.Float64Response{}
				x.ValidateFloat64(ctx, validator.Float64Request{Path: p, PathExpression: expr, Config: cfg, ConfigValue: cv}, &r)
				diags.Append(r.Diagnostics...)
			}
		}
	case schema.NumberAttribute:
		cv, d := val.(basetypes.NumberValuable).ToNumberValue(ctx)
		if appendOK(diags, d) {
			for _, x := range a.Validators {
				r := validator.NumberResponse{}
				x.ValidateNumber(ctx, validator.NumberRequest{Path: p, PathExpression: expr, Config: cfg, ConfigValue: cv}, &r)
				diags.Append(r.Diagnostics...)
			}
		}
	case schema.ListAttribute:
		cv, d := val.(basetypes.ListValuable).ToListValue(ctx)
		if appendOK(diags, d) {
			runListValidators(ctx, a.Validators, p, cfg, cv, diags)
		}
	case schema.SetAttribute:
		cv, d := val.(basetypes.SetValuable).ToSetValue(ctx)
		if appendOK(diags, d) {
			for _, x := range a.Validators {
				r := validator.SetResponse{}
				x.ValidateSet(ctx, validator.SetRequest{Path: p, PathExpression: expr, Config: cfg, ConfigValue: cv}, &r)
				diags.Append(r.Diagnostics...)
			}
		}
	case schema.MapAttribute:
		cv, d := val.(basetypes.MapValuable).ToMapValue(ctx)
		if appendOK(diags, d) {
			for _, x := range a.Validators {
				r := validator.MapResponse{}
				x.ValidateMap(ctx, validator.MapRequest{Path: p, PathExpression: expr, Config: cfg, ConfigValue: cv}, &r)
				diags.Append(r.Diagnostics...)
			}
		}
	case schema.ObjectAttribute:
		cv, d := val.(basetypes.ObjectValuable).ToObjectValue(ctx)
		if appendOK(diags, d) {
			runObjectValidators(ctx, a.Validators, p, cfg, cv, diags)
		}
	case schema.SingleNestedAttribute:
		cv, d := val.(basetypes.ObjectValuable).ToObjectValue(ctx)
		if appendOK(diags, d) {
			runObjectValidators(ctx, a.Validators, p, cfg, cv, diags)
			validateNested(ctx, p, a.Attributes, v, cfg, diags)
		}
	case schema.ListNestedAttribute:
		cv, d := val.(basetypes.ListValuable).ToListValue(ctx)
		if !appendOK(diags, d) {
			return
		}
		runListValidators(ctx, a.Validators, p, cfg, cv, diags)
		if v.IsNull() || !v.IsKnown() {
			return
		}
		var elems []tftypes.Value
		if err := v.As(&elems); err != nil {
			return
		}
		for i, e := range elems {
			ep := p.AtListIndex(i)
			if len(a.NestedObject.Validators) > 0 {
				ev, err := a.NestedObject.Type().ValueFromTerraform(ctx, e)
				if err == nil {
					ov, d := ev.(basetypes.ObjectValuable).ToObjectValue(ctx)
					if appendOK(diags, d) {
						runObjectValidators(ctx, a.NestedObject.Validators, ep, cfg, ov, diags)
					}
				}
			}
			validateNested(ctx, ep, a.NestedObject.Attributes, e, cfg, diags)
		}
	}
}

// validateNested walks the attributes of a known, non-null object value.
func validateNested(ctx context.Context, p path.Path, attrs map[string]schema.Attribute, obj tftypes.Value, cfg tfsdk.Config, diags *diag.Diagnostics) {
	vals := ObjectAttrs(obj)
	if vals == nil {
		return
	}
	for name, a := range attrs {
		v, ok := vals[name]
		if !ok {
			v = tftypes.NewValue(a.GetType().TerraformType(ctx), nil)
		}
		validateAttribute(ctx, p.AtName(name), a, v, cfg, diags)
	}
}

func runListValidators(ctx context.Context, vs []validator.List, p path.Path, cfg tfsdk.Config, cv basetypes.ListValue, diags *diag.Diagnostics) {
	for _, x := range vs {
		r := validator.ListResponse{}
		x.ValidateList(ctx, validator.ListRequest{Path: p, PathExpression: p.Expression(), Config: cfg, ConfigValue: cv}, &r)
		diags.Append(r.Diagnostics...)
	}
}

func runObjectValidators(ctx context.Context, vs []validator.Object, p path.Path, cfg tfsdk.Config, cv basetypes.ObjectValue, diags *diag.Diagnostics) {
	for _, x := range vs {
		r := validator.ObjectResponse{}
		x.ValidateObject(ctx, validator.ObjectRequest{Path: p, PathExpression: p.Expression(), Config: cfg, ConfigValue: cv}, &r)
		diags.Append(r.Diagnostics...)
	}
}

// appendOK appends d and reports whether it held no error.
func appendOK(diags *diag.Diagnostics, d diag.Diagnostics) bool {
	diags.Append(d...)
	return !d.HasError()
}
