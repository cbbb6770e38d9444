package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/kdomanski/iso9660"
)

func testAccCloudinitDiskConfig(dir, userData string) string {
	return testConfig(`
resource "libvirt_cloudinit_disk" "seed" {
  name      = "acc-seed"
{{- if .Dir}}
  directory = {{q .Dir}}
{{- end}}
  user_data = {{q .UserData}}
  meta_data = <<-EOT
    instance-id: acc-seed
    local-hostname: acc-seed
  EOT
  network_config = <<-EOT
    version: 2
    ethernets:
      eth0:
        dhcp4: true
  EOT
}
`, map[string]string{"Dir": dir, "UserData": userData})
}

// cloudinitFileMatchesState checks, independently of the provider's code, that
// the file at the state's path exists, hashes to the state's checksum, has the
// state's size and carries want as its user-data.
type cloudinitFileMatchesState struct {
	address      string
	wantUserData string
	lastPath     *string
}

func (c cloudinitFileMatchesState) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil {
		resp.Error = errors.New("no state")
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != c.address {
			continue
		}
		p, _ := r.AttributeValues["path"].(string)
		sum, _ := r.AttributeValues["checksum"].(string)
		size, err := strconv.ParseInt(fmt.Sprint(r.AttributeValues["size"]), 10, 64)
		if err != nil {
			resp.Error = fmt.Errorf("size %v: %w", r.AttributeValues["size"], err)
			return
		}
		data, err := os.ReadFile(p)
		if err != nil {
			resp.Error = fmt.Errorf("reading ISO at state path: %w", err)
			return
		}
		h := sha256.Sum256(data)
		if got := hex.EncodeToString(h[:]); got != sum {
			resp.Error = fmt.Errorf("file %s hashes to %s, state checksum is %s", p, got, sum)
			return
		}
		if size != int64(len(data)) {
			resp.Error = fmt.Errorf("file %s has %d bytes, state size is %v", p, len(data), size)
			return
		}
		if !strings.HasPrefix(filepath.Base(p), "acc-seed-"+sum[:16]) {
			resp.Error = fmt.Errorf("file name %s is not <name>-<checksum prefix>", filepath.Base(p))
			return
		}
		if got := isoUserData(data); got != c.wantUserData {
			resp.Error = fmt.Errorf("user-data in ISO = %q, want %q", got, c.wantUserData)
			return
		}
		if c.lastPath != nil {
			*c.lastPath = p
		}
		return
	}
	resp.Error = fmt.Errorf("%s not in state", c.address)
}

func isoUserData(img []byte) string {
	image, err := iso9660.OpenImage(strings.NewReader(string(img)))
	if err != nil {
		return "open: " + err.Error()
	}
	root, err := image.RootDir()
	if err != nil {
		return "root: " + err.Error()
	}
	children, err := root.GetChildren()
	if err != nil {
		return "children: " + err.Error()
	}
	for _, c := range children {
		if c.Name() == "user-data" {
			b, _ := io.ReadAll(c.Reader())
			return string(b)
		}
	}
	return "<no user-data>"
}

