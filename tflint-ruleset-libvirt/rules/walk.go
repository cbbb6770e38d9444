// Package rules holds the libvirt ruleset's TFLint rules. They read the
// configuration as written (the HCL source, before OpenTofu or Terraform
// convert it to the schema's types and drop what the schema lacks) and match
// every object literal inside a libvirt resource or data source with the
// provider's schema, embedded from the generated schema.txt.
package rules

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/terraform-linters/tflint-plugin-sdk/tflint"

	"github.com/virtxml/terraform-provider-libvirt/tflint-ruleset-libvirt/schema"
)

var providerSchema = schema.Embedded()

// metaArguments are the arguments and blocks OpenTofu and Terraform
// themselves read in a resource or data block; they are never the
// provider's attributes.
var metaArguments = map[string]bool{
	"count": true, "for_each": true, "depends_on": true, "provider": true,
	"lifecycle": true, "provisioner": true, "connection": true, "dynamic": true,
}

// field is one key written in an object: an argument (value set) or, at a
// resource's top level, a nested block (block set).
type field struct {
	name     string
	keyRange hcl.Range
	value    hclsyntax.Expression
	block    *hclsyntax.Block
}

// object is one object written in the configuration, matched with the
// schema node whose attributes its keys must be.
type object struct {
	// typeName is the resource type, "data.<type>" for a data source.
	typeName string
	// path is the object's attribute path in the resource, with list
	// indexes and map keys: "" for the resource itself, "devices.disks[0]".
	path   string
	node   *schema.Node
	fields []field
}

// fieldPath is the path of a key of o.
func (o *object) fieldPath(name string) string {
	if o.path == "" {
		return name
	}
	return o.path + "." + name
}

// has reports whether o sets the key name.
func (o *object) has(name string) bool {
	for _, f := range o.fields {
		if f.name == name {
			return true
		}
	}
	return false
}

// mismatch is a value whose literal shape the schema cannot take: an
// object where a bool is wanted, a string where an object is wanted, ...
type mismatch struct {
	typeName string
	path     string
	node     *schema.Node
	expr     hclsyntax.Expression
	// got is the literal's kind: object, tuple, string, number or bool.
	got string
	// element is set when expr is one element of the collection node,
	// which should have been an object.
	element bool
}

// visitor receives every object the walk matches with the schema, and
// every literal whose shape does not fit its attribute.
type visitor struct {
	object   func(*object) error
	mismatch func(*mismatch) error
}

// walk visits the libvirt resources and data sources of the module the
// runner inspects. Files in JSON syntax are skipped: their objects carry
// no source syntax to match keys with.
func walk(runner tflint.Runner, v visitor) error {
	files, err := runner.GetFiles()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		body, ok := files[name].Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		for _, blk := range body.Blocks {
			if (blk.Type != "resource" && blk.Type != "data") || len(blk.Labels) != 2 {
				continue
			}
			typeName, node := blk.Labels[0], providerSchema.Resources[blk.Labels[0]]
			if blk.Type == "data" {
				typeName, node = "data."+blk.Labels[0], providerSchema.DataSources[blk.Labels[0]]
			}
			if node == nil {
				continue // not this provider's type (or a type name OpenTofu itself rejects)
			}
			if err := v.visitObject(&object{typeName: typeName, node: node, fields: bodyFields(blk.Body)}); err != nil {
				return err
			}
		}
	}
	return nil
}

func bodyFields(body *hclsyntax.Body) []field {
	var fields []field
	for _, a := range body.Attributes {
		if !metaArguments[a.Name] {
			fields = append(fields, field{name: a.Name, keyRange: a.NameRange, value: a.Expr})
		}
	}
	for _, b := range body.Blocks {
		if !metaArguments[b.Type] {
			fields = append(fields, field{name: b.Type, keyRange: b.TypeRange, block: b})
		}
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].keyRange.Start.Byte < fields[j].keyRange.Start.Byte })
	return fields
}

func (v visitor) visitObject(o *object) error {
	if v.object != nil {
		if err := v.object(o); err != nil {
			return err
		}
	}
	for _, f := range o.fields {
		child := o.node.Children[f.name]
		if child == nil || f.value == nil {
			continue
		}
		if err := v.value(o.typeName, o.fieldPath(f.name), child, f.value); err != nil {
			return err
		}
	}
	return nil
}

// value matches the expression written for the attribute node at path.
func (v visitor) value(typeName, path string, node *schema.Node, expr hclsyntax.Expression) error {
	for _, e := range alternatives(expr) {
		if err := v.oneValue(typeName, path, node, e); err != nil {
			return err
		}
	}
	return nil
}

