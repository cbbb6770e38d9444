package xmlschema

import (
	"encoding/xml"
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ToValues converts a document into the values of its top-level attributes.
func (m *Model[T]) ToValues(doc *T) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(m.root.children))
	rv := reflect.ValueOf(doc).Elem()
	for _, c := range m.root.children {
		out[c.name] = c.toValue(rv)
	}
	return out
}

// ToObject converts a document into one object value holding just the tree.
func (m *Model[T]) ToObject(doc *T) tftypes.Value {
	if doc == nil {
		return tftypes.NewValue(m.root.tfType, nil)
	}
	return tftypes.NewValue(m.root.tfType, m.ToValues(doc))
}

// FromValues builds a document from the values of its top-level attributes.
// Attributes missing from vals are left unset. Errors name the attribute path.
func (m *Model[T]) FromValues(vals map[string]tftypes.Value) (*T, error) {
	return m.fromValues(vals, &pathStack{})
}

// Validate checks a configuration the way FromValues will at apply (a choice's
// type against the member that is set, allowed choice values, whole numbers
// and their ranges), skipping values that are not known yet. It lets
// validate and plan report what apply would reject, at the attribute's path.
func (m *Model[T]) Validate(vals map[string]tftypes.Value) error {
	_, err := m.fromValues(vals, &pathStack{skipUnknown: true, config: true})
	return err
}

func (m *Model[T]) fromValues(vals map[string]tftypes.Value, p *pathStack) (*T, error) {
	doc := new(T)
	rv := reflect.ValueOf(doc).Elem()
	if err := m.root.checkUnits(vals, p); err != nil {
		return nil, err
	}
	for _, c := range m.root.children {
		v, ok := vals[c.name]
		if !ok {
			continue
		}
		p.push(c.name)
		if err := c.fromValue(rv, v, p); err != nil {
			return nil, err
		}
		p.pop()
	}
	if err := m.root.resolveChoices(rv, vals, p); err != nil {
		return nil, err
	}
	return doc, nil
}

