package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

// nwfilterConfig is a filter in the ipv4 chain: a tcp rule to dstIP:53 with
// the given action, an ip rule with a variable, and a reference to one of
// libvirt's stock filters.
func nwfilterConfig(name, action, dstIP string) string {
	return testConfig(`
resource "libvirt_nwfilter" "test" {
  name     = {{q .Name}}
  chain    = "ipv4"
  priority = -650
  entries = [
    { rule = { action = {{q .Action}}, direction = "out", priority = 100, tcp = { dst_ip_addr = {{q .DstIP}}, dst_port_start = "53" } } },
    { rule = { action = "accept", direction = "inout", ip = { src_ip_addr = "$IP", protocol = "udp" } } },
    { filter_ref = { filter = "allow-arp" } },
  ]
}
`, map[string]string{"Name": name, "Action": action, "DstIP": dstIP})
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
// in-place rule change that keeps the UUID, import by name and by UUID, a
// replacement on a new name, a filter undefined outside defined again, and a
// destroy that leaves nothing.
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
			{
				// undefined outside the configuration: the refresh drops it
				// from the state and the apply defines it again
				PreConfig: func() { nwfilterRemove(t, renamed) },
				Config:    nwfilterConfig(renamed, "drop", "10.233.90.2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_nwfilter.test", plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: nwfilterCheckLibvirt(t, renamed, "drop", "10.233.90.2", nil),
			},
		},
	})
}

// TestAccNWFilter_existing: a filter of the same name outside the state is
// never redefined; the error names the import ID, and the filter is intact.
// Adopted with an import block and a configuration that writes what it
// holds, it plans no change; the destroy then removes it.
func TestAccNWFilter_existing(t *testing.T) {
	name := "tfacc-nwf-existing"
	const outside = `<filter name='tfacc-nwf-existing' chain='root'><rule action='drop' direction='in'><icmp/></rule></filter>`
	adopt := testConfig(`
import {
  to = libvirt_nwfilter.test
  id = {{q .}}
}

resource "libvirt_nwfilter" "test" {
  name    = {{q .}}
  entries = [{ rule = { action = "drop", direction = "in", icmp = {} } }]
}
`, name)
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
		CheckDestroy:             nwfilterGone(t, name),
		Steps: []resource.TestStep{{
			Config:      nwfilterConfig(name, "accept", "10.233.90.1"),
			ExpectError: regexp.MustCompile(`(?s)network filter named "tfacc-nwf-existing" already exists.*id = "tfacc-nwf-existing"`),
		}, {
			Config: adopt,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				// the refused create above did not touch it: adopting it
				// as it is changes nothing
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_nwfilter.test", plancheck.ResourceActionNoop)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("libvirt_nwfilter.test", tfjsonpath.New("chain"), knownvalue.StringExact("root")),
				statecheck.ExpectKnownValue("libvirt_nwfilter.test",
					tfjsonpath.New("entries").AtSliceIndex(0).AtMapKey("rule").AtMapKey("priority"), knownvalue.Int64Exact(500)),
			},
			Check: func(*terraform.State) error {
				doc, err := nwfilterDump(t, name)
				if err != nil {
					return err
				}
				if len(doc.Entries) != 1 || doc.Entries[0].Rule == nil || doc.Entries[0].Rule.ICMP == nil || doc.Entries[0].Rule.Action != "drop" {
					return fmt.Errorf("the adopted filter was changed: %+v", doc.Entries)
				}
				return nil
			},
		}},
	})
}

// The guest test owns these names, this MAC and this subnet.
const (
	nwfilterGuestName   = "tfacc-nwf-guest"
	nwfilterGuestSubnet = "10.233.91"
	nwfilterGuestMAC    = "52:54:00:23:91:10"
)