func (v visitor) oneValue(typeName, path string, node *schema.Node, expr hclsyntax.Expression) error {
	got := literalKind(expr)
	if !node.Nested() {
		if got != "" && !leafAccepts(node.Kind, got, expr) {
			return v.report(&mismatch{typeName: typeName, path: path, node: node, expr: expr, got: got})
		}
		return nil
	}
	switch {
	case !node.Collection():
		switch e := expr.(type) {
		case *hclsyntax.ObjectConsExpr:
			return v.element(typeName, path, node, e)
		case *hclsyntax.TupleConsExpr:
			// A list where one object is wanted: reported, and its objects
			// are still checked as if they were that object.
			if err := v.report(&mismatch{typeName: typeName, path: path, node: node, expr: expr, got: got}); err != nil {
				return err
			}
			for i, el := range e.Exprs {
				if err := v.element(typeName, fmt.Sprintf("%s[%d]", path, i), node, el); err != nil {
					return err
				}
			}
			return nil
		}
	case node.Kind == "map" || node.Kind == "block-map":
		switch e := expr.(type) {
		case *hclsyntax.ObjectConsExpr:
			for _, item := range e.Items {
				key, ok := keyName(item.KeyExpr)
				if !ok {
					key = "*"
				}
				if err := v.element(typeName, fmt.Sprintf("%s[%s]", path, strconv.Quote(key)), node, item.ValueExpr); err != nil {
					return err
				}
			}
			return nil
		case *hclsyntax.ForExpr:
			return v.element(typeName, path+"[*]", node, e.ValExpr)
		}
	default: // list or set of objects
		switch e := expr.(type) {
		case *hclsyntax.TupleConsExpr:
			for i, el := range e.Exprs {
				if err := v.element(typeName, fmt.Sprintf("%s[%d]", path, i), node, el); err != nil {
					return err
				}
			}
			return nil
		case *hclsyntax.ForExpr:
			if e.KeyExpr == nil {
				return v.element(typeName, path+"[*]", node, e.ValExpr)
			}
		case *hclsyntax.ObjectConsExpr:
			// One object where a list of them is wanted (dmacvicar 0.9.0's
			// `graphics = { vnc = ... }`): reported, then checked as the
			// list's only element.
			if err := v.report(&mismatch{typeName: typeName, path: path, node: node, expr: expr, got: got}); err != nil {
				return err
			}
			return v.element(typeName, path+"[0]", node, e)
		}
	}
	if got != "" && got != "null" {
		return v.report(&mismatch{typeName: typeName, path: path, node: node, expr: expr, got: got})
	}
	return nil
}

// element matches one object of a nested attribute (the attribute itself
// for single nesting, one element for the collections).
func (v visitor) element(typeName, path string, node *schema.Node, expr hclsyntax.Expression) error {
	for _, e := range alternatives(expr) {
		switch el := e.(type) {
		case *hclsyntax.ObjectConsExpr:
			var fields []field
			for _, item := range el.Items {
				if name, ok := keyName(item.KeyExpr); ok {
					fields = append(fields, field{name: name, keyRange: item.KeyExpr.Range(), value: item.ValueExpr})
				}
			}
			if err := v.visitObject(&object{typeName: typeName, path: path, node: node, fields: fields}); err != nil {
				return err
			}
		default:
			if got := literalKind(e); got != "" && got != "null" {
				if err := v.report(&mismatch{typeName: typeName, path: path, node: node, expr: e, got: got, element: true}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (v visitor) report(m *mismatch) error {
	if v.mismatch == nil {
		return nil
	}
	return v.mismatch(m)
}

// alternatives unwraps what can stand for a value without changing its
// keys: parentheses, both results of a conditional, and the arguments of
// merge(), concat() and the conversion functions.
func alternatives(expr hclsyntax.Expression) []hclsyntax.Expression {
	switch e := expr.(type) {
	case *hclsyntax.ParenthesesExpr:
		return alternatives(e.Expression)
	case *hclsyntax.ConditionalExpr:
		return append(alternatives(e.TrueResult), alternatives(e.FalseResult)...)
	case *hclsyntax.FunctionCallExpr:
		switch e.Name {
		case "merge", "concat", "tolist", "toset", "tomap":
			var out []hclsyntax.Expression
			for _, a := range e.Args {
				out = append(out, alternatives(a)...)
			}
			return out
		}
	}
	return []hclsyntax.Expression{expr}
}

// keyName returns an object key written as a bare name or a quoted string;
// a computed key ((var.x), "${...}") has no name to check.
func keyName(expr hclsyntax.Expression) (string, bool) {
	if k, ok := expr.(*hclsyntax.ObjectConsKeyExpr); ok {
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" && !k.ForceNonLiteral {
			return name, true
		}
		expr = k.Wrapped
	}
	if t, ok := expr.(*hclsyntax.TemplateExpr); ok && t.IsStringLiteral() {
		v, diags := t.Value(nil)
		if !diags.HasErrors() && v.Type().FriendlyName() == "string" && v.IsKnown() && !v.IsNull() {
			return v.AsString(), true
		}
	}
	return "", false
}
