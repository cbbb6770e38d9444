package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestUnitCloudinitDisk_validation needs the tofu binary but no libvirtd.
func TestUnitCloudinitDisk_validation(t *testing.T) {
	cases := map[string]struct {
		attrs string
		want  string
	}{
		"name with slash":    {`name = "a/b"`, `(?s)Attribute name.*must start with a letter or digit`},
		"empty name":         {`name = ""`, `(?s)Attribute name.*must start with a letter or digit`},
		"relative directory": {"name = \"ok\"\n  directory = \"relative/dir\"", `(?s)directory must be an absolute path, got "relative/dir"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			testUnitPlanError(t, "resource \"libvirt_cloudinit_disk\" \"x\" {\n  "+tc.attrs+"\n}\n", tc.want)
		})
	}
}

// TestUnitCloudinitDisk_secretsAreSensitive: user_data and vendor_data are
// cloud-config that often holds passwords and keys; the plan marks both
// sensitive, so neither is printed. Needs the tofu binary but no libvirtd
// (the ISO is written on this machine).
func TestUnitCloudinitDisk_secretsAreSensitive(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: testConfig(`
resource "libvirt_cloudinit_disk" "x" {
  name        = "secrets"
  directory   = {{q .}}
  user_data   = "#cloud-config\npassword: user-s3cret\n"
  vendor_data = "#cloud-config\npassword: vendor-s3cret\n"
}
`, t.TempDir()),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectSensitiveValue("libvirt_cloudinit_disk.x", tfjsonpath.New("user_data")),
					plancheck.ExpectSensitiveValue("libvirt_cloudinit_disk.x", tfjsonpath.New("vendor_data")),
				},
			},
		}},
	})
}
