package xmlschema

import (
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Shorten leaves out of a document's values what the rest of them already
// says, for the configuration generated when a host is adopted: the
// attributes stay in state and the plan keeps them (both are computed or
// compared by meaning), so the configuration is shorter and plans nothing.
//
//   - A derived "type" whose member is set: libvirtxml writes the type from
//     the member (planChoices derives it the same way).
//   - A member that carries nothing (`emulator = {}`, `vnc = {}`): the type
//     names it (resolveChoices creates it), or, for the member libvirtxml
//     reads when there is no type, nothing does.
//   - A scaled value's unit when it is the unit libvirt assumes without one
//     (memory in KiB, a volume's capacity in bytes): sameQuantity reads a
//     missing unit as that one.
func (m *Model[T]) Shorten(values map[string]tftypes.Value) map[string]tftypes.Value {
	return m.root.shortenAttrs(values)
}

func (n *node) shortenAttrs(attrs map[string]tftypes.Value) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(attrs))
	for name, v := range attrs {
		out[name] = v
	}
	for _, c := range n.children {
		if v, ok := out[c.name]; ok {
			out[c.name] = c.shorten(v)
		}
	}
	for _, c := range n.children {
		if c.unit == nil {
			continue
		}
		v, u := out[c.name], out[c.unit.name]
		if v.Type() == nil || u.Type() == nil || v.IsNull() || !u.IsKnown() || u.IsNull() {
			continue
		}
		var unit string
		if u.As(&unit) == nil && unit == c.defaultUnit {
			out[c.unit.name] = c.unit.null()
		}
	}
	for _, c := range n.children {
		if c.choice != nil {
			shortenChoice(c, out)
		}
	}
	return out
}

func (n *node) shorten(v tftypes.Value) tftypes.Value {
	if v.IsNull() || !v.IsKnown() {
		return v
	}
	switch n.kind {
	case kindObject:
		var attrs map[string]tftypes.Value
		if v.As(&attrs) != nil {
			return v
		}
		return tftypes.NewValue(n.tfType, n.shortenAttrs(attrs))
	case kindList:
		var elems []tftypes.Value
		if v.As(&elems) != nil {
			return v
		}
		out := make([]tftypes.Value, len(elems))
		for i, e := range elems {
			out[i] = e
			var attrs map[string]tftypes.Value
			if !e.IsNull() && e.IsKnown() && e.As(&attrs) == nil {
				out[i] = tftypes.NewValue(e.Type(), n.shortenAttrs(attrs))
			}
		}
		return tftypes.NewValue(n.tfType, out)
	}
	return v
}

// shortenChoice applies the choice rules of Shorten to the derived type tn
// of the object attrs.
func shortenChoice(tn *node, attrs map[string]tftypes.Value) {
	for i := range tn.choice.members {
		m := &tn.choice.members[i]
		if !memberSet(attrs, m.path) {
			continue
		}
		last := m.path[len(m.path)-1]
		if last.kind == kindObject && !last.flat && isEmpty(memberValue(attrs, m.path)) {
			clearMember(attrs, m.path)
			dropEmptyParents(attrs, m.path)
			if m == tn.choice.defaultMember {
				attrs[tn.name] = tn.null()
			}
			return
		}
		attrs[tn.name] = tn.null()
		return
	}
}

// memberValue is the value of the object member at path (set: memberSet).
func memberValue(attrs map[string]tftypes.Value, path []*node) tftypes.Value {
	v := attrs[path[0].name]
	for _, pn := range path[1:] {
		var sub map[string]tftypes.Value
		if v.As(&sub) != nil {
			return pn.null()
		}
		v = sub[pn.name]
	}
	return v
}

// dropEmptyParents nulls the objects on the way to a cleared member that
// carry nothing else (`source = { file = {} }` of a cdrom without a medium).
func dropEmptyParents(attrs map[string]tftypes.Value, path []*node) {
	if len(path) < 2 {
		return
	}
	if v := attrs[path[0].name]; !v.IsNull() && isEmpty(v) {
		attrs[path[0].name] = path[0].null()
	}
}
