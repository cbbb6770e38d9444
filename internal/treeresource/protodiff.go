package treeresource

import (
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// Helpers that compare protocol responses: the differential test (in
// internal/provider, beside the resources it runs) holds this package's
// server against the framework's with them, and the package's own tests use
// them too.

// HasError reports whether diagnostics hold an error.
func HasError(ds []*tfprotov6.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// DiagStrings renders diagnostics in a comparable, order-free form.
func DiagStrings(ds []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		p := ""
		if d.Attribute != nil {
			p = d.Attribute.String()
		}
		out = append(out, fmt.Sprintf("%v|%s|%s|%s", d.Severity, d.Summary, d.Detail, p))
	}
	sort.Strings(out)
	return out
}

// WithoutShape returns private-state bytes without the core's shape record
// (the framework's server has none) and whether it was there.
func WithoutShape(b []byte) ([]byte, bool) {
	ps, err := decodePrivate(b)
	if err != nil {
		return b, false
	}
	_, had := ps.provider[shapeKey]
	delete(ps.provider, shapeKey)
	out, _ := ps.encode()
	return out, had
}
