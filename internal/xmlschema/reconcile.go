package xmlschema

import (
	"math/big"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Reconcile decides what state to store after reading a document back from
// libvirt. prior is what the user manages (the plan after an apply, the
// previous state on refresh); live is the document as libvirt reports it.
//
//   - An attribute the user left null stays null, however libvirt fills it in
//     (PCI addresses, aliases, default models, controllers it adds), unless
//     the policy marks it computed (generated MAC, UUID): then libvirt's value
//     is stored.
//   - An attribute the user set takes libvirt's value, so drift shows in the
//     next plan, but a value that means the same (1 GiB as 1048576 KiB, slot
//     0x3 as 0x03, a MAC in other case, a pool path without its trailing
//     slash, the machine alias q35 for pc-q35-7.2: sameMeaning in
//     normalform.go) keeps the user's spelling.
//   - List elements are matched by identity (disk target, MAC), else by the
//     first live element that agrees with everything the user set, never
//     blindly by position; elements the user did not list are dropped unless
//     the list has an identity (out-of-band disks and NICs show as drift).
//
// A nil prior (import) stores the whole live document.
func (m *Model[T]) Reconcile(prior, live map[string]tftypes.Value) map[string]tftypes.Value {
	if prior == nil {
		return live
	}
	return m.root.reconcileAttrs(prior, live)
}

func (n *node) reconcileAttrs(prior, live map[string]tftypes.Value) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(n.children))
	for _, c := range n.children {
		p, ok := prior[c.name]
		if !ok {
			p = c.null()
		}
		l, ok := live[c.name]
		if !ok {
			l = c.null()
		}
		out[c.name] = c.reconcile(p, l)
	}
	// scaled values: the same quantity in another unit keeps the user's form
	for _, c := range n.children {
		if c.unit == nil {
			continue
		}
		pv, pu := prior[c.name], prior[c.unit.name]
		lv, lu := live[c.name], live[c.unit.name]
		if sameQuantity(pv, pu, lv, lu, c.defaultUnit) {
			out[c.name], out[c.unit.name] = pv, pu
		}
	}
	return out
}

func (n *node) reconcile(prior, live tftypes.Value) tftypes.Value {
	if n.extra {
		if !prior.IsKnown() {
			return n.null()
		}
		return prior // libvirt does not hold it: what the plan had
	}
	if !prior.IsKnown() {
		// planned as unknown: whatever libvirt chose
		if n.kind == kindObject && !live.IsNull() {
			return n.reconcile(n.null(), live)
		}
		return live
	}
	if prior.IsNull() {
		if !n.computed || live.IsNull() {
			return n.null()
		}
		if n.kind == kindObject {
			var la map[string]tftypes.Value
			_ = live.As(&la)
			return tftypes.NewValue(n.tfType, n.reconcileAttrs(map[string]tftypes.Value{}, la))
		}
		return live
	}
	if live.IsNull() {
		if isEmpty(prior) || n.leftOutByLibvirt(prior) {
			return prior // [] or "" or {} the user wrote, or a default: libvirt writes nothing for it
		}
		if n.isElided(prior) {
			return prior // libvirt applies it but does not store it
		}
		return live
	}
	switch n.kind {
	case kindBool:
		return live
	case kindString, kindInt:
		if n.sameMeaning(prior, live) {
			return prior
		}
		return live
	case kindStringList:
		if prior.Equal(live) {
			return prior
		}
		return live
	case kindObject:
		var pa, la map[string]tftypes.Value
		_ = prior.As(&pa)
		_ = live.As(&la)
		return tftypes.NewValue(n.tfType, n.reconcileAttrs(pa, la))
	case kindList:
		return n.reconcileList(prior, live)
	}
	return live
}

func (n *node) reconcileList(prior, live tftypes.Value) tftypes.Value {
	var pe, le []tftypes.Value
	_ = prior.As(&pe)
	_ = live.As(&le)
	// a changed element at the same position is drift only in lists
	// without identity: in the others it is an element libvirt lost
	match := n.matchElements(pe, le, false)
	used := make([]bool, len(le))
	for _, j := range match {
		if j >= 0 {
			used[j] = true
		}
	}
	et := n.tfType.(tftypes.List).ElementType
	out := make([]tftypes.Value, 0, len(le))
	for i, p := range pe {
		if match[i] < 0 {
			continue // gone from libvirt: the plan will add it again
		}
		var pa, la map[string]tftypes.Value
		_ = p.As(&pa)
		_ = le[match[i]].As(&la)
		if pa == nil {
			out = append(out, le[match[i]])
			continue
		}
		out = append(out, tftypes.NewValue(et, n.reconcileAttrs(pa, la)))
	}
	if len(n.identity) > 0 {
		for j, l := range le {
			if !used[j] {
				out = append(out, l) // added outside this configuration
			}
		}
	}
	if len(out) == 0 {
		return n.null()
	}
	return tftypes.NewValue(n.tfType, out)
}

