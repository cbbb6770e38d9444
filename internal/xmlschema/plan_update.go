package xmlschema

import "github.com/hashicorp/terraform-plugin-go/tftypes"

// PlanUpdate plans the document of an existing resource from the
// configuration, the prior state and the shape recorded for it (see Shape):
//
//   - What the configuration sets is planned, but a value that means the
//     same as the prior one (1 GiB as 1048576 KiB, q35 as pc-q35-7.2, 0x3 as
//     0x03) plans the prior value: no diff for a spelling.
//   - What it leaves null keeps the prior value, unless the shape says the
//     user set it before (then null: the user removed it) or the policy calls
//     it computed (then the prior value, or unknown when volatile or absent).
//   - List elements in the configuration are matched to prior elements as
//     Reconcile matches them (identity, then agreement, then position), so an
//     adopted disk keeps the address and alias libvirt gave it. The planned
//     list has the configuration's elements in its order.
//   - Setting one member of a choice (or its type) drops the prior member.
//
// After an import the state holds the whole document, so with no shape
// recorded the configuration is the user's shape: everything libvirt filled
// in stays libvirt's and the plan is empty.
//
// changing says whether the resource changes at all (the caller plans once
// with false and, when anything differs from the prior state, again with
// true): only then does a computed attribute without a value, or a volatile
// one, become unknown, so an unchanged resource plans no diff.
//
// It also returns the shape of the configuration aligned with the planned
// value (a list planned in the prior order has its element shapes in that
// order): the record to keep for the next plan.
func (m *Model[T]) PlanUpdate(config, prior map[string]tftypes.Value, shape *Shape, changing bool) (map[string]tftypes.Value, *Shape) {
	return m.root.planUpdateAttrs(config, prior, shape, changing)
}

func (n *node) planUpdateAttrs(config, prior map[string]tftypes.Value, shape *Shape, changing bool) (map[string]tftypes.Value, *Shape) {
	out := make(map[string]tftypes.Value, len(n.children))
	rec := &Shape{attrs: map[string]*Shape{}}
	for _, c := range n.children {
		cv, ok := config[c.name]
		if !ok {
			cv = c.null()
		}
		pv, ok := prior[c.name]
		if !ok {
			pv = c.null()
		}
		v, cs := c.planUpdate(cv, pv, shape.Managed(c.name), shape.Attr(c.name), changing)
		out[c.name] = v
		if cs != nil {
			rec.attrs[c.name] = cs
		}
	}
	for _, c := range n.children {
		if c.unit == nil {
			continue
		}
		// the same quantity in another unit keeps the prior form
		cv, cu := config[c.name], config[c.unit.name]
		pv, pu := prior[c.name], prior[c.unit.name]
		if cv.Type() == nil || cu.Type() == nil || pv.Type() == nil || pu.Type() == nil || !cu.IsKnown() {
			continue
		}
		if sameQuantity(cv, cu, pv, pu, c.defaultUnit) {
			out[c.name], out[c.unit.name] = pv, pu
		}
	}
	n.planChoices(config, prior, out)
	return out, rec
}

func (n *node) planUpdate(config, prior tftypes.Value, managed bool, shape *Shape, changing bool) (tftypes.Value, *Shape) {
	if !config.IsKnown() {
		return config, shapeAll
	}
	if config.IsNull() {
		switch {
		case n.computed:
			if changing && (prior.IsNull() || !prior.IsKnown() || n.volatile) {
				return tftypes.NewValue(n.tfType, tftypes.UnknownValue), nil
			}
			return prior, nil
		case managed:
			return n.null(), nil
		}
		return prior, nil
	}
	if prior.IsNull() || !prior.IsKnown() {
		return n.planComputed(config, config), n.shapeOf(config)
	}
	switch n.kind {
	case kindString, kindInt:
		if n.sameMeaning(config, prior) {
			return prior, leafShape
		}
		return config, leafShape
	case kindObject:
		var ca, pa map[string]tftypes.Value
		_ = config.As(&ca)
		_ = prior.As(&pa)
		v, rec := n.planUpdateAttrs(ca, pa, shape, changing)
		return tftypes.NewValue(n.tfType, v), rec
	case kindList:
		return n.planUpdateList(config, prior, shape, changing)
	}
	return config, leafShape
}

// planUpdateList plans the configuration's elements, each merged with the
// prior element it matches.
func (n *node) planUpdateList(config, prior tftypes.Value, shape *Shape, changing bool) (tftypes.Value, *Shape) {
	var ce, pe []tftypes.Value
	_ = config.As(&ce)
	_ = prior.As(&pe)
	match := n.matchElements(ce, pe, true)
	et := n.tfType.(tftypes.List).ElementType
	out := make([]tftypes.Value, len(ce))
	recs := make([]*Shape, len(ce))
	same := len(ce) == len(pe) // every element equal to the prior one it matched
	for i, c := range ce {
		j := match[i]
		if j < 0 || c.IsNull() || !c.IsKnown() || pe[j].IsNull() || !pe[j].IsKnown() {
			out[i] = n.planComputedElem(c)
			recs[i] = n.elemShape(c)
			same = false
			continue
		}
		var ca, pa map[string]tftypes.Value
		_ = c.As(&ca)
		_ = pe[j].As(&pa)
		v, rec := n.planUpdateAttrs(ca, pa, shape.Elem(j), changing)
		out[i], recs[i] = tftypes.NewValue(et, v), rec
		same = same && out[i].Equal(pe[j])
	}
	if same {
		// the same elements in another order: libvirt's order is kept, as
		// Reconcile keeps it (tofu accepts the prior value for a list the
		// configuration sets); the record follows that order
		inPrior := make([]*Shape, len(pe))
		for i, j := range match {
			inPrior[j] = recs[i]
		}
		return prior, &Shape{elems: inPrior}
	}
	return tftypes.NewValue(n.tfType, out), &Shape{elems: recs}
}

