package xmlschema

import "github.com/hashicorp/terraform-plugin-go/tftypes"

// Patch applies a plan to the document libvirt holds now: what the plan
// changes (planned differs from prior) is taken from planned, everything
// else from live. So an update keeps what the configuration does not
// mention (the addresses and controllers libvirt filled in, a description
// or on_crash set with virsh) and what changed outside since the last
// refresh, instead of redefining the document from the plan alone.
//
// prior is the state the plan was made against, planned the planned state,
// live the document as libvirt reports it now (ToValues). List elements are
// matched across the three by identity, then agreement, then position (as
// Reconcile and PlanUpdate match them); the patched list has the planned
// elements in the planned order.
func (m *Model[T]) Patch(prior, planned, live map[string]tftypes.Value) map[string]tftypes.Value {
	return m.root.patchAttrs(prior, planned, live)
}

func (n *node) patchAttrs(prior, planned, live map[string]tftypes.Value) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(n.children))
	get := func(m map[string]tftypes.Value, c *node) tftypes.Value {
		if v, ok := m[c.name]; ok && v.Type() != nil {
			return v
		}
		return c.null()
	}
	for _, c := range n.children {
		out[c.name] = c.patch(get(prior, c), get(planned, c), get(live, c))
	}
	// a value and its unit travel together: both from the plan when the
	// plan changes either, else both as libvirt has them
	for _, c := range n.children {
		if c.unit == nil {
			continue
		}
		if !get(planned, c).Equal(get(prior, c)) || !get(planned, c.unit).Equal(get(prior, c.unit)) {
			out[c.name], out[c.unit.name] = get(planned, c), get(planned, c.unit)
		} else {
			out[c.name], out[c.unit.name] = get(live, c), get(live, c.unit)
		}
	}
	return out
}

func (n *node) patch(prior, planned, live tftypes.Value) tftypes.Value {
	if n.extra {
		return planned // not in libvirt's document
	}
	if planned.Equal(prior) && planned.IsFullyKnown() {
		return live // unchanged by the plan: what libvirt holds now
	}
	if !planned.IsKnown() || planned.IsNull() {
		return planned
	}
	switch n.kind {
	case kindObject:
		var pa, na, la map[string]tftypes.Value
		_ = planned.As(&na)
		if !prior.IsNull() && prior.IsKnown() {
			_ = prior.As(&pa)
		}
		if !live.IsNull() && live.IsKnown() {
			_ = live.As(&la)
		}
		return tftypes.NewValue(n.tfType, n.patchAttrs(pa, na, la))
	case kindList:
		return n.patchList(prior, planned, live)
	}
	return planned
}

func (n *node) patchList(prior, planned, live tftypes.Value) tftypes.Value {
	var pe, ne, le []tftypes.Value
	_ = planned.As(&ne)
	if !prior.IsNull() && prior.IsKnown() {
		_ = prior.As(&pe)
	}
	if !live.IsNull() && live.IsKnown() {
		_ = live.As(&le)
	}
	toPrior := n.matchElements(ne, pe, true)
	toLive := n.matchElements(ne, le, true)
	et := n.tfType.(tftypes.List).ElementType
	out := make([]tftypes.Value, len(ne))
	for i, e := range ne {
		if e.IsNull() || !e.IsKnown() {
			out[i] = e
			continue
		}
		var pa, na, la map[string]tftypes.Value
		_ = e.As(&na)
		if j := toPrior[i]; j >= 0 && !pe[j].IsNull() && pe[j].IsKnown() {
			_ = pe[j].As(&pa)
		}
		if j := toLive[i]; j >= 0 && !le[j].IsNull() && le[j].IsKnown() {
			_ = le[j].As(&la)
		}
		out[i] = tftypes.NewValue(et, n.patchAttrs(pa, na, la))
	}
	return tftypes.NewValue(n.tfType, out)
}