// get follows n's steps from the enclosing struct value.
func (n *node) get(parent reflect.Value) (reflect.Value, bool) {
	v := parent
	for _, s := range n.steps {
		v = v.Field(s.index)
		if s.ptr {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
	}
	return v, true
}

// ensure follows n's steps, allocating nil pointers, and returns the settable value.
func (n *node) ensure(parent reflect.Value) reflect.Value {
	v := parent
	for _, s := range n.steps {
		v = v.Field(s.index)
		if s.ptr {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
	}
	return v
}

func (n *node) null() tftypes.Value { return tftypes.NewValue(n.tfType, nil) }

func (n *node) toValue(parent reflect.Value) tftypes.Value {
	if n.extra {
		return n.null() // not in the document
	}
	if n.choice != nil {
		for _, m := range n.choice.members {
			v, ok := parent, true
			for _, pn := range m.path {
				if v, ok = pn.get(v); !ok {
					break
				}
			}
			if ok {
				return tftypes.NewValue(tftypes.String, m.value)
			}
		}
		return n.null()
	}
	v, ok := n.get(parent)
	if !ok {
		return n.null()
	}
	switch n.kind {
	case kindString:
		if n.textAttr != "" {
			return n.textAttrValue(v)
		}
		s := v.String()
		if s == "" && n.omitEmpty && n.steps[len(n.steps)-1].ptr == false {
			return n.null()
		}
		return tftypes.NewValue(tftypes.String, s)
	case kindInt:
		isPtr := n.steps[len(n.steps)-1].ptr
		var f *big.Float
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if v.Int() == 0 && n.omitEmpty && !isPtr {
				return n.null()
			}
			f = new(big.Float).SetInt64(v.Int())
		default:
			if v.Uint() == 0 && n.omitEmpty && !isPtr {
				return n.null()
			}
			f = new(big.Float).SetUint64(v.Uint())
		}
		return tftypes.NewValue(tftypes.Number, f)
	case kindBool:
		if !n.yesNo {
			return tftypes.NewValue(tftypes.Bool, true) // the element is there
		}
		switch strings.ToLower(v.String()) {
		case "yes", "on", "true":
			return tftypes.NewValue(tftypes.Bool, true)
		case "no", "off", "false":
			return tftypes.NewValue(tftypes.Bool, false)
		}
		return n.null()
	case kindStringList:
		if v.Len() == 0 {
			return n.null()
		}
		elems := make([]tftypes.Value, v.Len())
		for i := range elems {
			elems[i] = tftypes.NewValue(tftypes.String, v.Index(i).String())
		}
		return tftypes.NewValue(n.tfType, elems)
	case kindObject:
		return tftypes.NewValue(n.tfType, n.objectAttrs(v))
	case kindList:
		if v.Len() == 0 {
			return n.null()
		}
		et := n.tfType.(tftypes.List).ElementType
		elems := make([]tftypes.Value, v.Len())
		for i := range elems {
			elems[i] = tftypes.NewValue(et, n.objectAttrs(v.Index(i)))
		}
		return tftypes.NewValue(n.tfType, elems)
	}
	return n.null()
}

func (n *node) objectAttrs(v reflect.Value) map[string]tftypes.Value {
	attrs := make(map[string]tftypes.Value, len(n.children))
	for _, c := range n.children {
		attrs[c.name] = c.toValue(v)
	}
	return attrs
}

func (n *node) fromValue(parent reflect.Value, val tftypes.Value, p *pathStack) error {
	if val.IsNull() || n.extra {
		return nil // extra attributes never reach libvirt
	}
	if n.status != "" && p.config {
		return p.errorf("cannot be set: %s", n.status)
	}
	if !val.IsKnown() {
		if n.computed || p.skipUnknown {
			return nil // libvirt chooses it, or it is checked once known
		}
		return p.errorf("value is not known yet")
	}
	if n.choice != nil {
		return nil // resolved by the enclosing object once its members are set
	}
	switch n.kind {
	case kindString:
		var s string
		if err := val.As(&s); err != nil {
			return p.errorf("%v", err)
		}
		if n.words != "" {
			w, ok := n.word(s)
			if !ok {
				yes, no, _ := strings.Cut(n.words, "/")
				return p.errorf("must be %q or %q (true and false are read as %q and %q), got %q", yes, no, yes, no, s)
			}
			s = w
		}
		if n.textAttr != "" {
			// the struct parses its own attribute text ("$VAR", "0x1f")
			u := n.ensure(parent).Addr().Interface().(xml.UnmarshalerAttr)
			if err := u.UnmarshalXMLAttr(xml.Attr{Name: xml.Name{Local: n.textAttr}, Value: s}); err != nil {
				return p.errorf("libvirt cannot read %q as the %s attribute (%v)", s, n.textAttr, err)
			}
			return nil
		}
		n.ensure(parent).SetString(s)
	case kindInt:
		var f big.Float
		if err := val.As(&f); err != nil {
			return p.errorf("%v", err)
		}
		if !f.IsInt() {
			return p.errorf("must be a whole number, got %s", f.Text('g', -1))
		}
		dst := n.ensure(parent)
		switch dst.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			i, acc := f.Int64()
			if acc != big.Exact || dst.OverflowInt(i) {
				return p.errorf("%s is out of range", f.Text('g', -1))
			}
			dst.SetInt(i)
		default:
			u, acc := f.Uint64()
			if f.Sign() < 0 || acc != big.Exact || dst.OverflowUint(u) {
				return p.errorf("must be between 0 and %d, got %s", maxUint(dst), f.Text('g', -1))
			}
			dst.SetUint(u)
		}
	case kindBool:
		var b bool
		if err := val.As(&b); err != nil {
			return p.errorf("%v", err)
		}
		switch {
		case n.yesNo:
			n.ensure(parent).SetString(map[bool]string{true: "yes", false: "no"}[b])
		case b:
			n.ensure(parent) // writes the empty element
		}
	case kindStringList:
		var elems []tftypes.Value
		if err := val.As(&elems); err != nil {
			return p.errorf("%v", err)
		}
		dst := n.ensure(parent)
		out := reflect.MakeSlice(dst.Type(), len(elems), len(elems))
		for i, e := range elems {
			if !e.IsKnown() && p.skipUnknown {
				continue
			}
			var s string
			if err := e.As(&s); err != nil {
				return p.errorf("%v", err)
			}
			out.Index(i).SetString(s)
		}
		dst.Set(out)
	case kindObject:
		var attrs map[string]tftypes.Value
		if err := val.As(&attrs); err != nil {
			return p.errorf("%v", err)
		}
		dst := n.ensure(parent)
		return n.objectFrom(dst, attrs, p)
	case kindList:
		var elems []tftypes.Value
		if err := val.As(&elems); err != nil {
			return p.errorf("%v", err)
		}
		dst := n.ensure(parent)
		out := reflect.MakeSlice(dst.Type(), len(elems), len(elems))
		for i, e := range elems {
			if e.IsNull() || (!e.IsKnown() && p.skipUnknown) {
				continue
			}
			var attrs map[string]tftypes.Value
			if err := e.As(&attrs); err != nil {
				return p.errorf("%v", err)
			}
			p.pushIndex(i)
			if err := n.objectFrom(out.Index(i), attrs, p); err != nil {
				return err
			}
			p.pop()
		}
		dst.Set(out)
	}
	return nil
}

// checkUnits refuses, at plan, a unit libvirt's virScaleInteger would refuse.
func (n *node) checkUnits(attrs map[string]tftypes.Value, p *pathStack) error {
	for _, c := range n.children {
		if c.unit == nil {
			continue
		}
		if u, ok := attrs[c.unit.name]; ok && !u.IsNull() && u.IsKnown() {
			var unit string
			if err := u.As(&unit); err == nil {
				if _, known := UnitFactor(unit, ""); !known {
					p.push(c.unit.name)
					return p.errorf("unknown unit %q; libvirt takes b or bytes, KiB MiB GiB TiB PiB EiB (or K M G T P E: powers of 1024), KB MB GB TB PB EB (powers of 1000), in any case", unit)
				}
			}
		}
	}
	return nil
}

