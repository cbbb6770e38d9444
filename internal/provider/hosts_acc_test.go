package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
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

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Tests on two hosts: the test environment's libvirtd (host a) and the
// second one of scripts/testenv-host2.sh (host b, LIBVIRT_TEST_URI_B), which
// sees the same file system: the tfacc pool is defined on both over the same
// folder. `make test-hosts` starts host b and runs them; without host b they
// skip. Their objects are named tfacc-mh-*.

// testAccURIB is host b's URI; the test skips without it.
func testAccURIB(t *testing.T) string {
	t.Helper()
	testAccPreCheck(t)
	u := os.Getenv("LIBVIRT_TEST_URI_B")
	if u == "" {
		t.Skip("LIBVIRT_TEST_URI_B not set: the two-host tests need the second host (make test-hosts, scripts/testenv-host2.sh)")
	}
	return u
}

// testAccHostsProvider is a provider block with hosts a and b; a has the
// provider's uri. Both are local to this machine: migrations skip libvirt's
// shared-file-system check (migrate_unsafe), the provider's check remains.
func testAccHostsProvider(uriB string) string {
	return renderConfig(`
provider "libvirt" {
  uri = {{q .HostAURI}}
  hosts = {
    a = { uri = {{q .HostAURI}}, migrate_unsafe = true }
    b = { uri = {{q .HostBURI}}, migrate_unsafe = true }
  }
}
`, map[string]string{"HostAURI": testAccURI(), "HostBURI": uriB})
}

// onHost runs op on the libvirtd at uri.
func onHost(t *testing.T, uri string, op func(*libvirt.Libvirt) error) {
	t.Helper()
	c, err := libvirtconn.New(uri)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Do(context.Background(), op); err != nil {
		t.Fatal(err)
	}
}

// domainOn reports whether the host at uri has a domain of this name, its
// UUID and whether it runs.
func domainOn(t *testing.T, uri, name string) (found bool, uuid string, running bool) {
	t.Helper()
	onHost(t, uri, func(l *libvirt.Libvirt) error {
		d, err := l.DomainLookupByName(name)
		if libvirtconn.IsNotFound(libvirtconn.WrapError(err)) {
			return nil
		}
		if err != nil {
			return err
		}
		found, uuid = true, uuidString(d.UUID)
		st, _, err := l.DomainGetState(d, 0)
		running = err == nil && libvirt.DomainState(st) == libvirt.DomainRunning
		return err
	})
	return
}

func uuidString(u libvirt.UUID) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// checkDomainOn fails unless the domain is on exactly the host want (a or b),
// in the given run state, with the UUID the state records.
func checkDomainOn(t *testing.T, uriB, name, want string, running bool) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		inA, uuidA, runA := domainOn(t, testAccURI(), name)
		inB, uuidB, runB := domainOn(t, uriB, name)
		var id string
		for _, rs := range s.RootModule().Resources {
			if rs.Type == "libvirt_domain" && rs.Primary.Attributes["name"] == name {
				id = rs.Primary.ID
			}
		}
		here, uuid, run, other := inA, uuidA, runA, inB
		if want == "b" {
			here, uuid, run, other = inB, uuidB, runB, inA
		}
		switch {
		case !here:
			return fmt.Errorf("domain %s is not on host %s (a: %t, b: %t)", name, want, inA, inB)
		case other:
			return fmt.Errorf("domain %s is on both hosts", name)
		case uuid != id:
			return fmt.Errorf("domain %s on host %s has UUID %s, the state %s", name, want, uuid, id)
		case run != running:
			return fmt.Errorf("domain %s on host %s: running %t, want %t", name, want, run, running)
		}
		return nil
	}
}

