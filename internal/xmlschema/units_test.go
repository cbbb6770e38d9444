package xmlschema

import "testing"

// TestUnits checks the unit table against the values libvirt documents for
// scaled integers (formatdomain "memory": b/bytes, KB=1000, k/KiB=1024, ...).
func TestUnits(t *testing.T) {
	cases := []struct {
		unit string
		want string // decimal
	}{
		{"b", "1"}, {"byte", "1"}, {"bytes", "1"}, {"BYTES", "1"},
		{"KB", "1000"}, {"k", "1024"}, {"KiB", "1024"}, {"kib", "1024"},
		{"MB", "1000000"}, {"M", "1048576"}, {"MiB", "1048576"},
		{"GB", "1000000000"}, {"G", "1073741824"}, {"GiB", "1073741824"},
		{"TB", "1000000000000"}, {"T", "1099511627776"}, {"TiB", "1099511627776"},
		{"PB", "1000000000000000"}, {"P", "1125899906842624"}, {"PiB", "1125899906842624"},
		{"EB", "1000000000000000000"}, {"E", "1152921504606846976"}, {"EiB", "1152921504606846976"},
	}
	for _, c := range cases {
		f, ok := UnitFactor(c.unit, "")
		if !ok || f.String() != c.want {
			t.Errorf("%s: %v %v, want %s", c.unit, f, ok, c.want)
		}
	}
	for _, bad := range []string{"MiBB", "XB", "KiBs", "kilobyte", "i"} {
		if _, ok := UnitFactor(bad, ""); ok {
			t.Errorf("%q accepted", bad)
		}
	}
	if f, _ := UnitFactor("", "KiB"); f.String() != "1024" {
		t.Errorf("default unit not applied: %v", f)
	}
	if f, _ := UnitFactor("", ""); f.String() != "1" {
		t.Errorf("no unit and no default is bytes: %v", f)
	}
	for _, c := range []struct {
		v            uint64
		unit, target string
		want         uint64
		ok           bool
	}{
		{512, "MiB", "KiB", 524288, true},
		{1, "GB", "KiB", 976562, true},
		{4, "", "KiB", 4, true}, // the default unit here is KiB
		{2048, "b", "KiB", 2, true},
		{1, "EiB", "b", 1 << 60, true},
		{16, "EiB", "b", 0, false}, // beyond uint64
		{1, "XB", "KiB", 0, false},
	} {
		got, ok := ScaledValue(c.v, c.unit, "KiB", c.target)
		if got != c.want || ok != c.ok {
			t.Errorf("ScaledValue(%d %s -> %s) = %d %v, want %d %v", c.v, c.unit, c.target, got, ok, c.want, c.ok)
		}
	}
}
