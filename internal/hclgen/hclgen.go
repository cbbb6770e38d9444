// Package hclgen writes configuration: the HCL of a resource block from a
// resource value and its protocol schema, as a person would write it (null
// values and computed-only attributes left out, attributes sorted, nested
// objects indented). The plural data sources use it to hand OpenTofu, which
// has no `terraform query`, the short configuration of a host's objects.
package hclgen

import (
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Resource writes `resource "TYPE" "NAME" { ... }` for the value v of a
// resource with schema sch.
func Resource(typeName, name string, sch *tfprotov6.Schema, v tftypes.Value) string {
	var b strings.Builder
	fmt.Fprintf(&b, "resource %q %q {\n", typeName, name)
	writeAttrs(&b, sch.Block.Attributes, v, 1)
	b.WriteString("}\n")
	return b.String()
}

// Name turns an object's name into a resource name: letters, digits, _ and -
// kept, anything else _, and a leading digit or - prefixed with _.
func Name(s string) string {
	out := nonName.ReplaceAllString(s, "_")
	if out == "" || !(out[0] == '_' || (out[0] >= 'a' && out[0] <= 'z') || (out[0] >= 'A' && out[0] <= 'Z')) {
		out = "_" + out
	}
	return out
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

func configurable(a *tfprotov6.SchemaAttribute) bool { return a.Required || a.Optional }

// lineWidth is the longest line an object or list is written on in one
// line; longer values are written one attribute a line.
const lineWidth = 100

func writeAttrs(b *strings.Builder, attrs []*tfprotov6.SchemaAttribute, v tftypes.Value, depth int) {
	var m map[string]tftypes.Value
	if v.IsNull() || !v.IsKnown() || v.As(&m) != nil {
		return
	}
	var written []*tfprotov6.SchemaAttribute
	for _, a := range attrs {
		av, ok := m[a.Name]
		if ok && configurable(a) && !av.IsNull() && av.IsKnown() && !a.Sensitive && !a.WriteOnly {
			written = append(written, a)
		}
	}
	sort.Slice(written, func(i, j int) bool { return written[i].Name < written[j].Name })
	// each value on one line where it fits (a scalar, a small object or
	// list: `target = { dev = "vda" }`), else spread over lines
	values := make([]string, len(written))
	for i, a := range written {
		if line, ok := inlineAttr(a, m[a.Name]); ok && len(line)+len(a.Name)+3+2*depth <= lineWidth {
			values[i] = line
			continue
		}
		var vb strings.Builder
		if a.NestedType != nil {
			writeNested(&vb, a.NestedType, m[a.Name], depth)
		} else {
			writeValue(&vb, m[a.Name], depth)
		}
		values[i] = vb.String()
	}
	// a run of one-line values is aligned on "=" as `tofu fmt` aligns it
	oneLine := func(i int) bool { return !strings.Contains(values[i], "\n") }
	for i, a := range written {
		indent(b, depth)
		if !oneLine(i) {
			fmt.Fprintf(b, "%s = %s\n", a.Name, values[i])
			continue
		}
		width := len(a.Name)
		for j := i - 1; j >= 0 && oneLine(j); j-- {
			width = max(width, len(written[j].Name))
		}
		for j := i + 1; j < len(written) && oneLine(j); j++ {
			width = max(width, len(written[j].Name))
		}
		fmt.Fprintf(b, "%-*s = %s\n", width, a.Name, values[i])
	}
}

// inlineAttr writes an attribute's value on one line, when it has one: a
// scalar or list of scalars, or nested objects made of those.
func inlineAttr(a *tfprotov6.SchemaAttribute, v tftypes.Value) (string, bool) {
	if a.NestedType == nil {
		if !isScalar(v.Type()) && !isScalarList(v) {
			return "", false
		}
		var b strings.Builder
		writeValue(&b, v, 0)
		return b.String(), true
	}
	switch a.NestedType.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		return inlineObject(a.NestedType.Attributes, v)
	case tfprotov6.SchemaObjectNestingModeList, tfprotov6.SchemaObjectNestingModeSet:
		var elems []tftypes.Value
		_ = v.As(&elems)
		parts := make([]string, len(elems))
		for i, e := range elems {
			p, ok := inlineObject(a.NestedType.Attributes, e)
			if !ok {
				return "", false
			}
			parts[i] = p
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	}
	return "", false
}

// inlineObject writes `{ a = 1, b = { c = "x" } }`, or reports that the
// object has a value that needs lines of its own.
func inlineObject(attrs []*tfprotov6.SchemaAttribute, v tftypes.Value) (string, bool) {
	var m map[string]tftypes.Value
	if v.IsNull() || !v.IsKnown() || v.As(&m) != nil {
		return "", false
	}
	var parts []string
	sorted := append([]*tfprotov6.SchemaAttribute(nil), attrs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, a := range sorted {
		av, ok := m[a.Name]
		if !ok || !configurable(a) || av.IsNull() || !av.IsKnown() || a.Sensitive || a.WriteOnly {
			continue
		}
		p, ok := inlineAttr(a, av)
		if !ok || strings.Contains(p, "\n") {
			return "", false
		}
		parts = append(parts, a.Name+" = "+p)
	}
	if len(parts) == 0 {
		return "{}", true
	}
	return "{ " + strings.Join(parts, ", ") + " }", true
}

func isScalarList(v tftypes.Value) bool {
	if !v.Type().Is(tftypes.List{}) && !v.Type().Is(tftypes.Set{}) {
		return false
	}
	var elems []tftypes.Value
	_ = v.As(&elems)
	for _, e := range elems {
		if !isScalar(e.Type()) {
			return false
		}
	}
	return true
}

func writeNested(b *strings.Builder, nt *tfprotov6.SchemaObject, v tftypes.Value, depth int) {
	switch nt.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		writeObject(b, nt.Attributes, v, depth)
	case tfprotov6.SchemaObjectNestingModeList, tfprotov6.SchemaObjectNestingModeSet:
		var elems []tftypes.Value
		_ = v.As(&elems)
		if len(elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for _, e := range elems {
			indent(b, depth+1)
			if line, ok := inlineObject(nt.Attributes, e); ok && len(line)+1+2*(depth+1) <= lineWidth {
				b.WriteString(line)
			} else {
				writeObject(b, nt.Attributes, e, depth+1)
			}
			b.WriteString(",\n")
		}
		indent(b, depth)
		b.WriteString("]")
	case tfprotov6.SchemaObjectNestingModeMap:
		var elems map[string]tftypes.Value
		_ = v.As(&elems)
		keys := sortedKeys(elems)
		if len(keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for _, k := range keys {
			indent(b, depth+1)
			fmt.Fprintf(b, "%s = ", quote(k))
			writeObject(b, nt.Attributes, elems[k], depth+1)
			b.WriteString("\n")
		}
		indent(b, depth)
		b.WriteString("}")
	}
}

func writeObject(b *strings.Builder, attrs []*tfprotov6.SchemaAttribute, v tftypes.Value, depth int) {
	var inner strings.Builder
	writeAttrs(&inner, attrs, v, depth+1)
	if inner.Len() == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{\n")
	b.WriteString(inner.String())
	indent(b, depth)
	b.WriteString("}")
}

func isScalar(t tftypes.Type) bool {
	return t.Is(tftypes.String) || t.Is(tftypes.Number) || t.Is(tftypes.Bool)
}

// writeValue writes a value of a plain (not nested-attribute) type.
func writeValue(b *strings.Builder, v tftypes.Value, depth int) {
	t := v.Type()
	switch {
	case v.IsNull():
		b.WriteString("null")
	case t.Is(tftypes.String):
		var s string
		_ = v.As(&s)
		b.WriteString(quote(s))
	case t.Is(tftypes.Number):
		var f big.Float
		_ = v.As(&f)
		b.WriteString(f.Text('f', -1))
	case t.Is(tftypes.Bool):
		var x bool
		_ = v.As(&x)
		b.WriteString(strconv.FormatBool(x))
	case t.Is(tftypes.List{}), t.Is(tftypes.Set{}), t.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		_ = v.As(&elems)
		parts := make([]string, len(elems))
		for i, e := range elems {
			var eb strings.Builder
			writeValue(&eb, e, depth+1)
			parts[i] = eb.String()
		}
		b.WriteString("[" + strings.Join(parts, ", ") + "]")
	case t.Is(tftypes.Map{}), t.Is(tftypes.Object{}):
		var elems map[string]tftypes.Value
		_ = v.As(&elems)
		keys := sortedKeys(elems)
		var inner strings.Builder
		for _, k := range keys {
			if elems[k].IsNull() {
				continue
			}
			indent(&inner, depth+1)
			fmt.Fprintf(&inner, "%s = ", quote(k))
			writeValue(&inner, elems[k], depth+1)
			inner.WriteString("\n")
		}
		if inner.Len() == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n" + inner.String())
		indent(b, depth)
		b.WriteString("}")
	default:
		b.WriteString("null")
	}
}

// quote writes s as an HCL string literal: quotes, backslashes and control
// characters escaped (HCL knows \n, \r, \t and \uNNNN), template
// sequences doubled.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	out := strings.ReplaceAll(b.String(), "${", "$${")
	return strings.ReplaceAll(out, "%{", "%%{")
}

func sortedKeys(m map[string]tftypes.Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func indent(b *strings.Builder, depth int) { b.WriteString(strings.Repeat("  ", depth)) }