// elemShape is the shape of one configured list element.
func (n *node) elemShape(e tftypes.Value) *Shape {
	switch {
	case e.IsNull():
		return &Shape{attrs: map[string]*Shape{}}
	case !e.IsKnown():
		return shapeAll
	}
	var a map[string]tftypes.Value
	_ = e.As(&a)
	return n.shapeOfAttrs(a)
}

// planComputedElem plans a new list element: computed attributes unknown.
func (n *node) planComputedElem(e tftypes.Value) tftypes.Value {
	if e.IsNull() || !e.IsKnown() {
		return e
	}
	var a map[string]tftypes.Value
	_ = e.As(&a)
	return tftypes.NewValue(n.tfType.(tftypes.List).ElementType, n.planAttrs(a, a))
}

// matchElements pairs each element of want with an element of have (-1 for
// none): by identity, then the first element that agrees with everything
// want sets, then the same position. In lists with an identity, the
// position fallback applies only when unnamed is set and the element names
// no identity of its own (a NIC moved from a network to a bridge keeps its
// MAC and address).
func (n *node) matchElements(want, have []tftypes.Value, unnamed bool) []int {
	used := make([]bool, len(have))
	match := make([]int, len(want))
	for i := range match {
		match[i] = -1
	}
	if len(n.identity) > 0 {
		for i, w := range want {
			key, ok := n.identityOf(w)
			if !ok {
				continue
			}
			for j, h := range have {
				if used[j] {
					continue
				}
				if hk, ok := n.identityOf(h); ok && hk == key {
					match[i], used[j] = j, true
					break
				}
			}
		}
	}
	for i, w := range want {
		if match[i] >= 0 || w.IsNull() || !w.IsKnown() {
			continue
		}
		for j, h := range have {
			if !used[j] && !h.IsNull() && h.IsKnown() && n.elemAgrees(w, h) {
				match[i], used[j] = j, true
				break
			}
		}
	}
	for i, w := range want {
		if match[i] >= 0 || i >= len(have) || used[i] {
			continue
		}
		if _, named := n.identityOf(w); len(n.identity) == 0 || unnamed && !named {
			match[i], used[i] = i, true
		}
	}
	return match
}

// planChoices keeps one member per choice: the member the configuration sets
// (or names with type) wins over a member kept from the prior state, and
// the derived type follows it.
func (n *node) planChoices(config, prior, out map[string]tftypes.Value) {
	for _, c := range n.children {
		if c.choice == nil {
			continue
		}
		chosen := ""
		for _, m := range c.choice.members {
			if memberSet(config, m.path) {
				chosen = m.value
				break
			}
		}
		tv := config[c.name]
		if chosen == "" && tv.Type() != nil && tv.IsKnown() && !tv.IsNull() {
			_ = tv.As(&chosen)
		}
		if chosen == "" {
			// no member configured: the type follows the member kept from
			// the prior state; with none and no default member libvirt
			// writes no type, so it is not "known after apply" either
			for _, m := range c.choice.members {
				if memberSet(out, m.path) {
					chosen = m.value
					break
				}
			}
			if chosen == "" {
				if pv := prior[c.name]; c.choice.defaultMember == nil && (pv.Type() == nil || pv.IsNull()) && !out[c.name].IsKnown() {
					out[c.name] = c.null()
				}
				continue
			}
		}
		for _, m := range c.choice.members {
			if m.value != chosen {
				clearMember(out, m.path)
			}
		}
		if tv.Type() == nil || tv.IsNull() {
			out[c.name] = tftypes.NewValue(tftypes.String, chosen)
		}
	}
}

// memberSet reports whether the member at path (object nodes from the
// choice's object down) is set in attrs.
func memberSet(attrs map[string]tftypes.Value, path []*node) bool {
	if len(path) == 1 && path[0].flat {
		// a flattened member is set when its text or an attribute is
		for _, n := range append([]*node{path[0]}, path[0].flatAttrs...) {
			if v, ok := attrs[n.name]; ok && !v.IsNull() && v.IsKnown() {
				return true
			}
		}
		return false
	}
	v, ok := attrs[path[0].name]
	if !ok || v.IsNull() || !v.IsKnown() {
		return false
	}
	if len(path) == 1 {
		if path[0].kind == kindBool {
			var b bool
			_ = v.As(&b)
			return b
		}
		return true
	}
	var sub map[string]tftypes.Value
	if v.As(&sub) != nil {
		return false
	}
	return memberSet(sub, path[1:])
}

// clearMember sets the member at path in attrs to null, copying the objects
// on the way.
func clearMember(attrs map[string]tftypes.Value, path []*node) {
	first := path[0]
	if len(path) == 1 && first.flat {
		for _, n := range append([]*node{first}, first.flatAttrs...) {
			if _, ok := attrs[n.name]; ok {
				attrs[n.name] = n.null()
			}
		}
		return
	}
	v, ok := attrs[first.name]
	if !ok || v.IsNull() || !v.IsKnown() {
		return
	}
	if len(path) == 1 {
		attrs[first.name] = first.null()
		return
	}
	var sub map[string]tftypes.Value
	if v.As(&sub) != nil {
		return
	}
	cp := make(map[string]tftypes.Value, len(sub))
	for k, x := range sub {
		cp[k] = x
	}
	clearMember(cp, path[1:])
	attrs[first.name] = tftypes.NewValue(first.tfType, cp)
}
