package provider

import (
	"strconv"
	"strings"
	"testing"
	"text/template"
)

// Test configurations are built by one helper: testConfig fills a
// text/template with named values instead of positional Sprintf verbs
// (%[11]s), so a configuration reads as HCL with names in it. Functions:
//
//	{{q .Name}}      a quoted HCL string ("tfacc-net")
//	{{list .Hosts}}  items as an HCL list ([ a, b ]), null when empty
//	{{domainType}}   the test environment's domain type (testAccDomainType)
//
// The provider block (testAccProviderConfig) comes first, as in every
// acceptance configuration.
func testConfig(tmpl string, data any) string {
	return testAccProviderConfig() + renderConfig(tmpl, data)
}

// renderConfig is testConfig without the provider block: a part of a
// configuration (the test guest, a provider block with hosts).
func renderConfig(tmpl string, data any) string {
	t := template.Must(template.New("config").Option("missingkey=error").Funcs(template.FuncMap{
		"q": strconv.Quote,
		"list": func(items []string) string {
			if len(items) == 0 {
				return "null"
			}
			return "[\n      " + strings.Join(items, ",\n      ") + ",\n    ]"
		},
		"domainType": testAccDomainType,
	}).Parse(tmpl))
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		panic("test configuration: " + err.Error()) // a broken template is a bug in the test
	}
	return b.String()
}

func TestConfigHelperRenders(t *testing.T) {
	got := testConfig(`name = {{q .Name}}, hosts = {{list .Hosts}}, none = {{list .None}}, on = {{.On}}`,
		map[string]any{"Name": `pkg-"x"`, "Hosts": []string{"a", "b"}, "None": []string(nil), "On": true})
	want := testAccProviderConfig() + "name = \"pkg-\\\"x\\\"\", hosts = [\n      a,\n      b,\n    ], none = null, on = true"
	if got != want {
		t.Errorf("rendered:\n%s\nwant:\n%s", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("a template naming a missing value rendered anyway")
		}
	}()
	testConfig(`{{.Missing}}`, map[string]any{})
}

// cliOverrides is the CLI configuration (TF_CLI_CONFIG_FILE) of a test that
// runs the tofu or terraform binary itself: virtxml/libvirt of each of
// Registries is the provider binary in BinDir (dev_overrides).
type cliOverrides struct {
	BinDir     string
	Registries []string // "registry.opentofu.org", "registry.terraform.io"
	// NoCheckpoint turns off terraform's version check (disable_checkpoint).
	NoCheckpoint bool
}

const cliOverridesTemplate = `{{if .NoCheckpoint}}disable_checkpoint = true
{{end}}provider_installation {
  dev_overrides {
{{- range .Registries}}
    "{{.}}/virtxml/libvirt" = {{q $.BinDir}}
{{- end}}
  }
  direct {}
}
`

func (c cliOverrides) config() string {
	return renderConfig(cliOverridesTemplate, c)
}

// virtxmlRequiredProviders is the terraform block of a configuration run by
// the tofu binary itself: libvirt is virtxml/libvirt.
const virtxmlRequiredProviders = `terraform {
  required_providers {
    libvirt = { source = "virtxml/libvirt" }
  }
}
`
