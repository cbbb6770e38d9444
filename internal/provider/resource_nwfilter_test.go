package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// nwfilterConfig is a filter in the ipv4 chain: a tcp rule to dstIP:53 with
// the given action, an ip rule with a variable, and a reference to one of
// libvirt's stock filters.
func nwfilterConfig(name, action, dstIP string) string {
	return testAccProviderConfig() + fmt.Sprintf(`
resource "libvirt_nwfilter" "test" {
  name     = %[1]q
  chain    = "ipv4"
  priority = -650
  entries = [
    { rule = { action = %[2]q, direction = "out", priority = 100, tcp = { dst_ip_addr = %[3]q, dst_port_start = "53" } } },
    { rule = { action = "accept", direction = "inout", ip = { src_ip_addr = "$IP", protocol = "udp" } } },
    { filter_ref = { filter = "allow-arp" } },
  ]
}
`, name, action, dstIP)
}

// nwfilterDump is what libvirt holds (virsh nwfilter-dumpxml).
func nwfilterDump(t *testing.T, name string) (*libvirtxml.NWFilter, error) {
	t.Helper()
	var x string
	var err error
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		var f libvirt.Nwfilter
		if f, err = l.NwfilterLookupByName(name); err != nil {
			return nil
		}
		x, err = l.NwfilterGetXMLDesc(f, 0)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var doc libvirtxml.NWFilter
	if err := doc.Unmarshal(x); err != nil {
		return nil, err
	}
	return &doc, nil
}

// nwfilterCheckLibvirt compares the filter libvirt holds with the
// configuration's rules, independently of the state.
func nwfilterCheckLibvirt(t *testing.T, name, action, dstIP string, uuid *string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		doc, err := nwfilterDump(t, name)
		if err != nil {
			return fmt.Errorf("nwfilter-dumpxml %s: %w", name, err)
		}
		if doc.Chain != "ipv4" || doc.Priority != -650 {
			return fmt.Errorf("libvirt holds chain %q priority %d, want ipv4 -650", doc.Chain, doc.Priority)
		}
		if len(doc.Entries) != 3 {
			return fmt.Errorf("libvirt holds %d entries, want 3", len(doc.Entries))
		}
		r0, r1, ref := doc.Entries[0].Rule, doc.Entries[1].Rule, doc.Entries[2].Ref
		switch {
		case r0 == nil || r0.TCP == nil || r0.Action != action || r0.Direction != "out" || r0.Priority != 100:
			return fmt.Errorf("first entry is not the %s tcp rule: %+v", action, r0)
		case r0.TCP.DstIPAddr.Str != dstIP || r0.TCP.DstPortStart.Str != "53":
			return fmt.Errorf("tcp match %q:%q, want %s:53", r0.TCP.DstIPAddr.Str, r0.TCP.DstPortStart.Str, dstIP)
		case r1 == nil || r1.IP == nil || r1.IP.SrcIPAddr.Str != "$IP" || r1.Priority != 500:
			return fmt.Errorf("second entry is not the ip rule with $IP and libvirt's default priority 500: %+v", r1)
		case ref == nil || ref.Filter != "allow-arp":
			return fmt.Errorf("third entry is not the filterref to allow-arp: %+v", doc.Entries[2])
		}
		if uuid != nil {
			if *uuid == "" {
				*uuid = doc.UUID
			} else if doc.UUID != *uuid {
				return fmt.Errorf("filter %s has UUID %s, was %s: it was replaced, not updated", name, doc.UUID, *uuid)
			}
		}
		return nil
	}
}

// nwfilterGone fails while libvirt has a filter of one of these names.
func nwfilterGone(t *testing.T, names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, name := range names {
			var err error
			testAccLibvirt(t, func(l *libvirt.Libvirt) error {
				_, err = l.NwfilterLookupByName(name)
				return nil
			})
			if err == nil {
				return fmt.Errorf("network filter %s still exists", name)
			}
			if !libvirtconn.IsNotFound(libvirtconn.WrapError(err)) {
				return err
			}
		}
		return nil
	}
}

