package xmlschema

import "github.com/hashicorp/terraform-plugin-go/tftypes"

// PlanComputed prepares a planned document when the resource changes: a
// computed attribute the user did not configure keeps the value it had (it is
// carried from the prior state, so the plan stays quiet), or becomes unknown
// when there is none yet or when the policy says it is volatile. One pass over
// the planned value; nothing else in the tree is touched.
func (m *Model[T]) PlanComputed(planned, config map[string]tftypes.Value) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(planned))
	for _, c := range m.root.children {
		out[c.name] = c.planComputed(planned[c.name], config[c.name])
	}
	return out
}

func (n *node) planComputed(planned, config tftypes.Value) tftypes.Value {
	if planned.Type() == nil {
		return planned
	}
	if n.computed && (config.Type() == nil || config.IsNull()) {
		if planned.IsNull() || n.volatile {
			return tftypes.NewValue(n.tfType, tftypes.UnknownValue)
		}
	}
	if planned.IsNull() || !planned.IsKnown() || !n.hasComputed {
		return planned
	}
	switch n.kind {
	case kindObject:
		var pa, ca map[string]tftypes.Value
		_ = planned.As(&pa)
		if config.Type() != nil && !config.IsNull() && config.IsKnown() {
			_ = config.As(&ca)
		}
		return tftypes.NewValue(n.tfType, n.planAttrs(pa, ca))
	case kindList:
		var pe, ce []tftypes.Value
		_ = planned.As(&pe)
		if config.Type() != nil && !config.IsNull() && config.IsKnown() {
			_ = config.As(&ce)
		}
		et := n.tfType.(tftypes.List).ElementType
		out := make([]tftypes.Value, len(pe))
		for i, e := range pe {
			var pa, ca map[string]tftypes.Value
			if e.IsNull() || !e.IsKnown() {
				out[i] = e
				continue
			}
			_ = e.As(&pa)
			if i < len(ce) && !ce[i].IsNull() && ce[i].IsKnown() {
				_ = ce[i].As(&ca)
			}
			out[i] = tftypes.NewValue(et, n.planAttrs(pa, ca))
		}
		return tftypes.NewValue(n.tfType, out)
	}
	return planned
}

func (n *node) planAttrs(planned, config map[string]tftypes.Value) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(planned))
	for _, c := range n.children {
		out[c.name] = c.planComputed(planned[c.name], config[c.name])
	}
	return out
}

// markHasComputed records which subtrees hold computed attributes, so that
// planning skips the rest of the tree.
func markHasComputed(n *node) bool {
	has := n.computed
	for _, c := range n.children {
		if markHasComputed(c) {
			has = true
		}
	}
	n.hasComputed = has
	return has
}