func TestAccCloudinitDisk_lifecycle(t *testing.T) {
	dir := t.TempDir()
	const address = "libvirt_cloudinit_disk.seed"
	userData1 := "#cloud-config\nhostname: acc-one\n"
	userData2 := "#cloud-config\nhostname: acc-two\n"
	var firstPath, secondPath string
	samePath := statecheck.CompareValue(compare.ValuesSame())
	checksums := statecheck.CompareValue(compare.ValuesDiffer())

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			entries, err := os.ReadDir(dir)
			if err != nil {
				return err
			}
			if len(entries) != 0 {
				return fmt.Errorf("destroy left %d entries in %s (first %s)", len(entries), dir, entries[0].Name())
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: testAccCloudinitDiskConfig(dir, userData1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(address, plancheck.ResourceActionCreate),
						// Known at plan time, so a volume built from it plans fully.
						plancheck.ExpectKnownValue(address, tfjsonpath.New("path"),
							knownvalue.StringRegexp(regexp.MustCompile("^"+regexp.QuoteMeta(dir)+`/acc-seed-[0-9a-f]{16}\.iso$`))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("checksum"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("size"), knownvalue.Int64Func(func(v int64) error {
						if v < 20*2048 || v%2048 != 0 {
							return fmt.Errorf("size %d is not a whole number of 2048-byte sectors past the volume descriptors", v)
						}
						return nil
					})),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("directory"), knownvalue.StringExact(dir)),
					statecheck.ExpectSensitiveValue(address, tfjsonpath.New("user_data")),
					cloudinitFileMatchesState{address: address, wantUserData: userData1, lastPath: &firstPath},
					samePath.AddStateValue(address, tfjsonpath.New("path")),
					checksums.AddStateValue(address, tfjsonpath.New("checksum")),
				},
			},
			{
				// The host lost the file (reboot, cleaned folder): refresh writes
				// it again, identical, and nothing is planned.
				PreConfig: func() {
					if err := os.Remove(firstPath); err != nil {
						t.Fatalf("removing ISO out of band: %v", err)
					}
				},
				Config: testAccCloudinitDiskConfig(dir, userData1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					cloudinitFileMatchesState{address: address, wantUserData: userData1},
					samePath.AddStateValue(address, tfjsonpath.New("path")),
				},
			},
			{
				Config: testAccCloudinitDiskConfig(dir, userData2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(address, plancheck.ResourceActionReplace),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					cloudinitFileMatchesState{address: address, wantUserData: userData2, lastPath: &secondPath},
					checksums.AddStateValue(address, tfjsonpath.New("checksum")),
				},
				Check: func(*terraform.State) error {
					if secondPath == firstPath {
						return fmt.Errorf("path did not change with the content: %s", secondPath)
					}
					if _, err := os.Stat(firstPath); !errors.Is(err, os.ErrNotExist) {
						return fmt.Errorf("replaced ISO %s still exists (stat: %v)", firstPath, err)
					}
					return nil
				},
			},
		},
	})
}

// TestAccCloudinitDisk_defaultDirectory uses the persistent default location.
func TestAccCloudinitDisk_defaultDirectory(t *testing.T) {
	const address = "libvirt_cloudinit_disk.seed"
	want := "/var/lib/libvirt/images/cloudinit"
	if os.Geteuid() != 0 {
		base := os.Getenv("XDG_DATA_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".local", "share")
		}
		want = filepath.Join(base, "terraform-provider-libvirt", "cloudinit")
	}
	userData := "#cloud-config\nhostname: acc-default-dir\n"
	var isoPath string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if isoPath == "" {
				return errors.New("no path recorded")
			}
			if _, err := os.Stat(isoPath); !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("destroy left %s (stat: %v)", isoPath, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: testAccCloudinitDiskConfig("", userData),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(address, tfjsonpath.New("directory"), knownvalue.StringExact(want)),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("path"),
						knownvalue.StringRegexp(regexp.MustCompile("^"+regexp.QuoteMeta(want)+`/acc-seed-[0-9a-f]{16}\.iso$`))),
					cloudinitFileMatchesState{address: address, wantUserData: userData, lastPath: &isoPath},
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// TestAccCloudinitDisk_uploadedByVolume is the documented use: a libvirt_volume
// uploads the ISO from path; an input change replaces both.
func TestAccCloudinitDisk_uploadedByVolume(t *testing.T) {
	dir := t.TempDir()
	volName := fmt.Sprintf("tfacc-seed-%d.iso", time.Now().UnixNano()%1000000)
	config := func(userData string) string {
		return testAccCloudinitDiskConfig(dir, userData) + renderConfig(`
resource "libvirt_volume" "seed" {
  name   = {{q .Name}}
  pool   = {{q .Pool}}
  create = { content = { url = libvirt_cloudinit_disk.seed.path } }
}
`, map[string]string{"Name": volName, "Pool": testAccPool()})
	}
	// The volume's file (on this host) holds exactly the ISO the disk wrote.
	volumeHoldsISO := func(s *terraform.State) error {
		disk := s.RootModule().Resources["libvirt_cloudinit_disk.seed"].Primary.Attributes
		vol := s.RootModule().Resources["libvirt_volume.seed"].Primary.Attributes
		data, err := os.ReadFile(vol["path"])
		if err != nil {
			return fmt.Errorf("reading volume file: %w", err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != disk["checksum"] {
			return fmt.Errorf("volume %s holds %d bytes with sha256 %s; the cloud-init ISO is %s bytes with %s",
				vol["path"], len(data), got, disk["size"], disk["checksum"])
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("#cloud-config\nhostname: vol-one\n"),
				Check:  volumeHoldsISO,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: config("#cloud-config\nhostname: vol-two\n"),
				Check:  volumeHoldsISO,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_cloudinit_disk.seed", plancheck.ResourceActionReplace),
						plancheck.ExpectResourceAction("libvirt_volume.seed", plancheck.ResourceActionReplace),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}
