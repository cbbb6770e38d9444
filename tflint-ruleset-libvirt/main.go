// Command tflint-ruleset-libvirt is a TFLint plugin for configurations of
// the virtxml/libvirt provider: it reports keys inside libvirt resources
// that the provider's schema lacks (which OpenTofu and Terraform drop
// without a word), values written in an earlier schema's shape, and sizes
// written without the unit they need. Install it by hand into TFLint's
// plugin directory and enable it with `plugin "libvirt" { enabled = true }`
// in .tflint.hcl (docs/guides/linting-configurations.md).
package main

import (
	"github.com/terraform-linters/tflint-plugin-sdk/plugin"
	"github.com/terraform-linters/tflint-plugin-sdk/tflint"

	"github.com/virtxml/terraform-provider-libvirt/tflint-ruleset-libvirt/rules"
)

// version is set at release builds (-X main.version=...).
var version = "0.0.0-dev"

func main() {
	plugin.Serve(&plugin.ServeOpts{
		RuleSet: &tflint.BuiltinRuleSet{
			Name:    "libvirt",
			Version: version,
			Rules:   rules.All(),
		},
	})
}
