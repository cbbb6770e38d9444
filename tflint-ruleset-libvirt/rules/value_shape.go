package rules

import (
	"fmt"
	"strings"

	"github.com/terraform-linters/tflint-plugin-sdk/tflint"

	"github.com/virtxml/terraform-provider-libvirt/tflint-ruleset-libvirt/schema"
)

// ValueShapeRule reports a value written in a shape its attribute cannot
// take, naming the form to write: earlier schemas (dmacvicar/libvirt
// 0.9.0's hand-written one, this provider's 0.1) had strings where objects
// are now, `{}` and "yes"/"no" where bools are now, one object where a list
// is now. OpenTofu and Terraform reject most of these with a type error
// that does not say what to write instead.
type ValueShapeRule struct {
	tflint.DefaultRule
}

func (r *ValueShapeRule) Name() string              { return "libvirt_value_shape" }
func (r *ValueShapeRule) Enabled() bool             { return true }
func (r *ValueShapeRule) Severity() tflint.Severity { return tflint.ERROR }
func (r *ValueShapeRule) Link() string              { return guideURL + "#libvirt_value_shape" }

func (r *ValueShapeRule) Check(runner tflint.Runner) error {
	return walk(runner, visitor{mismatch: func(m *mismatch) error {
		return runner.EmitIssue(r, shapeMessage(m), m.expr.Range())
	}})
}

func shapeMessage(m *mismatch) string {
	name := m.path[strings.LastIndex(m.path, ".")+1:]
	if i := strings.Index(name, "["); i >= 0 {
		name = name[:i]
	}
	if former, ok := formerShapeAt(m.typeName, m.path); ok && former.shape {
		text, ok := literalText(m)
		if !ok {
			text = "..."
		}
		return fmt.Sprintf("`%s` is written as %s, the shape of %s, which %s does not take: write %s.",
			m.path, article(m.got), former.era, m.typeName, strings.ReplaceAll(former.instead, "{value}", text))
	}
	switch {
	case m.element:
		return fmt.Sprintf("`%s` is one object of `%s`, written as %s: write %s.",
			m.path, name, article(m.got), elementForm(m.node, m))
	case m.node.Kind == "bool" && m.got == "object":
		return fmt.Sprintf("`%s` is a bool, written as an object: write `%s = true` (virtxml/libvirt 0.1 wrote an element without content as `{}`).",
			m.path, name)
	case m.node.Kind == "bool" && m.got == "string":
		s, _ := literalString(m.expr)
		if b, ok := yesNo(s); ok {
			return fmt.Sprintf("`%s` is a bool, written as the string %q: write `%s = %t` (virtxml/libvirt 0.1 and dmacvicar/libvirt 0.9.0 wrote it as a \"yes\"/\"no\" string).",
				m.path, s, name, b)
		}
		return fmt.Sprintf("`%s` is a bool (true or false), written as the string %q.", m.path, s)
	case !m.node.Nested():
		return fmt.Sprintf("`%s` is a %s, written as %s.", m.path, m.node.Kind, article(m.got))
	case m.node.Collection():
		return fmt.Sprintf("`%s` is a %s of objects, written as %s: write `%s = %s`.",
			m.path, strings.TrimPrefix(m.node.Kind, "block-"), article(m.got), name, collectionSkeleton(m.node, m.got == "object"))
	default:
		return fmt.Sprintf("`%s` is an object, written as %s: write `%s = %s`.", m.path, article(m.got), name, objectFor(m.node, m))
	}
}

// elementForm is what one element of a collection looks like, with the
// written value in it where the element has an obvious place for it
// (boot_devices = ["hd"] -> { dev = "hd" }).
func elementForm(n *schema.Node, m *mismatch) string {
	if former, ok := formerShapeAt(m.typeName, strings.TrimSuffix(m.path, m.path[strings.LastIndex(m.path, "["):])); ok && former.shape {
		return former.instead
	}
	return "`" + objectFor(n, m) + "`"
}

// objectFor is an object of n holding the written scalar under the one key
// it obviously belongs to: the only settable attribute, or `type`.
func objectFor(n *schema.Node, m *mismatch) string {
	text, ok := literalText(m)
	if !ok || (m.got != "string" && m.got != "number" && m.got != "bool") {
		return objectSkeleton(n)
	}
	var settable []string
	for _, name := range n.Names() {
		if !n.Children[name].ReadOnly {
			settable = append(settable, name)
		}
	}
	switch {
	case len(settable) == 1 && !n.Children[settable[0]].Nested():
		return fmt.Sprintf("{ %s = %s }", settable[0], text)
	case n.Children["type"] != nil && !n.Children["type"].Nested():
		return fmt.Sprintf("{ type = %s }", text)
	}
	return objectSkeleton(n)
}

// objectSkeleton names an object's attributes: "{ a = ..., b = ... }" or,
// for a long list, its first few.
func objectSkeleton(n *schema.Node) string {
	names := n.Names()
	const most = 4
	var parts []string
	for i, name := range names {
		if i == most {
			parts = append(parts, fmt.Sprintf("... (%d attributes)", len(names)))
			break
		}
		parts = append(parts, name+" = ...")
	}
	if len(parts) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

func collectionSkeleton(n *schema.Node, fromObject bool) string {
	if strings.TrimPrefix(n.Kind, "block-") == "map" {
		return "{ key = { ... } }"
	}
	if fromObject {
		return "[{ ... }]"
	}
	return "[" + objectSkeleton(n) + "]"
}

func literalText(m *mismatch) (string, bool) {
	if s, ok := literalString(m.expr); ok {
		return fmt.Sprintf("%q", s), true
	}
	if f, ok := literalNumber(m.expr); ok {
		return f.Text('g', -1), true
	}
	if m.got == "bool" {
		v, diags := m.expr.Value(nil)
		if !diags.HasErrors() && v.IsKnown() && !v.IsNull() {
			return fmt.Sprintf("%t", v.True()), true
		}
	}
	return "", false
}

func article(kind string) string {
	switch kind {
	case "object":
		return "an object"
	case "tuple":
		return "a list"
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "a bool"
	}
	return kind
}

func yesNo(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "yes", "on":
		return true, true
	case "no", "off":
		return false, true
	}
	return false, false
}
