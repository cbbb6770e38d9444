package xmlschema

import (
	"math/big"
	"strings"
)

// Units is the one table of libvirt's scaled-integer units (memory sizes,
// storage capacities), as libvirt's virScaleInteger reads them: case does
// not matter; "b", "byte" and "bytes" are 1; a power letter k, m, g, t, p or
// e alone or followed by "iB" is a power of 1024, followed by "B" a power of
// 1000. Keys are lower case.
var Units = map[string]*big.Int{}

func init() {
	for _, name := range []string{"b", "byte", "bytes"} {
		Units[name] = big.NewInt(1)
	}
	for i, letter := range []string{"k", "m", "g", "t", "p", "e"} {
		exp := big.NewInt(int64(i + 1))
		binary := new(big.Int).Exp(big.NewInt(1024), exp, nil)
		decimal := new(big.Int).Exp(big.NewInt(1000), exp, nil)
		Units[letter] = binary
		Units[letter+"ib"] = binary
		Units[letter+"b"] = decimal
	}
}

// UnitFactor returns the factor of unit, or of defaultUnit when unit is
// empty ("" for both means bytes); ok is false for a unit libvirt rejects.
func UnitFactor(unit, defaultUnit string) (*big.Int, bool) {
	if unit == "" {
		unit = defaultUnit
	}
	if unit == "" {
		unit = "bytes"
	}
	f, ok := Units[strings.ToLower(unit)]
	return f, ok
}

// ScaledValue converts value in unit (defaultUnit when empty) to the
// multiple of target it holds, rounded down; ok is false for an unknown unit
// or a result beyond uint64.
func ScaledValue(value uint64, unit, defaultUnit, target string) (uint64, bool) {
	from, ok := UnitFactor(unit, defaultUnit)
	if !ok {
		return 0, false
	}
	to, ok := UnitFactor(target, "")
	if !ok {
		return 0, false
	}
	n := new(big.Int).Mul(new(big.Int).SetUint64(value), from)
	n.Quo(n, to)
	if !n.IsUint64() {
		return 0, false
	}
	return n.Uint64(), true
}