// checkGoneFromBoth fails when either host still has any of these domains,
// networks, pools or volumes (pool/name).
func checkGoneFromBoth(t *testing.T, uriB string, domains, networks, pools, volumes []string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var left []string
		for host, uri := range map[string]string{"a": testAccURI(), "b": uriB} {
			onHost(t, uri, func(l *libvirt.Libvirt) error {
				for _, n := range domains {
					if _, err := l.DomainLookupByName(n); err == nil {
						left = append(left, fmt.Sprintf("domain %s on host %s", n, host))
					}
				}
				for _, n := range networks {
					if _, err := l.NetworkLookupByName(n); err == nil {
						left = append(left, fmt.Sprintf("network %s on host %s", n, host))
					}
				}
				for _, n := range pools {
					if _, err := l.StoragePoolLookupByName(n); err == nil {
						left = append(left, fmt.Sprintf("pool %s on host %s", n, host))
					}
				}
				for _, pv := range volumes {
					pool, vol, _ := strings.Cut(pv, "/")
					if p, err := l.StoragePoolLookupByName(pool); err == nil {
						_ = l.StoragePoolRefresh(p, 0)
						if _, err := l.StorageVolLookupByName(p, vol); err == nil {
							left = append(left, fmt.Sprintf("volume %s on host %s", pv, host))
						}
					}
				}
				return nil
			})
		}
		if len(left) > 0 {
			return fmt.Errorf("destroy left behind: %s", strings.Join(left, ", "))
		}
		return nil
	}
}

// removeDomainEverywhere removes a domain an earlier run left on either host.
func removeDomainEverywhere(t *testing.T, uriB, name string) {
	t.Helper()
	for _, uri := range []string{testAccURI(), uriB} {
		onHost(t, uri, func(l *libvirt.Libvirt) error {
			if d, err := l.DomainLookupByName(name); err == nil {
				t.Logf("removing domain %s left behind on %s", name, uri)
				_ = l.DomainDestroy(d)
				return l.DomainUndefineFlags(d, libvirt.DomainUndefineNvram|libvirt.DomainUndefineManagedSave|libvirt.DomainUndefineSnapshotsMetadata)
			}
			return nil
		})
	}
}

// testAccHostsPlainDomain is a TCG domain without OS or disks (it runs,
// spinning in the firmware): enough to move.
func testAccHostsPlainDomain(uriB, name, host string, running bool, extra string) string {
	return testAccHostsProvider(uriB) + renderConfig(`
resource "libvirt_domain" "plain" {
  name             = {{q .Name}}
  host             = {{q .Host}}
  type             = "qemu"
  memory           = 64
  memory_unit      = "MiB"
  vcpu             = 1
  running          = {{.Running}}
  autostart        = true
  shutdown_timeout = "0s"
  os = { type = "hvm" }
  devices = {
    graphics = [{ vnc = { listen = "127.0.0.1", auto_port = true } }]
  }
}
{{.Extra}}`, map[string]any{"Name": name, "Host": host, "Running": running, "Extra": extra})
}

// TestAccHosts_movePlainDomain moves a running domain without OS from host a
// to b and back (live migrations planned as in-place updates), then a
// stopped one (define and undefine): the UUID and autostart stay, the old
// host keeps no definition, every plan after an apply is empty.
func TestAccHosts_movePlainDomain(t *testing.T) {
	uriB := testAccURIB(t)
	name := "tfacc-mh-plain"
	removeDomainEverywhere(t, uriB, name)
	var moveStarted time.Time
	mark := func() { moveStarted = time.Now() }
	took := func(what string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			t.Logf("%s: apply took %v (plan, move, read)", what, time.Since(moveStarted).Round(10*time.Millisecond))
			return nil
		}
	}
	inPlace := func() resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("libvirt_domain.plain", plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue("libvirt_domain.plain", tfjsonpath.New("console_urls")),
			},
			PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGoneFromBoth(t, uriB, []string{name}, nil, nil, nil),
		Steps: []resource.TestStep{
			{
				Config: testAccHostsPlainDomain(uriB, name, "a", true, ""),
				Check:  checkDomainOn(t, uriB, name, "a", true),
			},
			{
				PreConfig:         mark,
				Config:            testAccHostsPlainDomain(uriB, name, "b", true, ""),
				ConfigPlanChecks:  inPlace(),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue("libvirt_domain.plain", tfjsonpath.New("host"), knownvalue.StringExact("b"))},
				Check:             resource.ComposeTestCheckFunc(took("live a -> b"), checkDomainOn(t, uriB, name, "b", true), checkAutostart(t, uriB, name, true)),
			},
			{
				PreConfig:        mark,
				Config:           testAccHostsPlainDomain(uriB, name, "a", true, ""),
				ConfigPlanChecks: inPlace(),
				Check:            resource.ComposeTestCheckFunc(took("live b -> a"), checkDomainOn(t, uriB, name, "a", true)),
			},
			{
				Config: testAccHostsPlainDomain(uriB, name, "a", false, ""),
				Check:  checkDomainOn(t, uriB, name, "a", false),
			},
			{
				PreConfig: mark,
				Config:    testAccHostsPlainDomain(uriB, name, "b", false, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain.plain", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(took("stopped a -> b"), checkDomainOn(t, uriB, name, "b", false), checkAutostart(t, uriB, name, true)),
			},
			{
				// import from host b: "b/NAME"
				ResourceName:     "libvirt_domain.plain",
				ImportState:      true,
				ImportStateId:    "b/" + name,
				ImportStateCheck: importedFrom("b", name),
			},
		},
	})
}