// nwfilterRemove undefines filters an earlier run left under these names.
func nwfilterRemove(t *testing.T, names ...string) {
	t.Helper()
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		for _, name := range names {
			if f, err := l.NwfilterLookupByName(name); err == nil {
				t.Logf("removing network filter %s", name)
				if err := l.NwfilterUndefine(f); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// TestAccNWFilter_basic: create with rules, read back what libvirt holds, an
// in-place rule change that keeps the UUID, a replacement on a new name,
// import by name and by UUID, and a destroy that leaves nothing.
func TestAccNWFilter_basic(t *testing.T) {
	name, renamed := "tfacc-nwf-basic", "tfacc-nwf-basic2"
	var uuid string
	attr := func(path ...string) tfjsonpath.Path {
		p := tfjsonpath.New(path[0])
		for _, s := range path[1:] {
			p = p.AtMapKey(s)
		}
		return p
	}
	entry0 := tfjsonpath.New("entries").AtSliceIndex(0).AtMapKey("rule")
	resource.Test(t, resource.TestCase{
		PreCheck: func() {
			testAccPreCheck(t)
			nwfilterRemove(t, name, renamed)
		},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             nwfilterGone(t, name, renamed),
		Steps: []resource.TestStep{
			{
				Config: nwfilterConfig(name, "accept", "10.233.90.1"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_nwfilter.test", attr("id"), knownvalue.StringRegexp(uuidRegexp)),
					statecheck.ExpectKnownValue("libvirt_nwfilter.test", attr("uuid"), knownvalue.StringRegexp(uuidRegexp)),
					statecheck.ExpectKnownValue("libvirt_nwfilter.test", entry0.AtMapKey("tcp").AtMapKey("dst_port_start"), knownvalue.StringExact("53")),
					// libvirt's default rule priority, chosen by libvirt
					statecheck.ExpectKnownValue("libvirt_nwfilter.test",
						tfjsonpath.New("entries").AtSliceIndex(1).AtMapKey("rule").AtMapKey("priority"), knownvalue.Int64Exact(500)),
					statecheck.ExpectKnownValue("libvirt_nwfilter.test",
						tfjsonpath.New("entries").AtSliceIndex(2).AtMapKey("filter_ref").AtMapKey("filter"), knownvalue.StringExact("allow-arp")),
				},
				Check: nwfilterCheckLibvirt(t, name, "accept", "10.233.90.1", &uuid),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// a rule change: redefined in place, same UUID
				Config: nwfilterConfig(name, "drop", "10.233.90.2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_nwfilter.test", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_nwfilter.test", entry0.AtMapKey("action"), knownvalue.StringExact("drop")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					nwfilterCheckLibvirt(t, name, "drop", "10.233.90.2", &uuid),
					func(s *terraform.State) error {
						if got := s.RootModule().Resources["libvirt_nwfilter.test"].Primary.Attributes["id"]; got != uuid {
							return fmt.Errorf("id %s, want the first UUID %s", got, uuid)
						}
						return nil
					},
				),
			},
			{
				ResourceName:      "libvirt_nwfilter.test",
				ImportState:       true,
				ImportStateId:     name,
				ImportStateVerify: true,
			},
			{
				ResourceName:      "libvirt_nwfilter.test",
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return uuid, nil },
				ImportStateVerify: true,
			},
			{
				// a new name replaces the filter: the old one is gone
				Config: nwfilterConfig(renamed, "drop", "10.233.90.2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_nwfilter.test", plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					nwfilterGone(t, name),
					nwfilterCheckLibvirt(t, renamed, "drop", "10.233.90.2", nil),
				),
			},
		},
	})
}

// TestAccNWFilter_existing: a filter of the same name outside the state is
// never redefined; the error names the import ID, and the filter is intact.
func TestAccNWFilter_existing(t *testing.T) {
	name := "tfacc-nwf-existing"
	const outside = `<filter name='tfacc-nwf-existing' chain='root'><rule action='drop' direction='in'><icmp/></rule></filter>`
	resource.Test(t, resource.TestCase{
		PreCheck: func() {
			testAccPreCheck(t)
			nwfilterRemove(t, name)
			testAccLibvirt(t, func(l *libvirt.Libvirt) error {
				_, err := l.NwfilterDefineXML(outside)
				return err
			})
			t.Cleanup(func() { nwfilterRemove(t, name) })
		},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      nwfilterConfig(name, "accept", "10.233.90.1"),
			ExpectError: regexp.MustCompile(`(?s)network filter named "tfacc-nwf-existing" already exists.*id = "tfacc-nwf-existing"`),
		}, {
			// the outside filter still has its own rule
			Config: testAccProviderConfig(),
			Check: func(*terraform.State) error {
				doc, err := nwfilterDump(t, name)
				if err != nil {
					return err
				}
				if len(doc.Entries) != 1 || doc.Entries[0].Rule == nil || doc.Entries[0].Rule.ICMP == nil {
					return fmt.Errorf("the filter outside the state was changed: %+v", doc.Entries)
				}
				return nil
			},
		}},
	})
}

// TestUnitNWFilter_validation: a match value libvirt's field cannot hold is
// refused by validate with the attribute path; name is required.
func TestUnitNWFilter_validation(t *testing.T) {
	for name, tc := range map[string]struct{ config, want string }{
		"bad hexadecimal value": {`
resource "libvirt_nwfilter" "x" {
  name    = "f"
  entries = [{ rule = { action = "accept", direction = "out", mac = { protocol_id = "0xZZ" } } }]
}`, `(?s)entries\[0\]\.rule\.mac\.protocol_id: libvirt cannot read "0xZZ" as the protocolid\s+attribute`},
		"name is required": {`
resource "libvirt_nwfilter" "x" {
  chain = "root"
}`, `(?s)The argument "name" is required`},
	} {
		t.Run(name, func(t *testing.T) { testUnitPlanError(t, tc.config, tc.want) })
	}
}
