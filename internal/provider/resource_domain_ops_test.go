package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestWarnSmallMemory(t *testing.T) {
	num := func(v int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, v) }
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	nullStr := tftypes.NewValue(tftypes.String, nil)
	cases := []struct {
		name   string
		memory tftypes.Value
		unit   tftypes.Value
		warn   bool
	}{
		{"512 without unit is 512 KiB", num(512), nullStr, true},
		{"65535 KiB is under 64 MiB", num(65535), nullStr, true},
		{"65536 KiB is 64 MiB", num(65536), nullStr, false},
		{"512 MiB", num(512), str("MiB"), false},
		{"32 with an explicit KiB unit is deliberate", num(32), str("KiB"), false},
		{"unknown memory", tftypes.NewValue(tftypes.Number, tftypes.UnknownValue), nullStr, false},
		{"null memory", tftypes.NewValue(tftypes.Number, nil), nullStr, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var diags diag.Diagnostics
			warnSmallMemory(map[string]tftypes.Value{"memory": c.memory, "memory_unit": c.unit}, &diags)
			if got := diags.WarningsCount() == 1; got != c.warn {
				t.Fatalf("warning = %v, want %v (%v)", got, c.warn, diags)
			}
			if diags.HasError() {
				t.Fatalf("unexpected error: %v", diags)
			}
			if c.warn {
				d, ok := diags[0].(diag.DiagnosticWithPath)
				if !ok || !d.Path().Equal(path.Root("memory")) {
					t.Fatalf("warning not on attribute memory: %v", diags[0])
				}
			}
		})
	}
}
