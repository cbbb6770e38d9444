package volumecontent

import (
	"strings"
	"testing"
)

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"":        0,
		"1":       1,
		"500 MiB": 500 << 20,
		"20GiB":   20 << 30,
		"10G":     10 << 30,
		"2KB":     2000,
		"3 bytes": 3,
	} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for in, says := range map[string]string{
		"20 GB of disk": "is not a size",
		"-1GiB":         "is not a size",
		"1.5GiB":        "is not a size",
		"20 parsecs":    `unknown unit "parsecs"`,
		"0":             "at least 1 byte",
		"99999999EiB":   "at most",
	} {
		if _, err := parseByteSize(in); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("parseByteSize(%q): error %v, want one saying %q", in, err, says)
		}
	}
}
