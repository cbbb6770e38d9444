package xmlschema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Write-only twins (Policy.WriteOnly). A secret leaf of the XML (a graphics
// password) gets two sibling attributes that are not XML: "<leaf>_wo", a
// write-only string that OpenTofu and Terraform hand to the provider in the
// configuration only, and "<leaf>_wo_version", a number whose change is what
// plans the update (the ecosystem's convention, as libvirt_secret.value_wo).
// Both are extra nodes: FromValues, Patch and matching ignore them, and
// Reconcile keeps what the plan had (null for the twin). The resource puts
// the twin's value where the leaf goes with WithWriteOnly before it writes
// the document; the leaf itself stays null in plan and state.

// addWriteOnly adds the twin and version of the string leaf at dotted path.
func addWriteOnly(root *node, dotted string) error {
	leaf, err := lookup(root, dotted)
	if err != nil {
		return err
	}
	if leaf.kind != kindString || leaf.extra {
		return fmt.Errorf("xmlschema: write-only path %q is not a string of the XML", dotted)
	}
	parent := root
	if i := strings.LastIndexByte(dotted, '.'); i >= 0 {
		if parent, err = lookup(root, dotted[:i]); err != nil {
			return err
		}
	}
	wo, version := leaf.name+"_wo", leaf.name+"_wo_version"
	for _, n := range []string{wo, version} {
		if parent.child(n) != nil {
			return fmt.Errorf("xmlschema: write-only path %q: %q already exists", dotted, n)
		}
	}
	leaf.woTwin = &node{name: wo, legacy: wo, kind: kindString, extra: true, writeOnly: true, sensitive: true,
		desc: fmt.Sprintf("Not stored: write-only variant of `%s` (OpenTofu and Terraform 1.11 or later; it accepts ephemeral values). "+
			"The provider writes it into the libvirt XML as `%s` at create, and again whenever `%s` changes; plan and state never "+
			"hold it. Set one of `%s` and `%s`; `%s` is required with it. A new value alone plans no change: change `%s` with it.",
			leaf.name, leaf.name, version, leaf.name, wo, version, version)}
	leaf.woVersion = &node{name: version, legacy: version, kind: kindInt, extra: true,
		desc: fmt.Sprintf("Not XML: any number, required with `%s` and only with it; changing it plans an update that writes `%s` "+
			"into the definition again.", wo, wo)}
	parent.children = insertSorted(insertSorted(parent.children, leaf.woTwin), leaf.woVersion)
	index(parent)
	return nil
}

// markHasWriteOnly records which subtrees hold write-only twins, so that the
// walks below skip the rest of the (large) tree.
func markHasWriteOnly(n *node) bool {
	has := n.writeOnly
	for _, c := range n.children {
		if markHasWriteOnly(c) {
			has = true
		}
	}
	n.hasWriteOnly = has
	return has
}

// checkWriteOnly refuses, in a configuration's object, a leaf set beside its
// twin, a twin without its version and a version without its twin. A value
// not known yet counts as set.
func (n *node) checkWriteOnly(attrs map[string]tftypes.Value, p *pathStack) error {
	set := func(c *node) bool { v, ok := attrs[c.name]; return ok && !v.IsNull() }
	for _, c := range n.children {
		if c.woTwin == nil {
			continue
		}
		wo, version := c.woTwin, c.woVersion
		var msg string
		at := wo.name
		switch {
		case set(c) && set(wo):
			msg = fmt.Sprintf("set one of %s (stored in state) or %s (write-only, never stored), not both", c.name, wo.name)
		case set(wo) && !set(version):
			msg = fmt.Sprintf("%s needs %s (any number; changing it writes %s again)", wo.name, version.name, wo.name)
		case set(version) && !set(wo):
			at, msg = version.name, fmt.Sprintf("%s versions the write-only %s; set %s too (or remove %s)", version.name, wo.name, wo.name, version.name)
		default:
			continue
		}
		p.push(at)
		err := p.errorf("%s", msg)
		p.pop()
		return err
	}
	return nil
}

// NullWriteOnly returns vals with every write-only twin null, as plans and
// states hold them, and whether anything changed.
func (m *Model[T]) NullWriteOnly(vals map[string]tftypes.Value) (map[string]tftypes.Value, bool) {
	if !m.root.hasWriteOnly {
		return vals, false
	}
	out, changed := m.root.nullWriteOnlyAttrs(vals)
	return out, changed
}

func (n *node) nullWriteOnly(v tftypes.Value) (tftypes.Value, bool) {
	if !n.hasWriteOnly || v.IsNull() || !v.IsKnown() {
		return v, false
	}
	switch {
	case n.writeOnly:
		return n.null(), true
	case n.kind == kindObject:
		var attrs map[string]tftypes.Value
		_ = v.As(&attrs)
		if out, changed := n.nullWriteOnlyAttrs(attrs); changed {
			return tftypes.NewValue(n.tfType, out), true
		}
	case n.kind == kindList:
		// a copy: As may hand out the value's own slice
		elems := slices.Clone(knownElems(v))
		changed := false
		for i, e := range elems {
			if !e.IsKnown() || e.IsNull() {
				continue
			}
			var attrs map[string]tftypes.Value
			_ = e.As(&attrs)
			if out, c := n.nullWriteOnlyAttrs(attrs); c {
				elems[i], changed = tftypes.NewValue(n.tfType.(tftypes.List).ElementType, out), true
			}
		}
		if changed {
			return tftypes.NewValue(n.tfType, elems), true
		}
	}
	return v, false
}

func (n *node) nullWriteOnlyAttrs(attrs map[string]tftypes.Value) (map[string]tftypes.Value, bool) {
	var out map[string]tftypes.Value
	for _, c := range n.children {
		v, ok := attrs[c.name]
		if !ok || !c.hasWriteOnly {
			continue
		}
		if nv, changed := c.nullWriteOnly(v); changed {
			if out == nil {
				out = make(map[string]tftypes.Value, len(attrs))
				for k, a := range attrs {
					out[k] = a
				}
			}
			out[c.name] = nv
		}
	}
	if out == nil {
		return attrs, false
	}
	return out, true
}

// WithWriteOnly returns planned with the configuration's write-only values
// in place of the leaves they stand for, where they are to be written: all
// of them when prior is nil (create), else those whose version differs from
// the prior state's at the same place. The result is only converted to the
// document (FromValues, Patch), never stored. List elements of planned,
// config and prior are taken in the same order (the planner keeps the
// configuration's order).
func (m *Model[T]) WithWriteOnly(planned, config, prior map[string]tftypes.Value) map[string]tftypes.Value {
	if !m.root.hasWriteOnly || config == nil {
		return planned
	}
	return m.root.withWriteOnlyAttrs(planned, config, prior, prior == nil)
}

func (n *node) withWriteOnlyAttrs(planned, config, prior map[string]tftypes.Value, create bool) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(planned))
	for k, v := range planned {
		out[k] = v
	}
	for _, c := range n.children {
		if c.writeOnly || (!c.hasWriteOnly && c.woTwin == nil) {
			continue
		}
		if c.woTwin != nil {
			wo := config[c.woTwin.name]
			if wo.IsNull() || !wo.IsKnown() {
				continue
			}
			if create || prior == nil || !config[c.woVersion.name].Equal(prior[c.woVersion.name]) {
				out[c.name] = wo
			}
			continue
		}
		if pv, ok := planned[c.name]; ok {
			out[c.name] = c.withWriteOnly(pv, config[c.name], prior[c.name], create)
		}
	}
	return out
}