// nwfilterGuestConfig is an isolated network, a filter whose one rule
// matches all traffic from the guest to $HOST with the given action, and the
// test guest with an interface that references the filter and sets HOST to
// the network's own address (the host's side of the bridge).
func nwfilterGuestConfig(guestDir, overlay, seed, consoleLog, action string, withFilter bool) string {
	data := map[string]string{"Name": nwfilterGuestName, "Subnet": nwfilterGuestSubnet, "MAC": nwfilterGuestMAC, "Action": action,
		"FilterName": "libvirt_nwfilter.guard.name"}
	filter := renderConfig(`
resource "libvirt_nwfilter" "guard" {
  name  = "{{.Name}}"
  chain = "root"
  entries = [
    { rule = { action = {{q .Action}}, direction = "out", priority = 100, all = { dst_ip_addr = "$HOST" } } },
  ]
}
`, data)
	if !withFilter {
		// the domain keeps naming the filter, which leaves the configuration
		filter, data["FilterName"] = "", strconv.Quote(nwfilterGuestName)
	}
	guest := testGuest{
		Name: nwfilterGuestName, GuestDir: guestDir, Running: true, FixedNICNames: true,
		Disks: testGuestFileDisks(overlay, seed), SCSI: true,
		Interfaces: []string{renderConfig(`{
        type       = "network"
        mac        = { address = {{q .MAC}} }
        model      = { type = "virtio" }
        source     = { network = { network = libvirt_network.net.name } }
        filter_ref = { filter = {{.FilterName}}, parameters = [{ name = "HOST", value = "{{.Subnet}}.1" }] }
      }`, data)},
		ConsoleLog: consoleLog, Agent: true,
	}
	data["Filter"] = filter
	return testConfig(`{{.Filter}}
resource "libvirt_network" "net" {
  name      = "{{.Name}}-net"
  autostart = false
  ips = [{
    address = "{{.Subnet}}.1"
    prefix  = 24
    dhcp = {
      ranges = [{ start = "{{.Subnet}}.100", end = "{{.Subnet}}.200" }]
      hosts  = [{ mac = {{q .MAC}}, ip = "{{.Subnet}}.10", name = "nwf-guest" }]
    }
  }]
}

data "libvirt_domain_interface_addresses" "agent" {
  domain = libvirt_domain.guest.id
  source = "agent"
  wait   = { timeout = "6m", until = "ipv4" }
}
`, data) + guest.config()
}

// nwfilterGuestExec runs a command in the guest through the guest agent
// (guest-exec, then guest-exec-status until it exits) and returns its exit
// code and output. Nothing but libvirt is used to reach the guest.
func nwfilterGuestExec(t *testing.T, domain string, args ...string) (int, string, error) {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"execute": "guest-exec", "arguments": map[string]any{
		"path": args[0], "arg": args[1:], "capture-output": true}})
	var pid int
	var execErr error
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		dom, err := l.DomainLookupByName(domain)
		if err != nil {
			return err
		}
		out, err := l.QEMUDomainAgentCommand(dom, string(req), 30, 0)
		if err != nil {
			execErr = err
			return nil
		}
		var reply struct {
			Return struct{ Pid int } `json:"return"`
		}
		if len(out) == 0 || json.Unmarshal([]byte(out[0]), &reply) != nil || reply.Return.Pid == 0 {
			execErr = fmt.Errorf("guest-exec: unexpected reply %v", out)
		}
		pid = reply.Return.Pid
		return nil
	})
	if execErr != nil {
		return 0, "", execErr
	}
	status := fmt.Sprintf(`{"execute":"guest-exec-status","arguments":{"pid":%d}}`, pid)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		var reply struct {
			Return struct {
				Exited   bool   `json:"exited"`
				ExitCode int    `json:"exitcode"`
				OutData  string `json:"out-data"`
				ErrData  string `json:"err-data"`
			} `json:"return"`
		}
		testAccLibvirt(t, func(l *libvirt.Libvirt) error {
			dom, err := l.DomainLookupByName(domain)
			if err != nil {
				return err
			}
			out, err := l.QEMUDomainAgentCommand(dom, status, 30, 0)
			if err != nil {
				execErr = err
				return nil
			}
			if len(out) > 0 {
				execErr = json.Unmarshal([]byte(out[0]), &reply)
			}
			return nil
		})
		if execErr != nil {
			return 0, "", execErr
		}
		if reply.Return.Exited {
			o, _ := base64.StdEncoding.DecodeString(reply.Return.OutData)
			e, _ := base64.StdEncoding.DecodeString(reply.Return.ErrData)
			return reply.Return.ExitCode, string(o) + string(e), nil
		}
	}
	return 0, "", fmt.Errorf("guest command %v did not exit within a minute", args)
}

// nwfilterReachHost is the guest's probe: a TCP connection to the DNS port
// of libvirt's dnsmasq on the host's bridge address, given 5 seconds.
var nwfilterReachHost = []string{"/usr/bin/timeout", "5", "/bin/bash", "-c",
	"exec 3<>/dev/tcp/" + nwfilterGuestSubnet + ".1/53 && echo connected"}

