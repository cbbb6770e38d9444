package provider

import (
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// networkChanges sorts the document paths whose planned value differs from
// the state by how libvirt can apply them.
type networkChanges struct {
	live    []string // DHCP host reservations and DNS hosts: virNetworkUpdate, no restart
	restart []string // everything else: redefine, then destroy + start
}

// liveNetworkPath matches the paths virNetworkUpdate applies to a running
// network (the lists themselves or anything inside them).
var liveNetworkPath = regexp.MustCompile(`^(ips\[\d+\]\.dhcp\.hosts|dns\.host)(\[|$)`)

// diffNetwork compares the document attributes of state and plan.
func diffNetwork(state, plan map[string]tftypes.Value) networkChanges {
	var paths []string
	names := make([]string, 0, len(plan))
	for name := range plan {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s, ok := state[name]
		if !ok {
			s = tftypes.NewValue(plan[name].Type(), nil)
		}
		diffNetworkValue(name, s, plan[name], &paths)
	}
	var c networkChanges
	for _, p := range paths {
		switch {
		case p == "name" || p == "uuid":
			// a replacement (Spec.ReplaceOnChange), neither live nor a restart
		case liveNetworkPath.MatchString(p):
			c.live = append(c.live, p)
		default:
			c.restart = append(c.restart, p)
		}
	}
	return c
}

// diffNetworkValue appends the paths below p where a and b differ: objects by
// attribute, lists of objects of equal length by element, anything else whole.
func diffNetworkValue(p string, a, b tftypes.Value, out *[]string) {
	// tftypes.Value.Equal walks the whole value with attribute paths: calling
	// it at every level made this pass quadratic, so leaves compare here
	if !a.IsKnown() || !b.IsKnown() || a.IsNull() || b.IsNull() {
		if a.IsKnown() != b.IsKnown() || a.IsNull() != b.IsNull() {
			*out = append(*out, p)
		}
		return
	}
	switch t := a.Type().(type) {
	case tftypes.Object:
		var am, bm map[string]tftypes.Value
		if a.As(&am) != nil || b.As(&bm) != nil {
			*out = append(*out, p)
			return
		}
		names := make([]string, 0, len(t.AttributeTypes))
		for name := range t.AttributeTypes {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			diffNetworkValue(p+"."+name, am[name], bm[name], out)
		}
	case tftypes.List:
		var al, bl []tftypes.Value
		if a.As(&al) != nil || b.As(&bl) != nil || len(al) != len(bl) {
			*out = append(*out, p)
			return
		}
		if _, isObj := t.ElementType.(tftypes.Object); !isObj {
			var inner []string
			for i := range al {
				diffNetworkValue(p, al[i], bl[i], &inner)
			}
			if len(inner) > 0 {
				*out = append(*out, p)
			}
			return
		}
		for i := range al {
			diffNetworkValue(fmt.Sprintf("%s[%d]", p, i), al[i], bl[i], out)
		}
	default:
		if !networkLeafEqual(a, b) {
			*out = append(*out, p)
		}
	}
}

// networkLeafEqual compares two known, non-null primitive values (or lists
// of strings).
func networkLeafEqual(a, b tftypes.Value) bool {
	switch {
	case a.Type().Is(tftypes.String):
		var x, y string
		return a.As(&x) == nil && b.As(&y) == nil && x == y
	case a.Type().Is(tftypes.Number):
		var x, y big.Float
		return a.As(&x) == nil && b.As(&y) == nil && x.Cmp(&y) == 0
	case a.Type().Is(tftypes.Bool):
		var x, y bool
		return a.As(&x) == nil && b.As(&y) == nil && x == y
	}
	return a.Equal(b)
}

// joinNetworkPaths joins up to max paths for a message.
func joinNetworkPaths(paths []string, max int) string {
	if len(paths) <= max {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:max], ", ") + fmt.Sprintf(" and %d more", len(paths)-max)
}

// networkHostConflicts finds reservations in config that share a MAC, IP or
// name within one ips[] element, and DNS host entries that share an IP:
// libvirt would hand one address to two guests, or refuse the live update
// halfway. Unknown values are skipped (checked again at apply).
func networkHostConflicts(config map[string]tftypes.Value) []networkConflict {
	var out []networkConflict
	for i, ip := range networkListElems(config["ips"]) {
		dhcp := treeresource.ObjectAttrs(treeresource.ObjectAttrs(ip)["dhcp"])
		seen := map[string]int{}
		for j, h := range networkListElems(dhcp["hosts"]) {
			ha := treeresource.ObjectAttrs(h)
			for _, attr := range []string{"mac", "ip", "name"} {
				v, ok := treeresource.String(ha, attr)
				if !ok || v == "" {
					continue
				}
				key := attr + "=" + strings.ToLower(v)
				if first, dup := seen[key]; dup {
					out = append(out, networkConflict{
						path:   path.Root("ips").AtListIndex(i).AtName("dhcp").AtName("hosts").AtListIndex(j).AtName(attr),
						detail: fmt.Sprintf("ips[%d].dhcp.hosts[%d] and [%d] both have %s %q: each reservation needs its own MAC, IP and name.", i, first, j, attr, v),
					})
					continue
				}
				seen[key] = j
			}
		}
	}
	seen := map[string]int{}
	for j, h := range networkListElems(treeresource.ObjectAttrs(config["dns"])["host"]) {
		v, ok := treeresource.String(treeresource.ObjectAttrs(h), "ip")
		if !ok {
			continue
		}
		if first, dup := seen[v]; dup {
			out = append(out, networkConflict{
				path:   path.Root("dns").AtName("host").AtListIndex(j).AtName("ip"),
				detail: fmt.Sprintf("dns.host[%d] and [%d] both have ip %q: list all hostnames of an address in one entry (hostnames = [...]).", first, j, v),
			})
			continue
		}
		seen[v] = j
	}
	return out
}

type networkConflict struct {
	path   path.Path
	detail string
}

// networkListElems returns a known list's elements (nil for null or unknown).
func networkListElems(v tftypes.Value) []tftypes.Value {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	var elems []tftypes.Value
	if err := v.As(&elems); err != nil {
		return nil
	}
	return elems
}
