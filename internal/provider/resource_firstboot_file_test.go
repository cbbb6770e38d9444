package provider

import (
	"strings"
	"testing"
)

func TestIgnitionProblem(t *testing.T) {
	for content, want := range map[string]string{
		`{"ignition":{"version":"3.4.0"}}`:                                   "",
		`{"ignition":{"version":"3.4.0"},"passwd":{"users":[{"name":"c"}]}}`: "",
		``:                                   "it is empty",
		`   `:                                "it is empty",
		`ignition: {version: 3.4.0}`:         "it is not a JSON object",
		`[{"ignition":{"version":"3.4.0"}}]`: "it is not a JSON object",
		`{"ignition":{"version":"3.4.0"}`:    "it is not a JSON object",
		`{"passwd":{}}`:                      `it has no "ignition" member`,
		`{"ignition":"3.4.0"}`:               `"ignition" is not an object with a string version`,
		`{"ignition":{"version":3}}`:         `"ignition" is not an object with a string version`,
		`{"ignition":{}}`:                    "ignition.version is missing or empty",
		`{"ignition":{"version":""}}`:        "ignition.version is missing or empty",
	} {
		got := ignitionProblem(content)
		if (want == "") != (got == "") || !strings.HasPrefix(got, want) {
			t.Errorf("ignitionProblem(%q) = %q, want prefix %q", content, got, want)
		}
	}
}

func TestCombustionProblem(t *testing.T) {
	for content, bad := range map[string]bool{"": true, " \n\t": true, "#!/bin/sh\ntrue\n": false, "true": false} {
		if got := combustionProblem(content) != ""; got != bad {
			t.Errorf("combustionProblem(%q) refuses: %v, want %v", content, got, bad)
		}
	}
}
