package treeresource

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ownAttribute is a top-level attribute outside the document tree: the
// resource's own (id, running, autostart, timeouts...). The protocol layer
// runs their defaults, plan modifiers and validators, as the framework does.
type ownAttribute struct {
	name string
	attr schema.Attribute
	typ  tftypes.Type
	// def is the attribute's default, when it has one.
	def    tftypes.Value
	hasDef bool
}

// ownAttributes returns the resource's attributes that are not in the tree,
// sorted by name, or an error naming the first behaviour the protocol layer
// cannot run exactly as the framework would. That error is a programming
// error, reported when the server is built, never at plan time.
func ownAttributes(ctx context.Context, s schema.Schema, docTypes map[string]tftypes.Type) ([]ownAttribute, error) {
	var out []ownAttribute
	for name, a := range s.Attributes {
		if _, inTree := docTypes[name]; inTree {
			if hasBehaviour(a) {
				return nil, fmt.Errorf("document attribute %q has validators, defaults or plan modifiers: the tree has none by design", name)
			}
			continue
		}
		o := ownAttribute{name: name, attr: a, typ: a.GetType().TerraformType(ctx)}
		if err := checkSupported(name, a, true); err != nil {
			return nil, err
		}
		if d, ok, err := defaultValue(ctx, a); err != nil {
			return nil, fmt.Errorf("attribute %q: %w", name, err)
		} else if ok {
			o.def, o.hasDef = d, true
		}
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// checkSupported refuses attribute kinds whose validators the walk in
// validate.go cannot run, and defaults or plan modifiers anywhere but on a
// top-level string, bool or int64 attribute.
func checkSupported(p string, a schema.Attribute, top bool) error {
	if !top && a.IsWriteOnly() {
		return fmt.Errorf("nested attribute %q: write-only attributes are supported at the top level only (plan.go nulls them there)", p)
	}
	switch a := a.(type) {
	case schema.StringAttribute, schema.BoolAttribute, schema.Int64Attribute:
		if !top && hasDefaultOrModifiers(a) {
			return fmt.Errorf("nested attribute %q: defaults and plan modifiers are supported on top-level attributes only", p)
		}
		return nil
	case schema.Float64Attribute, schema.NumberAttribute, schema.ListAttribute, schema.SetAttribute,
		schema.MapAttribute, schema.ObjectAttribute:
		if hasDefaultOrModifiers(a) {
			return fmt.Errorf("attribute %q: defaults and plan modifiers are supported on string, bool and int64 attributes only", p)
		}
		return nil
	case schema.SingleNestedAttribute:
		if hasDefaultOrModifiers(a) {
			return fmt.Errorf("attribute %q: defaults and plan modifiers are supported on string, bool and int64 attributes only", p)
		}
		for n, c := range a.Attributes {
			if err := checkSupported(p+"."+n, c, false); err != nil {
				return err
			}
		}
		return nil
	case schema.ListNestedAttribute:
		if hasDefaultOrModifiers(a) || len(a.NestedObject.PlanModifiers) > 0 {
			return fmt.Errorf("attribute %q: defaults and plan modifiers are supported on string, bool and int64 attributes only", p)
		}
		for n, c := range a.NestedObject.Attributes {
			if err := checkSupported(p+"[]."+n, c, false); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("attribute %q: %T is not supported beside a document tree", p, a)
}

// hasBehaviour reports validators, defaults or plan modifiers on a.
func hasBehaviour(a schema.Attribute) bool {
	if hasDefaultOrModifiers(a) {
		return true
	}
	switch a := a.(type) {
	case schema.StringAttribute:
		return len(a.Validators) > 0
	case schema.BoolAttribute:
		return len(a.Validators) > 0
	case schema.Int64Attribute:
		return len(a.Validators) > 0
	case schema.ListAttribute:
		return len(a.Validators) > 0
	case schema.SingleNestedAttribute:
		return len(a.Validators) > 0
	case schema.ListNestedAttribute:
		return len(a.Validators) > 0 || len(a.NestedObject.Validators) > 0
	}
	return false
}

func hasDefaultOrModifiers(a schema.Attribute) bool {
	switch a := a.(type) {
	case schema.StringAttribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	case schema.BoolAttribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	case schema.Int64Attribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	case schema.Float64Attribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	case schema.NumberAttribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	case schema.ListAttribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	case schema.SetAttribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	case schema.MapAttribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	case schema.ObjectAttribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	case schema.SingleNestedAttribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	case schema.ListNestedAttribute:
		return a.Default != nil || len(a.PlanModifiers) > 0
	}
	return false
}

// defaultValue returns the Default of a top-level string, bool or int64
// attribute as a tftypes value.
func defaultValue(ctx context.Context, a schema.Attribute) (tftypes.Value, bool, error) {
	var v attr.Value
	switch a := a.(type) {
	case schema.BoolAttribute:
		if a.Default == nil {
			return tftypes.Value{}, false, nil
		}
		var r defaults.BoolResponse
		a.Default.DefaultBool(ctx, defaults.BoolRequest{}, &r)
		if r.Diagnostics.HasError() {
			return tftypes.Value{}, false, fmt.Errorf("default: %v", r.Diagnostics)
		}
		v = r.PlanValue
	case schema.StringAttribute:
		if a.Default == nil {
			return tftypes.Value{}, false, nil
		}
		var r defaults.StringResponse
		a.Default.DefaultString(ctx, defaults.StringRequest{}, &r)
		if r.Diagnostics.HasError() {
			return tftypes.Value{}, false, fmt.Errorf("default: %v", r.Diagnostics)
		}
		v = r.PlanValue
	case schema.Int64Attribute:
		if a.Default == nil {
			return tftypes.Value{}, false, nil
		}
		var r defaults.Int64Response
		a.Default.DefaultInt64(ctx, defaults.Int64Request{}, &r)
		if r.Diagnostics.HasError() {
			return tftypes.Value{}, false, fmt.Errorf("default: %v", r.Diagnostics)
		}
		v = r.PlanValue
	default:
		return tftypes.Value{}, false, nil
	}
	tv, err := v.ToTerraformValue(ctx)
	return tv, err == nil, err
}
