package provider

import (
	"math/big"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
)

// Plan helpers shared by libvirt_pool and libvirt_volume. Both work on the
// whole document in ModifyPlan (resource level), never with attribute plan
// modifiers inside the tree, to keep plans fast.

// storageLocks serialises the storage operations libvirt cannot run
// concurrently within one pool; keyed by connection URI and pool name.
var storageLocks storage.PoolLocks

func poolLockKey(uri, pool string) string { return uri + "\x00" + pool }

// keepStateForUnknown returns plan with every unknown value that the
// configuration leaves null replaced by the prior state's value: libvirt
// chose it once and keeps it while the resource is updated in place (the
// resource-level form of UseStateForUnknown).
func keepStateForUnknown(plan, state, config tftypes.Value) tftypes.Value {
	if state.IsNull() || !state.IsKnown() {
		return plan
	}
	if !plan.IsKnown() {
		if config.IsNull() {
			return state
		}
		return plan
	}
	if plan.IsNull() || config.IsNull() || !config.IsKnown() {
		return plan
	}
	switch t := plan.Type().(type) {
	case tftypes.Object:
		var p, s, c map[string]tftypes.Value
		if plan.As(&p) != nil || state.As(&s) != nil || config.As(&c) != nil {
			return plan
		}
		out := make(map[string]tftypes.Value, len(p))
		for k, v := range p {
			out[k] = keepStateForUnknown(v, s[k], c[k])
		}
		return tftypes.NewValue(t, out)
	case tftypes.List:
		var p, s, c []tftypes.Value
		if plan.As(&p) != nil || state.As(&s) != nil || config.As(&c) != nil || len(p) != len(s) || len(p) != len(c) {
			return plan
		}
		out := make([]tftypes.Value, len(p))
		for i := range p {
			out[i] = keepStateForUnknown(p[i], s[i], c[i])
		}
		return tftypes.NewValue(t, out)
	}
	return plan
}

// replaceChanged adds every top-level attribute in names whose planned value
// differs from the state to replace (libvirt cannot change it in place).
func replaceChanged(plan, state map[string]tftypes.Value, names []string, replace *path.Paths) {
	for _, name := range names {
		p, s := plan[name], state[name]
		if p.Equal(s) {
			continue
		}
		*replace = append(*replace, path.Root(name))
	}
}

// byteUnits are libvirt's scaled-integer units for storage sizes.
var byteUnits = map[string]int64{
	"": 1, "b": 1, "bytes": 1,
	"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tib": 1 << 40, "p": 1 << 50, "pib": 1 << 50, "e": 1 << 60, "eib": 1 << 60,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "pb": 1e15, "eb": 1e18,
}

// sizeBytes reads a scaled size (value + unit attribute) in bytes; ok is
// false when the value is null or unknown, or the unit is not libvirt's.
func sizeBytes(attrs map[string]tftypes.Value, name string) (uint64, bool) {
	v, ok := attrs[name]
	if !ok || v.IsNull() || !v.IsKnown() {
		return 0, false
	}
	var f big.Float
	if v.As(&f) != nil {
		return 0, false
	}
	// An unknown unit is one the configuration leaves to libvirt (the unit
	// attribute is computed): storage sizes without a unit are bytes.
	unit := ""
	if u, ok := attrs[name+"_unit"]; ok && u.IsKnown() && !u.IsNull() {
		_ = u.As(&unit)
	}
	factor, ok := byteUnits[strings.ToLower(unit)]
	if !ok {
		return 0, false
	}
	n, _ := f.Int(nil)
	n.Mul(n, big.NewInt(factor))
	if !n.IsUint64() {
		return 0, false
	}
	return n.Uint64(), true
}
