package rules

import (
	"fmt"
	"math/big"

	"github.com/terraform-linters/tflint-plugin-sdk/tflint"
)

// MemoryUnitRule reports a domain's memory sizes written without their
// unit: libvirt reads them as KiB, so `memory = 2048` meant as MiB gives the
// guest 2 MiB, and the apply succeeds. Writing the unit, KiB included,
// says which one is meant.
type MemoryUnitRule struct {
	tflint.DefaultRule
}

func (r *MemoryUnitRule) Name() string              { return "libvirt_memory_unit" }
func (r *MemoryUnitRule) Enabled() bool             { return true }
func (r *MemoryUnitRule) Severity() tflint.Severity { return tflint.WARNING }
func (r *MemoryUnitRule) Link() string              { return guideURL + "#libvirt_memory_unit" }

// memorySizes are libvirt_domain's top-level sizes that libvirt reads in KiB.
var memorySizes = []string{"memory", "current_memory", "maximum_memory"}

func (r *MemoryUnitRule) Check(runner tflint.Runner) error {
	return walk(runner, visitor{object: func(o *object) error {
		if o.typeName != "libvirt_domain" || o.path != "" {
			return nil
		}
		for _, f := range o.fields {
			unit := f.name + "_unit"
			if !contains(memorySizes, f.name) || f.value == nil || o.has(unit) || o.node.Children[unit] == nil {
				continue
			}
			what := fmt.Sprintf("`%s` without `%s` is in KiB", f.name, unit)
			if v, ok := literalNumber(f.value); ok {
				kib, _ := v.Float64()
				what = fmt.Sprintf("`%s = %s` without `%s` is %s KiB (%s MiB) in libvirt", f.name, v.Text('g', -1), unit, v.Text('g', -1), trimFloat(kib/1024))
			}
			msg := what + fmt.Sprintf(": set `%s = \"MiB\"` if MiB is meant (or `\"KiB\"` to keep KiB).", unit)
			if err := runner.EmitIssue(r, msg, f.keyRange); err != nil {
				return err
			}
		}
		return nil
	}})
}

// SizeUnitRule reports a volume's capacity or allocation under 1 MiB
// written without its unit: libvirt reads bytes, and `capacity = 20` meant
// as GiB makes a 20-byte volume.
type SizeUnitRule struct {
	tflint.DefaultRule
}

func (r *SizeUnitRule) Name() string              { return "libvirt_size_unit" }
func (r *SizeUnitRule) Enabled() bool             { return true }
func (r *SizeUnitRule) Severity() tflint.Severity { return tflint.WARNING }
func (r *SizeUnitRule) Link() string              { return guideURL + "#libvirt_size_unit" }

// storageSizes are libvirt_volume's sizes that libvirt reads in bytes.
var storageSizes = []string{"capacity", "allocation"}

var oneMiB = big.NewFloat(1 << 20)

func (r *SizeUnitRule) Check(runner tflint.Runner) error {
	return walk(runner, visitor{object: func(o *object) error {
		if o.typeName != "libvirt_volume" || o.path != "" {
			return nil
		}
		for _, f := range o.fields {
			unit := f.name + "_unit"
			if !contains(storageSizes, f.name) || f.value == nil || o.has(unit) || o.node.Children[unit] == nil {
				continue
			}
			v, ok := literalNumber(f.value)
			if !ok || v.Cmp(oneMiB) >= 0 || v.Sign() == 0 {
				continue
			}
			msg := fmt.Sprintf("`%s = %s` without `%s` is %s bytes: set `%s = \"GiB\"` (or the unit meant; \"B\" keeps bytes).",
				f.name, v.Text('g', -1), unit, v.Text('g', -1), unit)
			if err := runner.EmitIssue(r, msg, f.keyRange); err != nil {
				return err
			}
		}
		return nil
	}})
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func trimFloat(f float64) string {
	return big.NewFloat(f).Text('g', 4)
}
