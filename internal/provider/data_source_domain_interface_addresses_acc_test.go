package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

// testAccLibvirt runs op against the test libvirtd, failing the test on
// error. While libvirtd is unreachable (other tests restart it) it retries for
// up to two minutes, so that cleanups still run.
func testAccLibvirt(t *testing.T, op func(*libvirt.Libvirt) error) {
	t.Helper()
	client, err := libvirtconn.New(testAccURI())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err = client.Do(context.Background(), op)
		if err == nil {
			return
		}
		if !connectionLost(err) || time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second)
	}
}

// testAccDefineDomain defines (without starting) a domain from xml and removes
// it when the test ends; it returns the domain's UUID.
func testAccDefineDomain(t *testing.T, xml string) string {
	t.Helper()
	var dom libvirt.Domain
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		var err error
		dom, err = l.DomainDefineXML(xml)
		return err
	})
	t.Cleanup(func() {
		testAccLibvirt(t, func(l *libvirt.Libvirt) error {
			if err := l.DomainDestroy(dom); err != nil && !strings.Contains(err.Error(), "not running") {
				return err
			}
			err := l.DomainUndefineFlags(dom, libvirt.DomainUndefineNvram|libvirt.DomainUndefineManagedSave)
			if libvirtconn.IsNotFound(libvirtconn.WrapError(err)) {
				return nil
			}
			return err
		})
	})
	return libvirtops.UUIDString(dom.UUID)
}

const testAccStoppedDomainMAC = "52:54:00:7a:00:01"

func testAccStoppedDomainXML(name string) string {
	return fmt.Sprintf(`<domain type=%q>
  <name>%s</name>
  <memory unit="MiB">64</memory>
  <vcpu>1</vcpu>
  <os><type arch="x86_64">hvm</type></os>
  <devices>
    <interface type="user"><mac address=%q/></interface>
  </devices>
</domain>`, testAccDomainType(), name, testAccStoppedDomainMAC)
}

func TestAccDomainInterfaceAddresses_stoppedDomain(t *testing.T) {
	testAccPreCheck(t)
	const name = "tfacc-ifaddr-stopped"
	uuid := testAccDefineDomain(t, testAccStoppedDomainXML(name))
	const address = "data.libvirt_domain_interface_addresses.x"

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Without wait: what is there now, which is nothing, plus a warning.
				Config: testConfig(`
data "libvirt_domain_interface_addresses" "x" {
  domain = {{q .}}
}
`, name),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("id"), knownvalue.StringExact(uuid)),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("source"), knownvalue.StringExact("lease")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("interfaces"), knownvalue.ListExact([]knownvalue.Check{})),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("ipv4_addresses"), knownvalue.ListExact([]knownvalue.Check{})),
				},
			},
			{
				// Looked up by UUID, every source, short wait: the error lists
				// what each source said.
				Config: testConfig(`
data "libvirt_domain_interface_addresses" "x" {
  domain = {{q .}}
  source = "any"
  wait   = { timeout = "3s" }
}
`, uuid),
				ExpectError: regexp.MustCompile(`(?s)Timed out waiting for domain interface addresses.*` + name +
					`\s+had\s+no\s+IPv4\s+address\s+after\s+3s.*lease: .*not running.*agent: .*not running.*arp: .*not running`),
			},
			{
				Config: testConfig(`
data "libvirt_domain_interface_addresses" "x" {
  domain = {{q .}}
  wait   = { until = "all_interfaces", timeout = "2s" }
}
`, name),
				ExpectError: regexp.MustCompile(`(?s)had\s+no\s+address\s+on\s+every\s+interface\s+\(` + testAccStoppedDomainMAC + `\)\s+after\s+2s.*lease: .*not running`),
			},
		},
	})
}

func TestAccDomainInterfaceAddresses_unknownDomain(t *testing.T) {
	for _, ref := range []string{"tfacc-no-such-domain", "0b9d6f4e-1c2a-4d3b-8e5f-6a7b8c9d0e1f"} {
		t.Run(ref, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				PreCheck:                 func() { testAccPreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: testConfig(`
data "libvirt_domain_interface_addresses" "x" {
  domain = {{q .}}
}
`, ref),
					ExpectError: regexp.MustCompile(`(?s)Domain not found.*No domain with UUID or name "` + ref + `"\s+exists`),
				}},
			})
		})
	}
}
