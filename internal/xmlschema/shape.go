package xmlschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Shape records which attributes of a document the configuration sets: the
// part the user manages. Everything else belongs to libvirt and to whoever
// else set it (virsh, another tool). The planner needs it because the state
// alone cannot tell "the user removed this attribute" (plan null: remove it
// from the domain) from "the user never wrote it" (keep what libvirt has),
// once the state holds values the user did not write, as it does after an
// import.
//
// A nil *Shape records nothing: no attribute is managed unless the
// configuration sets it now. That is the rule for a state without a record
// (imported, moved from another provider, written by an older version).
// ShapeAll marks a whole subtree managed (a value that was unknown when it
// was recorded). List shapes are aligned with the list's elements in state,
// which keep the configuration's order.
type Shape struct {
	all   bool
	attrs map[string]*Shape
	elems []*Shape
}

// shapeAll marks everything below as managed.
var shapeAll = &Shape{all: true}

// Managed reports whether the attribute name of this object was set.
func (s *Shape) Managed(name string) bool {
	if s == nil {
		return false
	}
	return s.all || s.attrs[name] != nil
}

// Attr is the shape of attribute name (nil when it was not set).
func (s *Shape) Attr(name string) *Shape {
	if s == nil || s.all {
		return s
	}
	return s.attrs[name]
}

// Elem is the shape of list element i (nil when there was none).
func (s *Shape) Elem(i int) *Shape {
	if s == nil || s.all {
		return s
	}
	if i < 0 || i >= len(s.elems) {
		return nil
	}
	return s.elems[i]
}

// leafShape marks a set leaf (string, number, bool, list of strings).
var leafShape = &Shape{}

// ShapeOf records the attributes config sets. Unknown values count as set,
// with everything below them.
func (m *Model[T]) ShapeOf(config map[string]tftypes.Value) *Shape {
	return m.root.shapeOfAttrs(config)
}

func (n *node) shapeOfAttrs(attrs map[string]tftypes.Value) *Shape {
	s := &Shape{attrs: map[string]*Shape{}}
	for _, c := range n.children {
		if cs := c.shapeOf(attrs[c.name]); cs != nil {
			s.attrs[c.name] = cs
		}
	}
	return s
}

func (n *node) shapeOf(v tftypes.Value) *Shape {
	switch {
	case v.Type() == nil || v.IsNull():
		return nil
	case !v.IsKnown():
		return shapeAll
	}
	switch n.kind {
	case kindObject:
		var a map[string]tftypes.Value
		_ = v.As(&a)
		return n.shapeOfAttrs(a)
	case kindList:
		var es []tftypes.Value
		_ = v.As(&es)
		s := &Shape{elems: make([]*Shape, len(es))}
		for i, e := range es {
			s.elems[i] = n.elemShape(e)
		}
		return s
	}
	return leafShape
}

// MarshalJSON writes a shape compactly: 1 for a set leaf, "*" for a managed
// subtree, an object for an object, an array for a list.
func (s *Shape) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	s.write(&b)
	return b.Bytes(), nil
}

func (s *Shape) write(b *bytes.Buffer) {
	switch {
	case s == nil:
		b.WriteString("null")
	case s.all:
		b.WriteString(`"*"`)
	case s.elems != nil:
		b.WriteByte('[')
		for i, e := range s.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.write(b)
		}
		b.WriteByte(']')
	case s.attrs != nil:
		b.WriteByte('{')
		first := true
		for _, k := range slices.Sorted(maps.Keys(s.attrs)) {
			if !first {
				b.WriteByte(',')
			}
			first = false
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			s.attrs[k].write(b)
		}
		b.WriteByte('}')
	default:
		b.WriteByte('1')
	}
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Shape) UnmarshalJSON(data []byte) error {
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out, err := shapeFrom(raw)
	if err != nil {
		return err
	}
	if out == nil {
		return fmt.Errorf("shape: null at the top")
	}
	*s = *out
	return nil
}

func shapeFrom(raw any) (*Shape, error) {
	switch v := raw.(type) {
	case nil:
		return nil, nil
	case float64:
		return leafShape, nil
	case string:
		if v != "*" {
			return nil, fmt.Errorf("shape: unexpected string %q", v)
		}
		return shapeAll, nil
	case []any:
		s := &Shape{elems: make([]*Shape, len(v))}
		for i, e := range v {
			es, err := shapeFrom(e)
			if err != nil {
				return nil, err
			}
			s.elems[i] = es
		}
		return s, nil
	case map[string]any:
		s := &Shape{attrs: make(map[string]*Shape, len(v))}
		for k, e := range v {
			es, err := shapeFrom(e)
			if err != nil {
				return nil, err
			}
			if es != nil {
				s.attrs[k] = es
			}
		}
		return s, nil
	}
	return nil, fmt.Errorf("shape: unexpected %T", raw)
}