// identityOf joins the element's identity key values; ok is false when any is unset.
func (n *node) identityOf(elem tftypes.Value) (string, bool) {
	var parts []string
	for _, k := range n.identity {
		v := elem
		for _, name := range strings.Split(k, ".") {
			if v.IsNull() || !v.IsKnown() {
				return "", false
			}
			var attrs map[string]tftypes.Value
			if err := v.As(&attrs); err != nil {
				return "", false
			}
			v = attrs[name]
		}
		if v.IsNull() || !v.IsKnown() {
			return "", false
		}
		var s string
		if err := v.As(&s); err != nil {
			return "", false
		}
		parts = append(parts, strings.ToLower(s))
	}
	return strings.Join(parts, "\x00"), true
}

// elemAgrees reports whether every value set in prior has an equal value in live.
func (n *node) elemAgrees(prior, live tftypes.Value) bool {
	var pa, la map[string]tftypes.Value
	if prior.As(&pa) != nil || live.As(&la) != nil {
		return false
	}
	return n.attrsAgree(pa, la)
}

func (n *node) attrsAgree(pa, la map[string]tftypes.Value) bool {
	for _, c := range n.children {
		p := pa[c.name]
		if p.IsNull() || !p.IsKnown() || c.extra {
			continue
		}
		l, ok := la[c.name]
		if !ok || l.IsNull() {
			if c.leftOutByLibvirt(p) || c.isElided(p) {
				continue
			}
			return false
		}
		switch c.kind {
		case kindBool:
			if !p.Equal(l) {
				return false
			}
		case kindString, kindInt:
			if !c.sameMeaning(p, l) && c.unit == nil {
				return false
			}
		case kindStringList:
			if !p.Equal(l) {
				return false
			}
		case kindObject:
			var cp, cl map[string]tftypes.Value
			_ = p.As(&cp)
			_ = l.As(&cl)
			if !c.attrsAgree(cp, cl) {
				return false
			}
		case kindList:
			var pe, le []tftypes.Value
			_ = p.As(&pe)
			_ = l.As(&le)
			used := make([]bool, len(le))
			for _, e := range pe {
				found := false
				for j, x := range le {
					if !used[j] && c.elemAgrees(e, x) {
						used[j], found = true, true
						break
					}
				}
				if !found {
					return false
				}
			}
		}
	}
	return true
}

// isElided reports whether prior is the value libvirt applies without
// storing it at this node (policy Elided).
func (n *node) isElided(prior tftypes.Value) bool {
	if n.elided == "" || n.kind != kindString || prior.IsNull() || !prior.IsKnown() {
		return false
	}
	var s string
	return prior.As(&s) == nil && s == n.elided
}

func unitFactor(v tftypes.Value, def string) (*big.Int, bool) {
	u := def
	if !v.IsNull() && v.IsKnown() {
		_ = v.As(&u)
	}
	return UnitFactor(u, "")
}

// sameQuantity reports whether value pv in unit pu equals lv in unit lu.
func sameQuantity(pv, pu, lv, lu tftypes.Value, def string) bool {
	if pv.IsNull() || !pv.IsKnown() || lv.IsNull() || !lv.IsKnown() || !pu.IsKnown() {
		return false
	}
	pf, ok1 := unitFactor(pu, def)
	lf, ok2 := unitFactor(lu, def)
	if !ok1 || !ok2 {
		return false
	}
	var a, b big.Float
	if pv.As(&a) != nil || lv.As(&b) != nil {
		return false
	}
	ai, _ := a.Int(nil)
	bi, _ := b.Int(nil)
	return new(big.Int).Mul(ai, pf).Cmp(new(big.Int).Mul(bi, lf)) == 0
}

// isEmpty reports whether a known value carries nothing: an empty list or
// string, or an object whose attributes are all null or empty.
func isEmpty(v tftypes.Value) bool {
	if v.IsNull() {
		return true
	}
	if !v.IsKnown() {
		return false
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s == ""
	case v.Type().Is(tftypes.Bool):
		// false is how an element without content is left out
		var b bool
		_ = v.As(&b)
		return !b
	case v.Type().Is(tftypes.List{}):
		var l []tftypes.Value
		_ = v.As(&l)
		return len(l) == 0
	case v.Type().Is(tftypes.Object{}):
		var m map[string]tftypes.Value
		_ = v.As(&m)
		for _, a := range m {
			if !isEmpty(a) {
				return false
			}
		}
		return true
	}
	return false
}

// machineAliases are QEMU machine names that libvirt replaces at define by
// the versioned machine they stand for ("q35" -> "pc-q35-7.2").
var machineAliases = map[string]string{"pc": "pc-i440fx-", "q35": "pc-q35-"}

// sameMachine reports whether live is the versioned machine type that the
// alias in prior stands for: the machine attribute of an OS type keeps the
// user's alias instead of showing the expansion as drift.
func (n *node) sameMachine(prior, live tftypes.Value) bool {
	if n.name != "type_machine" {
		return false
	}
	var p, l string
	if prior.As(&p) != nil || live.As(&l) != nil || p == "" {
		return false
	}
	prefix, ok := machineAliases[p]
	if !ok {
		prefix = p + "-" // virt -> virt-7.2
	}
	rest, found := strings.CutPrefix(l, prefix)
	return found && rest != "" && strings.Trim(rest, "0123456789.") == ""
}
