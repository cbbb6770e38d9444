package provider

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// networkChanges sorts the document paths whose planned value differs from
// the state by how libvirt can apply them.
type networkChanges struct {
	replace []string // name, uuid: libvirt cannot rename a network or change its UUID
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
			c.replace = append(c.replace, p)
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
	if a.Equal(b) {
		return
	}
	if !a.IsKnown() || !b.IsKnown() || a.IsNull() || b.IsNull() {
		*out = append(*out, p)
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
		_, isObj := t.ElementType.(tftypes.Object)
		if !isObj || a.As(&al) != nil || b.As(&bl) != nil || len(al) != len(bl) {
			*out = append(*out, p)
			return
		}
		for i := range al {
			diffNetworkValue(fmt.Sprintf("%s[%d]", p, i), al[i], bl[i], out)
		}
	default:
		*out = append(*out, p)
	}
}

// keepNetworkChosenValues returns plan with every unknown value the user did not
// configure (config null) replaced by the state's value: the UUID, bridge
// name and bridge MAC libvirt chose stay what they are across an update,
// and the plan does not show them as "known after apply". Values the
// configuration leaves unknown (references to other resources) stay unknown.
// Lists are left alone: no libvirt-chosen value of a network sits in a list.
func keepNetworkChosenValues(plan, config, state tftypes.Value) tftypes.Value {
	if !plan.IsKnown() {
		if config.IsNull() && state.IsKnown() && !state.IsNull() {
			return state
		}
		return plan
	}
	if plan.IsNull() || config.IsNull() || !config.IsKnown() || state.IsNull() || !state.IsKnown() {
		return plan
	}
	if _, ok := plan.Type().(tftypes.Object); !ok {
		return plan
	}
	var pm, cm, sm map[string]tftypes.Value
	if plan.As(&pm) != nil || config.As(&cm) != nil || state.As(&sm) != nil {
		return plan
	}
	out := make(map[string]tftypes.Value, len(pm))
	for name, v := range pm {
		c, okc := cm[name]
		s, oks := sm[name]
		if okc && oks {
			v = keepNetworkChosenValues(v, c, s)
		}
		out[name] = v
	}
	return tftypes.NewValue(plan.Type(), out)
}

// joinNetworkPaths joins up to max paths for a message.
func joinNetworkPaths(paths []string, max int) string {
	if len(paths) <= max {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:max], ", ") + fmt.Sprintf(" and %d more", len(paths)-max)
}