func (n *node) objectFrom(dst reflect.Value, attrs map[string]tftypes.Value, p *pathStack) error {
	if err := n.checkUnits(attrs, p); err != nil {
		return err
	}
	if p.config && n.hasWriteOnly {
		if err := n.checkWriteOnly(attrs, p); err != nil {
			return err
		}
	}
	for _, c := range n.children {
		v, ok := attrs[c.name]
		if !ok {
			continue
		}
		p.push(c.name)
		if err := c.fromValue(dst, v, p); err != nil {
			return err
		}
		p.pop()
	}
	return n.resolveChoices(dst, attrs, p)
}

// resolveChoices applies a derived "type" attribute: it creates the member it
// names when the user gave only the type, and rejects a type that contradicts
// the member that is set.
func (n *node) resolveChoices(dst reflect.Value, attrs map[string]tftypes.Value, p *pathStack) error {
	tn := n.child("type")
	if tn == nil || tn.choice == nil {
		return nil
	}
	// two members at once: libvirtxml would write one and drop the other
	var both []string
	for _, m := range tn.choice.members {
		if memberSet(attrs, m.path) {
			names := make([]string, len(m.path))
			for i, pn := range m.path {
				names[i] = pn.name
			}
			both = append(both, strings.Join(names, "."))
		}
	}
	if len(both) > 1 {
		return p.errorf("%s are alternatives (the element's type); set only one of them", strings.Join(both, " and "))
	}
	tv, ok := attrs["type"]
	if !ok || tv.IsNull() || !tv.IsKnown() {
		if def := tn.choice.defaultMember; def != nil && tn.toValue(dst).IsNull() {
			v := dst
			for _, pn := range def.path {
				v = pn.ensure(v)
			}
		}
		return nil
	}
	var want string
	if err := tv.As(&want); err != nil {
		return err
	}
	set := tn.toValue(dst)
	if !set.IsNull() {
		var have string
		_ = set.As(&have)
		if have != want {
			p.push("type")
			return p.errorf("type %q contradicts the %q member that is set; set one of them, or both to the same kind", want, have)
		}
		return nil
	}
	var allowed []string
	for _, m := range tn.choice.members {
		allowed = append(allowed, m.value)
		if m.value == want {
			v := dst
			for _, pn := range m.path {
				v = pn.ensure(v)
			}
			return nil
		}
	}
	p.push("type")
	return p.errorf("unsupported value %q; allowed: %s", want, strings.Join(allowed, ", "))
}

func maxUint(v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.Uint8:
		return 1<<8 - 1
	case reflect.Uint16:
		return 1<<16 - 1
	case reflect.Uint32:
		return 1<<32 - 1
	}
	return 1<<64 - 1
}

// PathError is a conversion error at an attribute path.
type PathError struct {
	Steps []any // string attribute names and int list indices
	Msg   string
}

func (e *PathError) Error() string {
	var sb strings.Builder
	for _, s := range e.Steps {
		switch s := s.(type) {
		case string:
			if sb.Len() > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(s)
		case int:
			fmt.Fprintf(&sb, "[%d]", s)
		}
	}
	return sb.String() + ": " + e.Msg
}

type pathStack struct {
	steps       []any
	skipUnknown bool // Validate: values not known yet are checked later
	config      bool // Validate: the values are a configuration, not a plan or state
}

func (p *pathStack) push(name string) { p.steps = append(p.steps, name) }
func (p *pathStack) pushIndex(i int)  { p.steps = append(p.steps, i) }
func (p *pathStack) pop()             { p.steps = p.steps[:len(p.steps)-1] }
func (p *pathStack) errorf(format string, args ...any) error {
	return &PathError{Steps: append([]any(nil), p.steps...), Msg: fmt.Sprintf(format, args...)}
}

// word returns the word libvirt takes for s on an attribute with words:
// the word itself, or true/false as the first/second word.
func (n *node) word(s string) (string, bool) {
	yes, no, _ := strings.Cut(n.words, "/")
	switch s {
	case yes, "true":
		return yes, true
	case no, "false":
		return no, true
	}
	return "", false
}

// sameWord reports whether two values of an attribute with words mean the
// same ("true" and "yes").
func (n *node) sameWord(a, b tftypes.Value) bool {
	if n.words == "" {
		return false
	}
	var x, y string
	if a.As(&x) != nil || b.As(&y) != nil {
		return false
	}
	wx, ok1 := n.word(x)
	wy, ok2 := n.word(y)
	return ok1 && ok2 && wx == wy
}

// textAttrValue is the attribute text a textAttr struct writes; null when it
// writes none.
func (n *node) textAttrValue(v reflect.Value) tftypes.Value {
	if !v.CanAddr() {
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		v = c
	}
	a, err := v.Addr().Interface().(xml.MarshalerAttr).MarshalXMLAttr(xml.Name{Local: n.textAttr})
	if err != nil || a.Value == "" {
		return n.null()
	}
	return tftypes.NewValue(tftypes.String, a.Value)
}
