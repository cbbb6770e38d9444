package provider

import (
	"os"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// testAccProtoV6ProviderFactories runs the provider in-process for acceptance
// tests (resource.Test with TF_ACC=1).
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"libvirt": func() (tfprotov6.ProviderServer, error) { return ProtocolServer("test")(), nil },
}

// testAccURI is the libvirt URI acceptance tests connect to.
func testAccURI() string {
	if u := os.Getenv("LIBVIRT_TEST_URI"); u != "" {
		return u
	}
	return "qemu:///system"
}

// testAccPool is the directory storage pool the test environment creates.
func testAccPool() string {
	if p := os.Getenv("LIBVIRT_TEST_POOL"); p != "" {
		return p
	}
	return "tfacc"
}

// testAccDomainType is the domain type test guests use: qemu (TCG) unless the
// test environment found working KVM.
func testAccDomainType() string {
	if t := os.Getenv("LIBVIRT_TEST_DOMAIN_TYPE"); t != "" {
		return t
	}
	return "qemu"
}

// testAccPreCheck skips acceptance tests without TF_ACC (as resource.Test does)
// and fails them early when TF_ACC is set but the environment is missing.
func testAccPreCheck(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: runs with TF_ACC=1 against libvirtd (make test-acc)")
	}
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		t.Fatal("TF_ACC_TERRAFORM_PATH must point at the tofu binary (scripts/testenv.sh prints the exports)")
	}
}

// testUnitPreCheck is the precheck of tests that run tofu but need no
// libvirtd: they belong to `make unit`, which finds tofu through
// /var/cache/tfplv/env.sh. Without tofu they fail rather than skip.
func testUnitPreCheck(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		t.Fatal("this test runs tofu: set TF_ACC_TERRAFORM_PATH (make unit reads it from /var/cache/tfplv/env.sh, written by make testenv)")
	}
}

// testAccProviderConfig is the provider block every acceptance configuration starts with.
func testAccProviderConfig() string {
	return `
provider "libvirt" {
  uri = "` + testAccURI() + `"
}
`
}

var (
	uuidRegexp = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	nonEmpty   = regexp.MustCompile(`.+`)
)

var (
	macRegexp = regexp.MustCompile(`^[0-9a-f]{2}(:[0-9a-f]{2}){5}$`)
	vncRegexp = regexp.MustCompile(`^vnc://[^:]+:59\d\d$`)
)

// testUnitPlanError plans config (after the provider block) and expects an
// error matching want. It needs the tofu binary but no libvirtd: the error
// comes from validation or planning before anything is created.
func testUnitPlanError(t *testing.T, config, want string) {
	t.Helper()
	resource.UnitTest(t, resource.TestCase{
		PreCheck:                 func() { testUnitPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      testAccProviderConfig() + config,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}},
	})
}