// importedFrom checks that an import read the object of this name and
// recorded the host.
func importedFrom(host, name string) resource.ImportStateCheckFunc {
	return func(states []*terraform.InstanceState) error {
		if len(states) != 1 {
			return fmt.Errorf("%d imported states, want 1", len(states))
		}
		a := states[0].Attributes
		if a["host"] != host || a["name"] != name {
			return fmt.Errorf("imported host %q name %q, want %q %q", a["host"], a["name"], host, name)
		}
		return nil
	}
}

// checkAutostart fails unless the domain's autostart flag on host b is want.
func checkAutostart(t *testing.T, uriB, name string, want bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var got int32
		onHost(t, uriB, func(l *libvirt.Libvirt) error {
			d, err := l.DomainLookupByName(name)
			if err != nil {
				return err
			}
			got, err = l.DomainGetAutostart(d)
			return err
		})
		if (got == 1) != want {
			return fmt.Errorf("domain %s on host b: autostart %d, want %t", name, got, want)
		}
		return nil
	}
}

// TestAccHosts_refuseNonShared: a domain whose disks are on storage only
// host a has (a pool host b does not have, and a file in no pool of host b)
// cannot move; the plan says why, naming each disk, and nothing changes.
func TestAccHosts_refuseNonShared(t *testing.T) {
	uriB := testAccURIB(t)
	name := "tfacc-mh-local"
	removeDomainEverywhere(t, uriB, name)
	dir := "/var/tmp/tfacc-mh-only-a"
	config := func(host string) string {
		return testAccHostsProvider(uriB) + renderConfig(`
resource "libvirt_pool" "local" {
  name   = "tfacc-mh-only-a"
  host   = "a"
  type   = "dir"
  target = { path = {{q .PoolDir}} }
}

resource "libvirt_volume" "local" {
  name     = "tfacc-mh-local.qcow2"
  host     = "a"
  pool     = libvirt_pool.local.name
  capacity = 16777216
  target   = { format = { type = "qcow2" } }
}

resource "libvirt_volume" "local2" {
  name     = "tfacc-mh-local2.qcow2"
  host     = "a"
  pool     = libvirt_pool.local.name
  capacity = 16777216
  target   = { format = { type = "qcow2" } }
}

resource "libvirt_domain" "local" {
  name        = {{q .Name}}
  host        = {{q .Host}}
  type        = "qemu"
  memory      = 64
  memory_unit = "MiB"
  vcpu        = 1
  os          = { type = "hvm" }
  devices = {
    disks = [
      {
        source = { volume = { pool = libvirt_pool.local.name, volume = libvirt_volume.local.name } }
        target = { dev = "vda", bus = "virtio" }
        driver = { type = "qcow2" }
      },
      {
        source = { file = { file = libvirt_volume.local2.path } }
        target = { dev = "vdb", bus = "virtio" }
        driver = { type = "qcow2" }
      },
    ]
  }
}
`, map[string]string{"Name": name, "Host": host, "PoolDir": dir})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: checkGoneFromBoth(t, uriB, []string{name}, nil, []string{"tfacc-mh-only-a"},
			[]string{"tfacc-mh-only-a/tfacc-mh-local.qcow2"}),
		Steps: []resource.TestStep{
			{Config: config("a")},
			{
				Config:      config("b"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)cannot move.*disk "vda": host "b" has no storage pool\s+"tfacc-mh-only-a".*disk "vdb": file\s+/var/tmp/tfacc-mh-only-a/tfacc-mh-local2.qcow2 is in no\s+storage pool of host "b"`),
			},
			{
				// nothing changed: an empty plan, the domain still on host a
				Config:           config("a"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            checkDomainOn(t, uriB, name, "a", false),
			},
		},
	})
}

// TestAccHosts_perResourceHost: a network, a pool and a volume on host b
// (nothing of them on host a), imported from host b by "b/ID"; moving the
// pool to host a replaces it; a host name with the same uri as the
// provider's is the same host (an in-place change of the name only).
func TestAccHosts_perResourceHost(t *testing.T) {
	uriB := testAccURIB(t)
	prefix := "tfacc-mh-res"
	dir := "/var/tmp/" + prefix + "-pool"
	config := func(poolHost, netHost string) string {
		return testAccHostsProvider(uriB) + renderConfig(`
resource "libvirt_network" "net" {
  name      = "{{.Prefix}}-net"
  host      = {{q .NetHost}}
  autostart = false
  bridge    = { name = "tfmh-br0" }
}

resource "libvirt_pool" "pool" {
  name   = "{{.Prefix}}-pool"
  host   = {{if .PoolHost}}{{q .PoolHost}}{{else}}null{{end}}
  type   = "dir"
  target = { path = {{q .PoolDir}} }
}

resource "libvirt_volume" "vol" {
  name     = "{{.Prefix}}-vol.raw"
  host     = libvirt_pool.pool.host
  pool     = libvirt_pool.pool.name
  capacity = 1048576
}
`, map[string]string{"Prefix": prefix, "PoolHost": poolHost, "NetHost": netHost, "PoolDir": dir})
	}
	on := func(host, what, name string, want bool) resource.TestCheckFunc {
		return func(*terraform.State) error {
			uri := testAccURI()
			if host == "b" {
				uri = uriB
			}
			var found bool
			onHost(t, uri, func(l *libvirt.Libvirt) error {
				var err error
				switch what {
				case "network":
					_, err = l.NetworkLookupByName(name)
				case "pool":
					_, err = l.StoragePoolLookupByName(name)
				case "volume":
					var p libvirt.StoragePool
					if p, err = l.StoragePoolLookupByName(prefix + "-pool"); err == nil {
						_, err = l.StorageVolLookupByName(p, name)
					}
				}
				found = err == nil
				return nil
			})
			if found != want {
				return fmt.Errorf("%s %s on host %s: found %t, want %t", what, name, host, found, want)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: checkGoneFromBoth(t, uriB, nil, []string{prefix + "-net"}, []string{prefix + "-pool"},
			[]string{prefix + "-pool/" + prefix + "-vol.raw"}),
		Steps: []resource.TestStep{
			{
				Config: config("b", "b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					on("b", "network", prefix+"-net", true), on("a", "network", prefix+"-net", false),
					on("b", "pool", prefix+"-pool", true), on("a", "pool", prefix+"-pool", false),
					on("b", "volume", prefix+"-vol.raw", true),
				),
			},
			{
				ResourceName:     "libvirt_network.net",
				ImportState:      true,
				ImportStateId:    "b/" + prefix + "-net",
				ImportStateCheck: importedFrom("b", prefix+"-net"),
			},
			{
				ResourceName:     "libvirt_pool.pool",
				ImportState:      true,
				ImportStateId:    "b/" + prefix + "-pool",
				ImportStateCheck: importedFrom("b", prefix+"-pool"),
			},
			{
				// the pool (and its volume) move to host a: replaced
				Config: config("a", "b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_pool.pool", plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectResourceAction("libvirt_volume.vol", plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectResourceAction("libvirt_network.net", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					on("a", "pool", prefix+"-pool", true), on("b", "pool", prefix+"-pool", false),
					on("a", "volume", prefix+"-vol.raw", true),
				),
			},
			{
				// host a has the provider's uri: dropping the name is no move
				Config: config("", "b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_pool.pool", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("libvirt_volume.vol", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: on("a", "pool", prefix+"-pool", true),
			},
		},
	})
}

// TestAccHosts_unknownHost: a host the provider does not know fails the plan
// with the list of those it knows.
func TestAccHosts_unknownHost(t *testing.T) {
	uriB := testAccURIB(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: testAccHostsProvider(uriB) + `
resource "libvirt_pool" "p" {
  name   = "tfacc-mh-nohost"
  host   = "c"
  type   = "dir"
  target = { path = "/var/tmp/tfacc-mh-nohost" }
}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`host "c" is not one of the provider's hosts \(a, b\)`),
		}},
	})
}

