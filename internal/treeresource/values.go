package treeresource

import (
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"math/big"
)

// Tree resources work on tftypes values directly (req.Plan.Raw,
// resp.State.Raw): the document tree is large, and converting it through
// framework attr.Values or reflection models would dominate plan time.

// ObjectAttrs splits an object value (plan, state or config) into its
// attributes; nil when the value is null, unknown or not an object. The map
// is a copy: tftypes hands out the value's own map, and values are shared
// (the decoded-value cache, request and response values).
func ObjectAttrs(v tftypes.Value) map[string]tftypes.Value {
	if v.Type() == nil || v.IsNull() || !v.IsKnown() {
		return nil
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return nil
	}
	out := make(map[string]tftypes.Value, len(attrs))
	for k, a := range attrs {
		out[k] = a
	}
	return out
}

// attrsView is ObjectAttrs without the copy, for attribute maps that are
// only read.
func attrsView(v tftypes.Value) map[string]tftypes.Value {
	if v.Type() == nil || v.IsNull() || !v.IsKnown() {
		return nil
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return nil
	}
	return attrs
}

// DocValues returns just the document attributes of attrs (the model's
// names), null where attrs has none.
func DocValues(types map[string]tftypes.Type, attrs map[string]tftypes.Value) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(types))
	for name, t := range types {
		if v, ok := attrs[name]; ok {
			out[name] = v
		} else {
			out[name] = tftypes.NewValue(t, nil)
		}
	}
	return out
}

// BuildObject assembles the resource object of type t from the document
// attributes and the resource's own attributes; an attribute of t in neither
// is null.
func BuildObject(t tftypes.Type, doc, own map[string]tftypes.Value) tftypes.Value {
	attrs := make(map[string]tftypes.Value, len(doc)+len(own))
	for k, v := range doc {
		attrs[k] = v
	}
	for k, v := range own {
		attrs[k] = v
	}
	if ot, ok := t.(tftypes.Object); ok && len(attrs) < len(ot.AttributeTypes) {
		for k, at := range ot.AttributeTypes {
			if _, ok := attrs[k]; !ok {
				attrs[k] = tftypes.NewValue(at, nil)
			}
		}
	}
	return tftypes.NewValue(t, attrs)
}

// String reads a string attribute; ok is false when null or unknown.
func String(attrs map[string]tftypes.Value, name string) (string, bool) {
	v, ok := attrs[name]
	if !ok || v.Type() == nil || v.IsNull() || !v.IsKnown() {
		return "", false
	}
	var s string
	if err := v.As(&s); err != nil {
		return "", false
	}
	return s, true
}

// Bool reads a bool attribute; ok is false when null or unknown.
func Bool(attrs map[string]tftypes.Value, name string) (bool, bool) {
	v, ok := attrs[name]
	if !ok || v.Type() == nil || v.IsNull() || !v.IsKnown() {
		return false, false
	}
	var b bool
	if err := v.As(&b); err != nil {
		return false, false
	}
	return b, true
}

// Int64 reads a whole-number attribute; ok is false when null, unknown or
// not a whole number.
func Int64(attrs map[string]tftypes.Value, name string) (int64, bool) {
	v, ok := attrs[name]
	if !ok || v.Type() == nil || v.IsNull() || !v.IsKnown() {
		return 0, false
	}
	var f big.Float
	if err := v.As(&f); err != nil || !f.IsInt() {
		return 0, false
	}
	n, acc := f.Int64()
	return n, acc == big.Exact
}

// StringValue and BoolValue build own attribute values.
func StringValue(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

// BoolValue builds a bool value.
func BoolValue(b bool) tftypes.Value { return tftypes.NewValue(tftypes.Bool, b) }

// Nested reads attribute name of an object value (a null string when absent).
func Nested(obj tftypes.Value, name string) tftypes.Value {
	if v, ok := ObjectAttrs(obj)[name]; ok {
		return v
	}
	return tftypes.NewValue(tftypes.String, nil)
}

// sameAttrs compares two attribute maps value by value (cheaper than
// building and comparing whole objects, which re-checks the large tree type).
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