func (n *node) withWriteOnly(planned, config, prior tftypes.Value, create bool) tftypes.Value {
	if planned.IsNull() || !planned.IsKnown() || config.Type() == nil || config.IsNull() || !config.IsKnown() {
		return planned
	}
	attrsOf := knownAttrs
	switch n.kind {
	case kindObject:
		return tftypes.NewValue(n.tfType, n.withWriteOnlyAttrs(attrsOf(planned), attrsOf(config), attrsOf(prior), create))
	case kindList:
		pe, ce, re := knownElems(planned), knownElems(config), knownElems(prior)
		out := make([]tftypes.Value, len(pe))
		for i, e := range pe {
			out[i] = e
			if i >= len(ce) || e.IsNull() || !e.IsKnown() {
				continue
			}
			var r map[string]tftypes.Value
			if i < len(re) {
				r = attrsOf(re[i])
			}
			elemCreate := create || r == nil
			out[i] = tftypes.NewValue(e.Type(), n.withWriteOnlyAttrs(attrsOf(e), attrsOf(ce[i]), r, elemCreate))
		}
		return tftypes.NewValue(n.tfType, out)
	}
	return planned
}

// WriteOnlyVersionsChanged reports whether a write-only version differs
// between planned and prior: the update then writes that twin's value,
// which neither side holds (so comparing their documents cannot tell).
func (m *Model[T]) WriteOnlyVersionsChanged(planned, prior map[string]tftypes.Value) bool {
	return m.root.hasWriteOnly && m.root.versionsChanged(planned, prior)
}

func (n *node) versionsChanged(planned, prior map[string]tftypes.Value) bool {
	for _, c := range n.children {
		pv, rv := planned[c.name], prior[c.name]
		switch {
		case c.woTwin != nil:
			if v := planned[c.woVersion.name]; v.Type() != nil && !v.IsNull() && !v.Equal(prior[c.woVersion.name]) {
				return true
			}
		case c.writeOnly || !c.hasWriteOnly:
		case c.kind == kindObject:
			if c.versionsChanged(knownAttrs(pv), knownAttrs(rv)) {
				return true
			}
		case c.kind == kindList:
			pe, re := knownElems(pv), knownElems(rv)
			for i := range pe {
				var r map[string]tftypes.Value
				if i < len(re) {
					r = knownAttrs(re[i])
				}
				if c.versionsChanged(knownAttrs(pe[i]), r) {
					return true
				}
			}
		}
	}
	return false
}

// knownAttrs returns an object's attributes, nil when it is null or unknown.
func knownAttrs(v tftypes.Value) map[string]tftypes.Value {
	if v.Type() == nil || v.IsNull() || !v.IsKnown() {
		return nil
	}
	var a map[string]tftypes.Value
	_ = v.As(&a)
	return a
}

// knownElems returns a list's elements, nil when it is null or unknown.
func knownElems(v tftypes.Value) []tftypes.Value {
	if v.Type() == nil || v.IsNull() || !v.IsKnown() {
		return nil
	}
	var e []tftypes.Value
	_ = v.As(&e)
	return e
}

// WriteOnlyPaths returns the attribute-name paths of the write-only twins,
// for the protocol layer to mark them write-only in the schema it serves.
func (m *Model[T]) WriteOnlyPaths() [][]string {
	var out [][]string
	var walk func(n *node, at []string)
	walk = func(n *node, at []string) {
		for _, c := range n.children {
			switch {
			case c.writeOnly:
				out = append(out, append(append([]string(nil), at...), c.name))
			case c.hasWriteOnly:
				walk(c, append(at, c.name))
			}
		}
	}
	walk(m.root, nil)
	return out
}
