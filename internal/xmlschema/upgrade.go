package xmlschema

import "strings"

// UpgradeJSON converts the document part of a state written as JSON by
// an earlier schema version of this provider (0: provider 0.1.x, 1), or by
// dmacvicar/libvirt 0.9.x (version 0, whose names and shapes this version
// follows), to this version's attributes. It reads each attribute under its
// name, else under its version 1 name (io_thread_ids), else under its
// version 0 name (v_host_user, d_bus, an embedded struct's fields one
// object deeper), and converts what changed shape: an element without
// content, an empty object in version 0, is true; a yes/no attribute, a
// string in version 0, is a bool; a choice member of text only, an object
// in versions 0 and 1, is its text (random = "/dev/urandom"); a CDATA value
// flattened in versions 0 and 1 is the object { value, unit }. Attributes
// this version does not have are dropped, and so are values of a JSON
// kind the attribute cannot hold.
func (m *Model[T]) UpgradeJSON(doc map[string]any) map[string]any {
	return m.root.upgradeAttrs(doc)
}

func (n *node) upgradeAttrs(old map[string]any) map[string]any {
	out := make(map[string]any, len(n.children))
	for _, c := range n.children {
		v, ok := old[c.name]
		if !ok && c.earlier != "" {
			v, ok = old[c.earlier]
		}
		if !ok && c.legacyIn != "" {
			if in, isMap := old[c.legacyIn].(map[string]any); isMap {
				v, ok = in[c.legacy]
			}
		}
		if !ok && c.legacy != "" {
			v, ok = old[c.legacy]
		}
		if c.formerlyFlat {
			if _, isObject := v.(map[string]any); ok && v != nil && !isObject {
				// versions 0 and 1: max_size = 64, max_size_unit = "MiB"
				o := map[string]any{}
				for _, cc := range c.children {
					if cc.text {
						o[cc.name] = v
					} else if a, set := old[c.name+"_"+cc.name]; set {
						o[cc.name] = a
					}
				}
				v = o
			}
		}
		if !ok || v == nil {
			continue
		}
		if u, keep := c.upgradeValue(v); keep {
			out[c.name] = u
		}
	}
	return out
}

func (n *node) upgradeValue(v any) (any, bool) {
	switch n.kind {
	case kindBool:
		switch v := v.(type) {
		case bool:
			return v, true
		case map[string]any: // version 0: <acpi/> was an empty object
			return true, true
		case string: // version 0: autoport = "yes"
			switch strings.ToLower(v) {
			case "yes", "on", "true":
				return true, true
			case "no", "off", "false":
				return false, true
			}
		}
		return nil, false
	case kindString, kindInt:
		if o, ok := v.(map[string]any); ok && n.formerKey != "" {
			// a flattened choice member that versions 0 and 1 kept as an
			// object: random = { device = "/dev/urandom" }
			v, ok = o[n.formerKey]
			if !ok || v == nil {
				return nil, false
			}
		}
		if _, isObject := v.(map[string]any); isObject {
			return nil, false
		}
		if _, isList := v.([]any); isList {
			return nil, false
		}
		return v, true
	case kindObject:
		o, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		return n.upgradeAttrs(o), true
	case kindList:
		l, ok := v.([]any)
		if !ok {
			return nil, false
		}
		out := make([]any, 0, len(l))
		for _, e := range l {
			if o, ok := e.(map[string]any); ok {
				out = append(out, n.upgradeAttrs(o))
			}
		}
		return out, true
	}
	return v, true
}