// TestAccHosts_failedMigration: a migration that fails (host b cannot create
// the domain's tap device: host a's running copy holds that name, as it
// would not on another machine) leaves the domain running on host a, not
// restarted, the state unchanged (the next plan moves again) and nothing on
// host b.
func TestAccHosts_failedMigration(t *testing.T) {
	uriB := testAccURIB(t)
	name := "tfacc-mh-fail"
	removeDomainEverywhere(t, uriB, name)
	config := func(host string) string {
		return strings.Replace(testAccHostsPlainDomain(uriB, name, host, true, ""),
			`graphics = [{ vnc = { listen = "127.0.0.1", auto_port = true } }]`,
			`interfaces = [{ type = "ethernet", target = { dev = "tfmhtap0" }, model = { type = "virtio" } }]`, 1)
	}
	var domID string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGoneFromBoth(t, uriB, []string{name}, nil, nil, nil),
		Steps: []resource.TestStep{
			{
				Config: config("a"),
				Check:  resource.ComposeTestCheckFunc(checkDomainOn(t, uriB, name, "a", true), testCheckDomID(name, &domID)),
			},
			{
				Config:      config("b"),
				ExpectError: regexp.MustCompile(`(?s)Cannot move domain.*tfmhtap0 interface already exists`),
			},
			{
				// nothing moved, nothing restarted; the state still says host a
				Config:           config("a"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: resource.ComposeTestCheckFunc(checkDomainOn(t, uriB, name, "a", true),
					testCheckDomIDIs(name, &domID, true)),
			},
			{
				Config:             config("b"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// TestAccHosts_aliasSwitchOrphans records what the alternative to hosts does
// (docs/adr/0002-several-hosts.md): with one provider alias per host,
// pointing a resource at another alias makes the refresh look for it on the
// new host, where it is not; the plan creates it there (no replacement), and
// the object on the old host stays behind, in no state.
func TestAccHosts_aliasSwitchOrphans(t *testing.T) {
	uriB := testAccURIB(t)
	name := "tfacc-mh-alias"
	config := func(alias string) string {
		return renderConfig(`
provider "libvirt" {
  alias = "a"
  uri   = {{q .HostAURI}}
}

provider "libvirt" {
  alias = "b"
  uri   = {{q .HostBURI}}
}

resource "libvirt_pool" "pool" {
  provider = libvirt.{{.Alias}}
  name     = {{q .Name}}
  type     = "dir"
  target   = { path = "/var/tmp/{{.Name}}" }
}
`, map[string]string{"HostAURI": testAccURI(), "HostBURI": uriB, "Alias": alias, "Name": name})
	}
	t.Cleanup(func() {
		onHost(t, testAccURI(), func(l *libvirt.Libvirt) error {
			if p, err := l.StoragePoolLookupByName(name); err == nil {
				_ = l.StoragePoolDestroy(p)
				return l.StoragePoolUndefine(p)
			}
			return nil
		})
		os.RemoveAll("/var/tmp/" + name)
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config("a")},
			{
				Config: config("b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_pool.pool", plancheck.ResourceActionCreate)},
				},
				Check: func(*terraform.State) error {
					var onA bool
					onHost(t, testAccURI(), func(l *libvirt.Libvirt) error {
						_, err := l.StoragePoolLookupByName(name)
						onA = err == nil
						return nil
					})
					if !onA {
						return fmt.Errorf("pool %s is gone from host a: the alias switch did not leave it behind", name)
					}
					t.Logf("alias switch a -> b: a create planned on b; pool %s stays on host a, in no state", name)
					return nil
				},
			},
		},
	})
}
