package provider

import (
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// storageLocks serialises the storage operations libvirt cannot run
// concurrently within one pool; keyed by connection URI and pool name.
var storageLocks storage.PoolLocks

func poolLockKey(uri, pool string) string { return uri + "\x00" + pool }

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
	factor, ok := xmlschema.UnitFactor(unit, "bytes")
	if !ok {
		return 0, false
	}
	n, _ := f.Int(nil)
	n.Mul(n, factor)
	if !n.IsUint64() {
		return 0, false
	}
	return n.Uint64(), true
}
