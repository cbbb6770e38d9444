package provider

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// TestUnitWriteOnly_validation: a plain value beside its write-only twin, a
// twin without its version and a version without its twin are refused at
// plan, with the attribute path and what is allowed; so is a first-boot file
// with neither content nor content_wo. Needs the tofu binary, no libvirtd.
func TestUnitWriteOnly_validation(t *testing.T) {
	domain := func(vnc string) string {
		return `resource "libvirt_domain" "x" {
  name   = "tfwo-unit"
  type   = "qemu"
  memory = 65536
  devices = { graphics = [{ vnc = { ` + vnc + ` } }] }
}
`
	}
	cases := map[string]struct{ config, want string }{
		"user_data and user_data_wo": {
			"resource \"libvirt_cloudinit_disk\" \"x\" {\n  name = \"x\"\n  user_data = \"a\"\n  user_data_wo = \"b\"\n  user_data_wo_version = 1\n}\n",
			`(?s)user_data_wo = "b".*Set one of user_data \(stored in state\) or user_data_wo \(write-only, never stored\), not both`},
		"vendor_data_wo without version": {
			"resource \"libvirt_cloudinit_disk\" \"x\" {\n  name = \"x\"\n  vendor_data_wo = \"b\"\n}\n",
			`(?s)vendor_data_wo = "b".*vendor_data_wo needs vendor_data_wo_version`},
		"network_config_wo_version without network_config_wo": {
			"resource \"libvirt_cloudinit_disk\" \"x\" {\n  name = \"x\"\n  network_config_wo_version = 3\n}\n",
			`(?s)network_config_wo_version = 3.*set network_config_wo too`},
		"ignition content and content_wo": {
			"resource \"libvirt_ignition\" \"x\" {\n  name = \"x\"\n  content = \"{}\"\n  content_wo = \"{}\"\n  content_wo_version = 1\n}\n",
			`(?s)content_wo = "{}".*Set one of content \(stored in state\) or content_wo`},
		"combustion without content": {
			"resource \"libvirt_combustion\" \"x\" {\n  name = \"x\"\n}\n",
			`(?s)libvirt_combustion.x.*Set content \(stored in state\) or content_wo with content_wo_version`},
		"ignition content_wo checked like content": {
			"resource \"libvirt_ignition\" \"x\" {\n  name = \"x\"\n  content_wo = \"{}\"\n  content_wo_version = 1\n}\n",
			`(?s)content_wo = "{}".*content_wo must be an Ignition config.*no "ignition" member`},
		"passwd and passwd_wo": {
			domain(`passwd = "a", passwd_wo = "b", passwd_wo_version = 1`),
			`(?s)devices\.graphics\[0\]\.vnc\.passwd_wo: set one of passwd \(stored in state\) or passwd_wo`},
		"passwd_wo without version": {
			domain(`passwd_wo = "b"`),
			`(?s)devices\.graphics\[0\]\.vnc\.passwd_wo: passwd_wo needs passwd_wo_version`},
		"passwd_wo_version without passwd_wo": {
			domain(`passwd_wo_version = 2`),
			`(?s)devices\.graphics\[0\]\.vnc\.passwd_wo_version: passwd_wo_version versions the write-only passwd_wo`},
	}
	for name, tc := range cases {
		// tofu wraps messages: any space of the pattern matches any white space
		t.Run(name, func(t *testing.T) { testUnitPlanError(t, tc.config, strings.ReplaceAll(tc.want, " ", `\s+`)) })
	}
}

// TestWriteOnlySchema: the schema served marks every write-only attribute so,
// the domain's nested password twins among them (the framework's own schema
// cannot: they sit under computed nested attributes), and nothing else; the
// domain data source, which only reads, has none.
func TestWriteOnlySchema(t *testing.T) {
	resp, err := ProtocolServer("wo")().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string][]string{}
	var walk func(kind, at string, attrs []*tfprotov6.SchemaAttribute)
	walk = func(kind, at string, attrs []*tfprotov6.SchemaAttribute) {
		for _, a := range attrs {
			p := strings.TrimPrefix(at+"."+a.Name, ".")
			if a.WriteOnly {
				found[kind] = append(found[kind], p)
				if a.Computed || !a.Optional || !a.Sensitive {
					t.Errorf("%s %s: write-only but computed %v, optional %v, sensitive %v", kind, p, a.Computed, a.Optional, a.Sensitive)
				}
			}
			if a.NestedType != nil {
				walk(kind, p, a.NestedType.Attributes)
			}
		}
	}
	for name, s := range resp.ResourceSchemas {
		walk(name, "", s.Block.Attributes)
	}
	for name, s := range resp.DataSourceSchemas {
		walk("data."+name, "", s.Block.Attributes)
	}
	want := map[string][]string{
		"libvirt_secret":         {"value_wo"},
		"libvirt_cloudinit_disk": {"network_config_wo", "user_data_wo", "vendor_data_wo"},
		"libvirt_ignition":       {"content_wo"},
		"libvirt_combustion":     {"content_wo"},
		"libvirt_domain":         {"devices.graphics.spice.passwd_wo", "devices.graphics.vnc.passwd_wo"},
	}
	for k := range found {
		sort.Strings(found[k])
	}
	if !reflect.DeepEqual(found, want) {
		t.Errorf("write-only attributes served:\n%v\nwant:\n%v", found, want)
	}
}
