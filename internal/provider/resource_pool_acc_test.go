package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// testAccStorageConn connects to the test libvirtd for checks made outside
// OpenTofu (volumes created behind its back, lookups after failed steps).
// testAccStorageConn connects to the test libvirtd; outside acceptance runs
// the test is skipped first (the unit layer must not touch libvirtd, which
// libvirtconn's integration tests restart in parallel).
func testAccStorageConn(t *testing.T) *libvirt.Libvirt {
	t.Helper()
	testAccPreCheck(t)
	c, err := libvirtconn.New(testAccURI())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	l, err := c.Libvirt(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func testAccPoolConfig(name, dir string, autostart, deleteVolumes bool) string {
	return testConfig(`
resource "libvirt_pool" "test" {
  name           = {{q .Name}}
  type           = "dir"
  target         = { path = {{q .Dir}} }
  autostart      = {{.Autostart}}
  delete_volumes = {{.DeleteVolumes}}
}
`, map[string]any{"Name": name, "Dir": dir, "Autostart": autostart, "DeleteVolumes": deleteVolumes})
}

func TestAccPool_dir(t *testing.T) {
	name := "tfacc-pool-dir"
	dir := filepath.Join(t.TempDir(), "pool") // missing: create must build it
	l := testAccStorageConn(t)
	emptyPlan := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if _, err := l.StoragePoolLookupByName(name); !libvirtconn.IsNotFound(err) {
				return fmt.Errorf("pool %s still exists after destroy (lookup error: %v)", name, err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				return fmt.Errorf("pool directory %s still exists after destroy: %v", dir, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: testAccPoolConfig(name, dir, false, false),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_pool.test", tfjsonpath.New("id"), knownvalue.StringRegexp(uuidRegexp)),
					statecheck.ExpectKnownValue("libvirt_pool.test", tfjsonpath.New("uuid"), knownvalue.StringRegexp(uuidRegexp)),
					statecheck.ExpectKnownValue("libvirt_pool.test", tfjsonpath.New("target").AtMapKey("path"), knownvalue.StringExact(dir)),
					statecheck.ExpectKnownValue("libvirt_pool.test", tfjsonpath.New("capacity"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue("libvirt_pool.test", tfjsonpath.New("autostart"), knownvalue.Bool(false)),
				},
				Check: func(*terraform.State) error {
					st, err := os.Stat(dir)
					if err != nil || !st.IsDir() {
						return fmt.Errorf("create did not build the pool directory %s: %v", dir, err)
					}
					p, err := l.StoragePoolLookupByName(name)
					if err != nil {
						return err
					}
					if active, err := l.StoragePoolIsActive(p); err != nil || active != 1 {
						return fmt.Errorf("pool is not active after create (%d, %v)", active, err)
					}
					return nil
				},
				ConfigPlanChecks: emptyPlan,
			},
			{
				// autostart changes in place
				Config: testAccPoolConfig(name, dir, true, false),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_pool.test", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					p, err := l.StoragePoolLookupByName(name)
					if err != nil {
						return err
					}
					if a, err := l.StoragePoolGetAutostart(p); err != nil || a != 1 {
						return fmt.Errorf("autostart not set in libvirt (%d, %v)", a, err)
					}
					return nil
				},
			},
			{
				// import by name: the import plan must be a no-op
				ResourceName:    "libvirt_pool.test",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   name,
			},
			{
				// import by UUID
				ResourceName:            "libvirt_pool.test",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"allocation", "available", "capacity"},
			},
			{
				// a volume made outside OpenTofu: destroying the pool must refuse
				PreConfig: func() {
					p, err := l.StoragePoolLookupByName(name)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := l.StorageVolCreateXML(p, "<volume><name>outside.img</name><capacity>1048576</capacity></volume>", 0); err != nil {
						t.Fatal(err)
					}
				},
				Config:      testAccProviderConfig(),
				ExpectError: regexp.MustCompile(`still holds 1 volume\(s\): outside\.img`),
			},
			{
				Config: testAccPoolConfig(name, dir, true, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_pool.test", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// changing the target cannot be applied in place
				Config: testAccPoolConfig(name, dir+"2", true, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_pool.test", plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

func TestAccPool_failuresLeaveNothing(t *testing.T) {
	name := "tfacc-pool-fail"
	l := testAccStorageConn(t)
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: testAccProviderConfig() + `
resource "libvirt_pool" "test" {
  name   = "tfacc-pool-notype"
  target = { path = "/var/tmp/tfacc-pool-notype" }
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`The argument "type" is required`),
			},
			{
				// building the target fails (its parent is a file): the
				// definition must not stay behind
				Config:      testAccPoolConfig(name, filepath.Join(blocker, "pool"), false, false),
				ExpectError: regexp.MustCompile(`(?s)Cannot create pool.*building pool "tfacc-pool-fail"`),
			},
			{
				PreConfig: func() {
					if _, err := l.StoragePoolLookupByName(name); !libvirtconn.IsNotFound(err) {
						t.Fatalf("pool %s defined after a failed create (lookup error: %v)", name, err)
					}
				},
				Config: testAccProviderConfig(),
			},
		},
	})
}
