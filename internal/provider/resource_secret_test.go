package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestSecret_validate: bad input is refused at plan with the attribute
// named and what is allowed; no libvirt needed.
func TestSecret_validate(t *testing.T) {
	testUnitPreCheck(t)
	cfg := func(body string) string {
		return testAccProviderConfig() + "resource \"libvirt_secret\" \"bad\" {\n" + body + "\n}\n"
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg(`usage = { type = "rbd", name = "x" }`), PlanOnly: true,
				ExpectError: regexp.MustCompile("(?s)usage.type \"rbd\" is not a libvirt secret usage type: use one of\\s+`ceph`,\\s+`iscsi`")},
			{Config: cfg(`usage = { type = "volume", name = "x" }`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)usage.type "volume" needs usage.volume`)},
			{Config: cfg(`value_base64 = "not base64!"`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)value_base64 must be standard base64`)},
			{Config: cfg("value = \"a\"\nvalue_base64 = \"YQ==\""), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)Set one of value.*value_wo.*not\s+value\s+and\s+value_base64\.`)},
			{Config: cfg("value = \"a\"\nvalue_wo = \"b\""), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)not\s+value\s+and\s+value_wo\.`)},
			{Config: cfg("value = \"a\"\nvalue_wo_version = 1"), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)value_wo_version\s+triggers\s+setting\s+value_wo\s+again;\s+set\s+value_wo\s+too`)},
			{Config: cfg(`ephemeral = "maybe"`), PlanOnly: true,
				ExpectError: regexp.MustCompile(`(?s)ephemeral: must be "yes" or "no"`)},
		},
	})
}

// TestSecret_valueAttributesSensitive: the value attributes are sensitive
// (redacted in plans and in the framework's logs), optional and not
// computed (a value never comes from libvirt unasked).
func TestSecret_valueAttributesSensitive(t *testing.T) {
	s := resourceSchema(t, NewSecretResource())
	for _, n := range []string{"value", "value_base64", "value_wo"} {
		a, ok := s.Attributes[n]
		if !ok {
			t.Fatalf("no attribute %s", n)
		}
		if !a.IsSensitive() || !a.IsOptional() || a.IsComputed() || a.IsRequired() {
			t.Errorf("%s: sensitive=%v optional=%v computed=%v required=%v; want sensitive, optional, not computed",
				n, a.IsSensitive(), a.IsOptional(), a.IsComputed(), a.IsRequired())
		}
	}
	if !s.Attributes["value_wo"].IsWriteOnly() || s.Attributes["value"].IsWriteOnly() || s.Attributes["value_base64"].IsWriteOnly() {
		t.Error("value_wo must be write-only (never in plan or state), value and value_base64 not")
	}
	for n, a := range s.Attributes {
		if a.IsSensitive() && n != "value" && n != "value_base64" && n != "value_wo" {
			t.Errorf("%s is sensitive: only the value attributes hold secrets", n)
		}
	}
}
