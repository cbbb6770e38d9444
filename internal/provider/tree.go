package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// This file glues engine models (internal/xmlschema) to framework resources.
// Engine-backed resources work on tftypes values directly (req.Plan.Raw,
// resp.State.Raw): the document tree is large, and converting it through
// framework attr.Values or reflection models would dominate plan time.

// mergeAttributes returns the document tree's attributes plus the resource's
// own provider-level attributes. A name clash is a programming error.
func mergeAttributes(tree, own map[string]schema.Attribute) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(tree)+len(own))
	for k, v := range tree {
		out[k] = v
	}
	for k, v := range own {
		if _, dup := out[k]; dup {
			panic(fmt.Sprintf("provider attribute %q clashes with a document attribute", k))
		}
		out[k] = v
	}
	return out
}

// objectAttrs splits an object value (plan, state or config) into its attributes.
func objectAttrs(v tftypes.Value) map[string]tftypes.Value {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return nil
	}
	return attrs
}

// docValues returns just the document attributes of attrs (the model's names).
func docValues(types map[string]tftypes.Type, attrs map[string]tftypes.Value) map[string]tftypes.Value {
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

// buildObject assembles the resource object of type t from the document
// attributes and the resource's own attributes.
func buildObject(t tftypes.Type, doc, own map[string]tftypes.Value) tftypes.Value {
	attrs := make(map[string]tftypes.Value, len(doc)+len(own))
	for k, v := range doc {
		attrs[k] = v
	}
	for k, v := range own {
		attrs[k] = v
	}
	return tftypes.NewValue(t, attrs)
}

// addConversionError reports an engine error. The message names the whole
// attribute path; the diagnostic is attached to the top-level attribute only.
// OpenTofu and Terraform find a diagnostic's source by walking its path
// through nested blocks; a nested attribute is not a block, so they skip
// those steps and would highlight a top-level attribute that happens to have
// the last step's name (for devices.interfaces[0].type, the domain's `type`).
func addConversionError(diags *diag.Diagnostics, summary string, err error) {
	var pe *xmlschema.PathError
	if errors.As(err, &pe) && len(pe.Steps) > 0 {
		if top, ok := pe.Steps[0].(string); ok {
			diags.AddAttributeError(path.Root(top), summary, pe.Error())
			return
		}
	}
	diags.AddError(summary, err.Error())
}

// topLevel is the top-level attribute of a nested attribute path, where
// diagnostics about it are attached (see addConversionError); the detail must
// then name the full path.
func topLevel(p path.Path) path.Path {
	if steps := p.Steps(); len(steps) > 0 {
		if name, ok := steps[0].(path.PathStepAttributeName); ok {
			return path.Root(string(name))
		}
	}
	return p
}

// tfString / tfBool / tfNumber are small constructors for own attributes.
func tfString(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
func tfBool(b bool) tftypes.Value     { return tftypes.NewValue(tftypes.Bool, b) }

// stringAttr reads a string attribute; ok is false when null or unknown.
func stringAttr(attrs map[string]tftypes.Value, name string) (string, bool) {
	v, ok := attrs[name]
	if !ok || v.IsNull() || !v.IsKnown() {
		return "", false
	}
	var s string
	if err := v.As(&s); err != nil {
		return "", false
	}
	return s, true
}

// boolAttr reads a bool attribute; ok is false when null or unknown.
func boolAttr(attrs map[string]tftypes.Value, name string) (bool, bool) {
	v, ok := attrs[name]
	if !ok || v.IsNull() || !v.IsKnown() {
		return false, false
	}
	var b bool
	if err := v.As(&b); err != nil {
		return false, false
	}
	return b, true
}

// treeRead is what the read of a tree resource found: the reconciled
// document attributes and the resource's own attributes.
type treeRead struct {
	doc map[string]tftypes.Value
	own map[string]tftypes.Value
}

// object assembles the resource object of type t from the read.
func (r *treeRead) object(t tftypes.Type) tftypes.Value { return buildObject(t, r.doc, r.own) }

// storeRead ends the Read of a tree resource: an object libvirt no longer
// has leaves the state; otherwise what was read becomes the new state.
func storeRead(ctx context.Context, resp *resource.ReadResponse, kind string, read *treeRead, found bool, err error) {
	if err != nil {
		resp.Diagnostics.AddError("Cannot read "+kind, err.Error())
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.State.Raw = read.object(resp.State.Raw.Type())
}