// nwfilterCheckReach runs the probe in the guest and fails unless it
// succeeds (want true) or fails (want false).
func nwfilterCheckReach(t *testing.T, want bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		code, out, err := nwfilterGuestExec(t, nwfilterGuestName, nwfilterReachHost...)
		if err != nil {
			return err
		}
		t.Logf("guest: %v -> exit %d, output %q", nwfilterReachHost[3:], code, strings.TrimSpace(out))
		switch {
		case want && (code != 0 || !strings.Contains(out, "connected")):
			return fmt.Errorf("the guest cannot reach %s.1:53 (exit %d, %q), the filter should allow it", nwfilterGuestSubnet, code, out)
		case !want && code == 0:
			return fmt.Errorf("the guest still reaches %s.1:53 (%q), the filter should drop it", nwfilterGuestSubnet, out)
		case !want && code != 124:
			// timeout's code: the connection hung, dropped, rather than
			// failing for another reason
			return fmt.Errorf("the probe failed with exit %d (%q), want 124: a timeout of the dropped connection", code, out)
		}
		return nil
	}
}

// nwfilterGuestDomID records (into *id when it is 0) or compares the running
// guest's domain ID, which changes whenever the guest is stopped and started.
func nwfilterGuestDomID(t *testing.T, id *int32) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var dom libvirt.Domain
		var state int32
		testAccLibvirt(t, func(l *libvirt.Libvirt) error {
			var err error
			if dom, err = l.DomainLookupByName(nwfilterGuestName); err != nil {
				return err
			}
			state, _, err = l.DomainGetState(dom, 0)
			return err
		})
		switch {
		case libvirt.DomainState(state) != libvirt.DomainRunning || dom.ID <= 0:
			return fmt.Errorf("domain %s is not running (state %d, id %d)", nwfilterGuestName, state, dom.ID)
		case *id == 0:
			*id = dom.ID
		case dom.ID != *id:
			return fmt.Errorf("domain %s has ID %d, was %d: it was restarted", nwfilterGuestName, dom.ID, *id)
		default:
			t.Logf("domain %s still runs with ID %d", nwfilterGuestName, dom.ID)
		}
		return nil
	}
}

// nwfilterGuestLeftovers removes what an earlier run that died left under
// the test's names.
func nwfilterGuestLeftovers(t *testing.T) {
	t.Helper()
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		if dom, err := l.DomainLookupByName(nwfilterGuestName); err == nil {
			t.Logf("removing domain %s left behind by an earlier run", nwfilterGuestName)
			_ = l.DomainDestroy(dom)
			if err := l.DomainUndefineFlags(dom, libvirt.DomainUndefineNvram|libvirt.DomainUndefineManagedSave); err != nil {
				return err
			}
		}
		return nil
	})
	testAccNetworkPreCheck(t, nwfilterGuestName+"-net")
	nwfilterRemove(t, nwfilterGuestName)
}

// TestAccNWFilter_guestBlocked boots the test guest once, with an interface
// whose filter_ref names the filter (and passes the host's bridge address as
// the HOST parameter). With an accepting rule the guest reaches the host's
// dnsmasq on port 53; the rule's action changed to drop is an in-place
// update that libvirt applies to the running guest, and the same probe now
// times out. The guest keeps its domain ID throughout. It is observed only
// through libvirt and its guest agent. Last, destroying the filter while the
// guest uses it fails and names the guest.
func TestAccNWFilter_guestBlocked(t *testing.T) {
	guestDir := e2eGuestDir(t)
	testAccPreCheck(t)
	work, overlay, seed := testAccGuestDisks(t, guestDir, nwfilterGuestName, "nwf-guest")
	consoleLog := filepath.Join(work, "console.log")
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(consoleLog); err == nil {
				t.Logf("guest console (last 3000 bytes):\n%s", tail(string(b), 3000))
			}
		}
	})
	var domID int32
	var filterUUID string
	var started time.Time
	sameFilter := func(s *terraform.State) error {
		got := s.RootModule().Resources["libvirt_nwfilter.guard"].Primary.Attributes["id"]
		if filterUUID == "" {
			filterUUID = got
		} else if got != filterUUID {
			return fmt.Errorf("filter id %s, was %s: replaced instead of updated", got, filterUUID)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		PreCheck: func() {
			nwfilterGuestLeftovers(t)
			started = time.Now()
		},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			nwfilterGone(t, nwfilterGuestName),
			testAccCheckNetworkGone(nwfilterGuestName+"-net"),
			func(*terraform.State) error {
				var err error
				testAccLibvirt(t, func(l *libvirt.Libvirt) error {
					_, err = l.DomainLookupByName(nwfilterGuestName)
					return nil
				})
				if !libvirtconn.IsNotFound(libvirtconn.WrapError(err)) {
					return fmt.Errorf("domain %s still exists (lookup: %v)", nwfilterGuestName, err)
				}
				return nil
			},
		),
		Steps: []resource.TestStep{
			{
				Config: nwfilterGuestConfig(guestDir, overlay, seed, consoleLog, "accept", true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain.guest",
						tfjsonpath.New("devices").AtMapKey("interfaces").AtSliceIndex(0).AtMapKey("filter_ref").AtMapKey("filter"),
						knownvalue.StringExact(nwfilterGuestName)),
					statecheck.ExpectKnownValue("data.libvirt_domain_interface_addresses.agent", tfjsonpath.New("ipv4_addresses"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(nwfilterGuestSubnet + ".10")})),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					func(*terraform.State) error {
						t.Logf("guest up with its address %v after the test started", time.Since(started).Round(time.Second))
						return nil
					},
					nwfilterGuestDomID(t, &domID),
					sameFilter,
					nwfilterCheckReach(t, true),
				),
			},
			{
				// the rule now drops: redefined in place, applied live
				Config: nwfilterGuestConfig(guestDir, overlay, seed, consoleLog, "drop", true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_nwfilter.guard", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("libvirt_domain.guest", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					sameFilter,
					nwfilterGuestDomID(t, &domID),
					nwfilterCheckReach(t, false),
					nwfilterGuestDomID(t, &domID),
				),
			},
			{
				// back to accept: the guest reaches the host again, so the
				// failure above was the filter's doing
				Config: nwfilterGuestConfig(guestDir, overlay, seed, consoleLog, "accept", true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_nwfilter.guard", plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					sameFilter,
					nwfilterCheckReach(t, true),
					nwfilterGuestDomID(t, &domID),
				),
			},
			{
				// the filter leaves the configuration while the guest uses it
				Config:      nwfilterGuestConfig(guestDir, overlay, seed, consoleLog, "accept", false),
				ExpectError: regexp.MustCompile(`(?s)Network filter is in use.*running\s+domains\s+use\s+it:\s+` + nwfilterGuestName + `\.`),
			},
			{
				// still defined and in the state; the destroy that follows
				// removes the guest first
				Config: nwfilterGuestConfig(guestDir, overlay, seed, consoleLog, "accept", true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_nwfilter.guard", plancheck.ResourceActionNoop)},
				},
				Check: resource.ComposeAggregateTestCheckFunc(sameFilter, nwfilterGuestDomID(t, &domID)),
			},
		},
	})
}

