package treeresource

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// toProtoDiagnostics converts framework diagnostics for a protocol response,
// as the framework's server does.
func toProtoDiagnostics(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Summary: d.Summary(), Detail: d.Detail(), Severity: tfprotov6.DiagnosticSeverityWarning}
		if d.Severity() == diag.SeverityError {
			pd.Severity = tfprotov6.DiagnosticSeverityError
		}
		if dp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = toAttributePath(dp.Path())
		}
		out = append(out, pd)
	}
	return out
}

// toAttributePath converts a framework path; nil for the empty path.
func toAttributePath(p path.Path) *tftypes.AttributePath {
	if p.Equal(path.Empty()) {
		return nil
	}
	ap := tftypes.NewAttributePath()
	for _, s := range p.Steps() {
		switch s := s.(type) {
		case path.PathStepAttributeName:
			ap = ap.WithAttributeName(string(s))
		case path.PathStepElementKeyInt:
			ap = ap.WithElementKeyInt(int(s))
		case path.PathStepElementKeyString:
			ap = ap.WithElementKeyString(string(s))
		case path.PathStepElementKeyValue:
			tv, err := s.Value.ToTerraformValue(context.Background())
			if err != nil {
				return ap
			}
			ap = ap.WithElementKeyValue(tv)
		}
	}
	return ap
}

// AddConversionError reports an engine error. The message names the whole
// attribute path; the diagnostic is attached to the top-level attribute only.
// OpenTofu and Terraform find a diagnostic's source by walking its path
// through nested blocks; a nested attribute is not a block, so they skip
// those steps and would highlight a top-level attribute that happens to have
// the last step's name (for devices.interfaces[0].type, the domain's `type`).
func AddConversionError(diags *diag.Diagnostics, summary string, err error) {
	var pe *xmlschema.PathError
	if errors.As(err, &pe) && len(pe.Steps) > 0 {
		if top, ok := pe.Steps[0].(string); ok {
			diags.AddAttributeError(path.Root(top), summary, pe.Error())
			return
		}
	}
	diags.AddError(summary, err.Error())
}

// TopLevel is the top-level attribute of a nested attribute path, where
// diagnostics about it are attached (see AddConversionError); the detail must
// then name the full path.
func TopLevel(p path.Path) path.Path {
	if steps := p.Steps(); len(steps) > 0 {
		if name, ok := steps[0].(path.PathStepAttributeName); ok {
			return path.Root(string(name))
		}
	}
	return p
}