// TestAccNWFilter_references: a filter that references another managed
// filter with a parameter; libvirt holds the reference, the provider's
// in-use lookup finds the referencing filter, and the destroy (referencing
// filter first) leaves neither.
func TestAccNWFilter_references(t *testing.T) {
	base, outer := "tfacc-nwf-base", "tfacc-nwf-outer"
	config := testConfig(`
resource "libvirt_nwfilter" "base" {
  name    = {{q .Base}}
  entries = [{ rule = { action = "drop", direction = "out", ip = { dst_ip_addr = "$BLOCKED" } } }]
}

resource "libvirt_nwfilter" "outer" {
  name = {{q .Outer}}
  entries = [
    { filter_ref = { filter = libvirt_nwfilter.base.name, parameters = [{ name = "BLOCKED", value = "10.233.90.9" }] } },
    { filter_ref = { filter = "allow-arp" } },
  ]
}
`, map[string]string{"Base": base, "Outer": outer})
	resource.Test(t, resource.TestCase{
		PreCheck: func() {
			testAccPreCheck(t)
			nwfilterRemove(t, outer, base)
		},
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             nwfilterGone(t, outer, base),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("libvirt_nwfilter.outer",
					tfjsonpath.New("entries").AtSliceIndex(0).AtMapKey("filter_ref").AtMapKey("parameters").AtSliceIndex(0).AtMapKey("value"),
					knownvalue.StringExact("10.233.90.9")),
			},
			Check: func(*terraform.State) error {
				doc, err := nwfilterDump(t, outer)
				if err != nil {
					return err
				}
				if len(doc.Entries) != 2 || doc.Entries[0].Ref == nil || doc.Entries[0].Ref.Filter != base ||
					len(doc.Entries[0].Ref.Parameters) != 1 || doc.Entries[0].Ref.Parameters[0].Value != "10.233.90.9" {
					return fmt.Errorf("libvirt holds %+v, want a filterref to %s with BLOCKED=10.233.90.9 first", doc.Entries, base)
				}
				client, err := libvirtconn.New(testAccURI())
				if err != nil {
					return err
				}
				defer client.Close()
				users, err := libvirtops.Nwfilters(client).Users(context.Background(), base)
				if err != nil {
					return err
				}
				if len(users.Filters) != 1 || users.Filters[0] != outer || len(users.Domains) != 0 {
					return fmt.Errorf("users of %s: filters %v, domains %v; want filters [%s], no domains", base, users.Filters, users.Domains, outer)
				}
				return nil
			},
		}, {
			ResourceName:      "libvirt_nwfilter.outer",
			ImportState:       true,
			ImportStateId:     outer,
			ImportStateVerify: true,
		}},
	})
}
