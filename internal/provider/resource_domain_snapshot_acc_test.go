package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// snapshotOverlayDir holds the overlay and memory files of external
// snapshots: outside the shared pool, so that no pool refresh picks them up
// as volumes backed by the tests' base volumes.
const snapshotOverlayDir = "/var/tmp/tfacc-snap-files"

// snapshotPreCheck is the acceptance precheck plus the overlay directory.
func snapshotPreCheck(t *testing.T) {
	t.Helper()
	testAccPreCheck(t)
	if err := os.MkdirAll(snapshotOverlayDir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// snapshotDo runs op on a fresh connection to the test libvirtd.
func snapshotDo(op func(*libvirt.Libvirt) error) error {
	c, err := libvirtconn.New(testAccURI())
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Do(context.Background(), op)
}

// snapshotDomainConfig is a qcow2 volume in the test pool and a domain using
// it as vda: through the pool (source.volume) or as a plain file
// (source.file, the volume's path). extra goes into the domain block.
func snapshotDomainConfig(name string, running, fileDisk bool, extra string) string {
	source := renderConfig(`{ volume = { pool = {{q .}}, volume = libvirt_volume.disk.name } }`, testAccPool())
	if fileDisk {
		source = `{ file = { file = libvirt_volume.disk.path } }`
	}
	return testConfig(`
resource "libvirt_volume" "disk" {
  name          = "{{.Name}}.qcow2"
  pool          = {{q .Pool}}
  capacity      = 64
  capacity_unit = "MiB"
  target        = { format = { type = "qcow2" } }
}

resource "libvirt_domain" "test" {
  name             = {{q .Name}}
  type             = {{q .Type}}
  memory           = 64
  memory_unit      = "MiB"
  vcpu             = 1
  running          = {{.Running}}
  shutdown_timeout = "0s"
  os               = { type = "hvm" }
  devices = {
    disks = [{
      device = "disk"
      driver = { name = "qemu", type = "qcow2" }
      source = {{.Source}}
      target = { dev = "vda", bus = "virtio" }
    }]
  }
{{.Extra}}
}
`, map[string]any{"Name": name, "Pool": testAccPool(), "Type": testAccDomainType(), "Running": running, "Source": source, "Extra": extra})
}

// snapshotIgnoreDisks is the lifecycle block the docs recommend for a
// domain that takes external snapshots.
const snapshotIgnoreDisks = `  lifecycle {
    ignore_changes = [devices]
  }`

// snapshotXML reads a snapshot's XML from libvirt.
func snapshotXML(domain, snap string) (*libvirtxml.DomainSnapshot, error) {
	var doc libvirtxml.DomainSnapshot
	err := snapshotDo(func(l *libvirt.Libvirt) error {
		dom, err := l.DomainLookupByName(domain)
		if err != nil {
			return err
		}
		s, err := l.DomainSnapshotLookupByName(dom, snap, 0)
		if err != nil {
			return err
		}
		x, err := l.DomainSnapshotGetXMLDesc(s, 0)
		if err != nil {
			return err
		}
		return doc.Unmarshal(x)
	})
	return &doc, err
}

// snapshotNames lists the snapshots libvirt holds for domain.
func snapshotNames(domain string) ([]string, error) {
	var names []string
	err := snapshotDo(func(l *libvirt.Libvirt) error {
		dom, err := l.DomainLookupByName(domain)
		if err != nil {
			return err
		}
		snaps, _, err := l.DomainListAllSnapshots(dom, 1, 0)
		if err != nil {
			return err
		}
		for _, s := range snaps {
			names = append(names, s.Name)
		}
		sort.Strings(names)
		return nil
	})
	return names, err
}

// snapshotCheckLibvirt checks the snapshot as libvirt holds it.
func snapshotCheckLibvirt(domain, snap string, check func(*libvirtxml.DomainSnapshot) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		doc, err := snapshotXML(domain, snap)
		if err != nil {
			return fmt.Errorf("snapshot %s/%s in libvirt: %w", domain, snap, err)
		}
		return check(doc)
	}
}

// snapshotCheckList checks the exact list of snapshots libvirt holds for domain.
func snapshotCheckList(domain string, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := snapshotNames(domain)
		if err != nil {
			return err
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			return fmt.Errorf("domain %s: libvirt holds snapshots %q, want %q", domain, got, want)
		}
		return nil
	}
}

// snapshotQcow2Tags lists the internal snapshots inside a qcow2 file
// (qemu-img snapshot -l, shared lock: the file may be in use).
func snapshotQcow2Tags(file string) ([]string, error) {
	out, err := exec.Command("qemu-img", "snapshot", "-l", "-U", file).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("qemu-img snapshot -l %s: %v: %s", file, err, out)
	}
	var tags []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] != "ID" && f[0] != "Snapshot" {
			tags = append(tags, f[1])
		}
	}
	sort.Strings(tags)
	return tags, nil
}

func snapshotCheckQcow2Tags(file string, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := snapshotQcow2Tags(file)
		if err != nil {
			return err
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			return fmt.Errorf("%s holds internal snapshots %q, want %q", file, got, want)
		}
		return nil
	}
}

// snapshotDomainDisk returns the persistent definition's vda source file
// (or pool/volume) and its backing file as libvirt reports them.
func snapshotDomainDisk(domain string, inactive bool) (source, backing string, err error) {
	err = snapshotDo(func(l *libvirt.Libvirt) error {
		dom, err := l.DomainLookupByName(domain)
		if err != nil {
			return err
		}
		var flags libvirt.DomainXMLFlags
		if inactive {
			flags = libvirt.DomainXMLInactive
		}
		x, err := l.DomainGetXMLDesc(dom, flags)
		if err != nil {
			return err
		}
		var d libvirtxml.Domain
		if err := d.Unmarshal(x); err != nil {
			return err
		}
		for _, disk := range d.Devices.Disks {
			if disk.Target == nil || disk.Target.Dev != "vda" || disk.Source == nil {
				continue
			}
			switch {
			case disk.Source.File != nil:
				source = disk.Source.File.File
			case disk.Source.Volume != nil:
				source = disk.Source.Volume.Pool + "/" + disk.Source.Volume.Volume
			}
			if disk.BackingStore != nil && disk.BackingStore.Source != nil && disk.BackingStore.Source.File != nil {
				backing = disk.BackingStore.Source.File.File
			}
			return nil
		}
		return errors.New("no disk vda")
	})
	return source, backing, err
}

// snapshotCheckDomainDisk checks where the domain's vda points (persistent definition).
func snapshotCheckDomainDisk(domain, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, _, err := snapshotDomainDisk(domain, true)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("domain %s: vda source is %q, want %q", domain, got, want)
		}
		return nil
	}
}

// snapshotCheckStarts starts the stopped domain and stops it again: its
// disks point at usable images.
func snapshotCheckStarts(domain string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		return snapshotDo(func(l *libvirt.Libvirt) error {
			dom, err := l.DomainLookupByName(domain)
			if err != nil {
				return err
			}
			if err := l.DomainCreate(dom); err != nil {
				return fmt.Errorf("domain %s does not start after the snapshot's delete: %w", domain, err)
			}
			return l.DomainDestroy(dom)
		})
	}
}

// snapshotCheckFile checks that a file exists (or not).
func snapshotCheckFile(file string, exists bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := os.Stat(file)
		switch {
		case exists && err != nil:
			return fmt.Errorf("%s: %v, want it to exist", file, err)
		case !exists && err == nil:
			return fmt.Errorf("%s exists, want it gone", file)
		}
		return nil
	}
}

// snapshotCheckDestroyed proves nothing is left: the domain is gone (and
// with it every snapshot's metadata), and so are the listed files.
func snapshotCheckDestroyed(domain string, files ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		err := snapshotDo(func(l *libvirt.Libvirt) error {
			_, err := l.DomainLookupByName(domain)
			return err
		})
		if !libvirtconn.IsNotFound(err) {
			return fmt.Errorf("domain %s still exists after destroy (lookup: %v)", domain, err)
		}
		for _, f := range files {
			if _, err := os.Stat(f); err == nil {
				return fmt.Errorf("%s is left after destroy", f)
			}
		}
		return nil
	}
}

// snapshotPoolPath is the pool's directory as libvirt reports it.
func snapshotPoolPath(t *testing.T) string {
	t.Helper()
	var dir string
	err := snapshotDo(func(l *libvirt.Libvirt) error {
		p, err := l.StoragePoolLookupByName(testAccPool())
		if err != nil {
			return err
		}
		x, err := l.StoragePoolGetXMLDesc(p, 0)
		if err != nil {
			return err
		}
		var doc libvirtxml.StoragePool
		if err := doc.Unmarshal(x); err != nil {
			return err
		}
		dir = doc.Target.Path
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAccDomainSnapshot_internal: an internal snapshot of a stopped domain
// with a qcow2 disk; description changes in place, other changes replace;
// import; deleting the resource removes the snapshot from the qcow2 image.
func TestAccDomainSnapshot_internal(t *testing.T) {
	name := "tfacc-snap-int"
	snapshotPreCheck(t)
	disk := filepath.Join(snapshotPoolPath(t), name+".qcow2")
	snap := func(snapName, description, extra string) string {
		return renderConfig(`
resource "libvirt_domain_snapshot" "test" {
  domain      = libvirt_domain.test.id
  name        = {{q .SnapName}}
  description = {{q .Description}}
{{.Extra}}
}
`, map[string]any{"SnapName": snapName, "Description": description, "Extra": extra})
	}
	base := snapshotDomainConfig(name, false, false, "")
	var created string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { snapshotPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             snapshotCheckDestroyed(name, disk),
		Steps: []resource.TestStep{
			{
				Config: base + snap("s1", "first", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.test", tfjsonpath.New("state"), knownvalue.StringExact("shutoff")),
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.test", tfjsonpath.New("parent"), knownvalue.StringExact("")),
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.test", tfjsonpath.New("memory").AtMapKey("snapshot"), knownvalue.StringExact("no")),
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.test",
						tfjsonpath.New("disks").AtMapKey("disks").AtSliceIndex(0).AtMapKey("snapshot"), knownvalue.StringExact("internal")),
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.test", tfjsonpath.New("creation_time"),
						knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`))),
					statecheck.CompareValuePairs("libvirt_domain_snapshot.test", tfjsonpath.New("domain"),
						"libvirt_domain.test", tfjsonpath.New("id"), compare.ValuesSame()),
				},
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name, "s1"),
					snapshotCheckLibvirt(name, "s1", func(d *libvirtxml.DomainSnapshot) error {
						if d.Description != "first" || d.State != "shutoff" {
							return fmt.Errorf("libvirt holds description %q state %q", d.Description, d.State)
						}
						return nil
					}),
					snapshotCheckQcow2Tags(disk, "s1"),
					resource.TestCheckResourceAttrWith("libvirt_domain_snapshot.test", "creation_time", func(v string) error {
						created = v
						return nil
					}),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// description: redefined in place, the snapshot (its creation time) stays
				Config: base + snap("s1", "second", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain_snapshot.test", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckLibvirt(name, "s1", func(d *libvirtxml.DomainSnapshot) error {
						if d.Description != "second" {
							return fmt.Errorf("libvirt holds description %q, want second", d.Description)
						}
						return nil
					}),
					resource.TestCheckResourceAttrWith("libvirt_domain_snapshot.test", "creation_time", func(v string) error {
						if v != created {
							return fmt.Errorf("creation_time %s, was %s: the snapshot was retaken", v, created)
						}
						return nil
					}),
					snapshotCheckQcow2Tags(disk, "s1"),
				),
			},
			{
				ResourceName:      "libvirt_domain_snapshot.test",
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return name + "/s1", nil }, // by domain name
				ImportStateVerify: true,
			},
			{
				// a create flag cannot change in place: replaced
				Config: base + snap("s1", "second", "  atomic = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain_snapshot.test", plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(snapshotCheckList(name, "s1"), snapshotCheckQcow2Tags(disk, "s1")),
			},
			{
				// spelling out what libvirt chose (memory and disk modes) plans nothing
				Config: base + snap("s1", "second", `  memory = { snapshot = "no" }
  disks  = { disks = [{ name = "vda", snapshot = "internal" }] }
  atomic = true`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain_snapshot.test", plancheck.ResourceActionNoop)},
				},
			},
			{
				// a new name is a new snapshot; the old one is deleted from the image
				Config: base + snap("s2", "second", "  atomic = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain_snapshot.test", plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(snapshotCheckList(name, "s2"), snapshotCheckQcow2Tags(disk, "s2")),
			},
			{
				// the resource's delete removes the snapshot from libvirt and the image
				Config: base,
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name),
					snapshotCheckQcow2Tags(disk),
					snapshotCheckStarts(name),
				),
			},
		},
	})
}

// snapshotExternalConfig is an external disk-only snapshot of vda into overlay.
func snapshotExternalConfig(overlay string) string {
	return renderConfig(`
resource "libvirt_domain_snapshot" "test" {
  domain    = libvirt_domain.test.id
  name      = "ext1"
  disk_only = true
  disks = {
    disks = [{
      name     = "vda"
      snapshot = "external"
      source   = { file = { file = {{q .Overlay}} } }
    }]
  }
}
`, map[string]any{"Overlay": overlay})
}

// TestAccDomainSnapshot_externalDiskOnly: an external disk-only snapshot of
// a stopped domain whose disk is a plain file. libvirt switches the disk to
// the overlay; the domain's plan then wants it back (reported: the plan is
// checked to say so) unless the domain ignores changes to its devices.
// Deleting the snapshot merges the overlay back (libvirt 9.0), the disk
// points at the original image again and the domain starts.
func TestAccDomainSnapshot_externalDiskOnly(t *testing.T) {
	name := "tfacc-snap-ext"
	snapshotPreCheck(t)
	disk := filepath.Join(snapshotPoolPath(t), name+".qcow2")
	overlay := filepath.Join(snapshotOverlayDir, name+".ext1.qcow2")
	_ = os.Remove(overlay)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { snapshotPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             snapshotCheckDestroyed(name, disk, overlay),
		Steps: []resource.TestStep{
			{
				// without ignore_changes the domain plans to point vda back at
				// the original image: the conflict the docs describe
				Config: snapshotDomainConfig(name, false, true, "") + snapshotExternalConfig(overlay),
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name, "ext1"),
					snapshotCheckFile(overlay, true),
					snapshotCheckDomainDisk(name, overlay),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_domain.test", plancheck.ResourceActionUpdate),
						// the update would point vda back at the original image, away from the overlay
						plancheck.ExpectKnownValue("libvirt_domain.test",
							tfjsonpath.New("devices").AtMapKey("disks").AtSliceIndex(0).AtMapKey("source").AtMapKey("file").AtMapKey("file"),
							knownvalue.StringExact(disk)),
						plancheck.ExpectResourceAction("libvirt_domain_snapshot.test", plancheck.ResourceActionNoop),
					},
				},
				ExpectNonEmptyPlan: true,
			},
			{
				Config: snapshotDomainConfig(name, false, true, snapshotIgnoreDisks) + snapshotExternalConfig(overlay),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.test", tfjsonpath.New("memory").AtMapKey("snapshot"), knownvalue.StringExact("no")),
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.test",
						tfjsonpath.New("disks").AtMapKey("disks").AtSliceIndex(0).AtMapKey("driver").AtMapKey("type"), knownvalue.StringExact("qcow2")),
				},
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckDomainDisk(name, overlay),
					func(*terraform.State) error {
						_, backing, err := snapshotDomainDisk(name, true)
						if err != nil {
							return err
						}
						if backing != "" && backing != disk {
							return fmt.Errorf("overlay's backing file is %q, want %q", backing, disk)
						}
						out, err := exec.Command("qemu-img", "info", "-U", "--output=json", overlay).CombinedOutput()
						if err != nil || !strings.Contains(string(out), `"backing-filename": "`+disk+`"`) {
							return fmt.Errorf("overlay %s is not backed by %s: %v %s", overlay, disk, err, out)
						}
						return nil
					},
					// libvirt 9.0 cannot revert to an external snapshot (documented)
					func(*terraform.State) error {
						err := snapshotRevert(name, "ext1")
						if err == nil || !strings.Contains(err.Error(), "external") {
							return fmt.Errorf("reverting to an external snapshot: %v, want libvirt's refusal", err)
						}
						return nil
					},
				),
			},
			{
				ResourceName:            "libvirt_domain_snapshot.test",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"disk_only"}, // a create flag libvirt does not record
			},
			{
				// deleting the snapshot (the domain stays): libvirt merges the
				// overlay into the image and points the disk back at it
				Config: snapshotDomainConfig(name, false, true, snapshotIgnoreDisks),
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name),
					snapshotCheckFile(overlay, false),
					snapshotCheckDomainDisk(name, disk),
					snapshotCheckStarts(name),
				),
			},
			{
				// and the domain's own plan is empty again without ignore_changes
				Config: snapshotDomainConfig(name, false, true, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// TestAccDomainSnapshot_externalVolumeDisk: the same snapshot of a domain
// whose disk is a pool volume (source.volume). libvirt 9.0 refuses to merge
// it back; the resource's delete then deletes the metadata only (warning),
// the domain keeps the overlay, which is backed by the volume, and starts.
func TestAccDomainSnapshot_externalVolumeDisk(t *testing.T) {
	name := "tfacc-snap-extvol"
	snapshotPreCheck(t)
	disk := filepath.Join(snapshotPoolPath(t), name+".qcow2")
	overlay := filepath.Join(snapshotOverlayDir, name+".ext1.qcow2")
	_ = os.Remove(overlay)
	t.Cleanup(func() { _ = os.Remove(overlay) })
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { snapshotPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeTestCheckFunc(
			snapshotCheckDestroyed(name, disk),
			// documented: the overlay outlives a metadata-only delete; the test removes it
			snapshotCheckFile(overlay, true),
		),
		Steps: []resource.TestStep{
			{
				Config: snapshotDomainConfig(name, false, false, snapshotIgnoreDisks) + snapshotExternalConfig(overlay),
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name, "ext1"),
					snapshotCheckDomainDisk(name, overlay),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config: snapshotDomainConfig(name, false, false, snapshotIgnoreDisks),
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name),
					snapshotCheckFile(overlay, true),
					snapshotCheckDomainDisk(name, overlay),
					snapshotCheckStarts(name),
				),
			},
		},
	})
}

// TestAccDomainSnapshot_runningMemory: snapshots of a running TCG domain
// (no OS needed) with its memory state: an internal one (the default for a
// running domain) and an external one (memory file plus disk overlay,
// live). Both are deleted by the resource; the domain keeps running.
func TestAccDomainSnapshot_runningMemory(t *testing.T) {
	name := "tfacc-snap-mem"
	snapshotPreCheck(t)
	disk := filepath.Join(snapshotPoolPath(t), name+".qcow2")
	memFile := filepath.Join(snapshotOverlayDir, name+".mem")
	overlay := filepath.Join(snapshotOverlayDir, name+".ext.qcow2")
	for _, f := range []string{memFile, overlay} {
		_ = os.Remove(f)
		t.Cleanup(func() { _ = os.Remove(f) })
	}
	internal := `
resource "libvirt_domain_snapshot" "internal" {
  domain      = libvirt_domain.test.id
  name        = "mem-int"
  description = "with memory"
}
`
	external := renderConfig(`
resource "libvirt_domain_snapshot" "external" {
  domain = libvirt_domain.test.id
  name   = "mem-ext"
  live   = true
  memory = { snapshot = "external", file = {{q .MemFile}} }
  disks = {
    disks = [{ name = "vda", snapshot = "external", source = { file = { file = {{q .Overlay}} } } }]
  }
}
`, map[string]any{"MemFile": memFile, "Overlay": overlay})
	checkRunning := func(*terraform.State) error {
		return snapshotDo(func(l *libvirt.Libvirt) error {
			dom, err := l.DomainLookupByName(name)
			if err != nil {
				return err
			}
			state, _, err := l.DomainGetState(dom, 0)
			if err != nil {
				return err
			}
			if libvirt.DomainState(state) != libvirt.DomainRunning {
				return fmt.Errorf("domain %s is in state %d, want running", name, state)
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { snapshotPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             snapshotCheckDestroyed(name, disk, overlay),
		Steps: []resource.TestStep{
			{
				Config: snapshotDomainConfig(name, true, true, snapshotIgnoreDisks) + internal,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.internal", tfjsonpath.New("state"), knownvalue.StringExact("running")),
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.internal", tfjsonpath.New("memory").AtMapKey("snapshot"), knownvalue.StringExact("internal")),
				},
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name, "mem-int"),
					snapshotCheckLibvirt(name, "mem-int", func(d *libvirtxml.DomainSnapshot) error {
						if d.State != "running" || d.Memory == nil || d.Memory.Snapshot != "internal" {
							return fmt.Errorf("libvirt holds state %q memory %+v, want a running snapshot with internal memory", d.State, d.Memory)
						}
						return nil
					}),
					// the VM state is inside the qcow2 image: a non-zero VM SIZE
					func(*terraform.State) error {
						out, err := exec.Command("qemu-img", "snapshot", "-l", "-U", disk).CombinedOutput()
						if err != nil || !strings.Contains(string(out), "mem-int") || regexp.MustCompile(`mem-int\s+0 B`).Match(out) {
							return fmt.Errorf("%s holds no memory state for mem-int: %v\n%s", disk, err, out)
						}
						return nil
					},
					checkRunning,
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName:      "libvirt_domain_snapshot.internal",
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				// the internal snapshot is deleted (the domain keeps running)
				Config: snapshotDomainConfig(name, true, true, snapshotIgnoreDisks),
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name),
					snapshotCheckQcow2Tags(disk),
					checkRunning,
				),
			},
			{
				Config: snapshotDomainConfig(name, true, true, snapshotIgnoreDisks) + external,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.external", tfjsonpath.New("state"), knownvalue.StringExact("running")),
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.external", tfjsonpath.New("memory").AtMapKey("file"), knownvalue.StringExact(memFile)),
				},
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name, "mem-ext"),
					snapshotCheckFile(memFile, true),
					snapshotCheckFile(overlay, true),
					func(*terraform.State) error {
						src, _, err := snapshotDomainDisk(name, false)
						if err != nil || src != overlay {
							return fmt.Errorf("running domain's vda is %q (%v), want the overlay %s", src, err, overlay)
						}
						return nil
					},
					checkRunning,
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName:            "libvirt_domain_snapshot.external",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"live"},
			},
			{
				// deleting the external snapshot of a running domain with a
				// file disk: libvirt commits the overlay into the image (block
				// commit), removes it, and the domain runs on the image again
				Config: snapshotDomainConfig(name, true, true, snapshotIgnoreDisks),
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name),
					checkRunning,
					snapshotCheckFile(overlay, false),
					// libvirt 9.0 leaves the memory file (documented; the delete warns)
					snapshotCheckFile(memFile, true),
					func(*terraform.State) error {
						src, _, err := snapshotDomainDisk(name, false)
						if err != nil || src != disk {
							return fmt.Errorf("running domain's vda is %q (%v), want the image %s", src, err, disk)
						}
						return nil
					},
					func(*terraform.State) error {
						src, _, err := snapshotDomainDisk(name, false)
						if err != nil {
							return err
						}
						if _, err := os.Stat(src); err != nil {
							return fmt.Errorf("running domain's vda %q: %v", src, err)
						}
						return nil
					},
				),
			},
		},
	})
}

// TestAccDomainSnapshot_domainWithSnapshotsDestroyed: a libvirt_domain that
// has real snapshots (internal, and an external one whose overlay the domain
// uses), taken outside the configuration, is destroyed cleanly: its delete
// removes the snapshots' metadata and the domain is gone.
func TestAccDomainSnapshot_domainWithSnapshotsDestroyed(t *testing.T) {
	name := "tfacc-snap-domdel"
	snapshotPreCheck(t)
	disk := filepath.Join(snapshotPoolPath(t), name+".qcow2")
	overlay := filepath.Join(snapshotOverlayDir, name+".oob.qcow2")
	_ = os.Remove(overlay)
	t.Cleanup(func() { _ = os.Remove(overlay) })
	takeSnapshots := func(*terraform.State) error {
		return snapshotDo(func(l *libvirt.Libvirt) error {
			dom, err := l.DomainLookupByName(name)
			if err != nil {
				return err
			}
			if _, err := l.DomainSnapshotCreateXML(dom, "<domainsnapshot><name>oob1</name></domainsnapshot>", 0); err != nil {
				return err
			}
			if _, err := l.DomainSnapshotCreateXML(dom, "<domainsnapshot><name>oob2</name></domainsnapshot>", 0); err != nil {
				return err
			}
			x := fmt.Sprintf(`<domainsnapshot><name>oob-ext</name><disks><disk name="vda" snapshot="external"><source file=%q/></disk></disks></domainsnapshot>`, overlay)
			_, err = l.DomainSnapshotCreateXML(dom, x, uint32(libvirt.DomainSnapshotCreateDiskOnly))
			return err
		})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { snapshotPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             snapshotCheckDestroyed(name, disk),
		Steps: []resource.TestStep{
			{
				Config: snapshotDomainConfig(name, false, true, snapshotIgnoreDisks),
				Check: resource.ComposeTestCheckFunc(
					takeSnapshots,
					snapshotCheckList(name, "oob-ext", "oob1", "oob2"),
					snapshotCheckQcow2Tags(disk, "oob1", "oob2"),
					snapshotCheckDomainDisk(name, overlay),
				),
			},
		},
	})
}

// TestAccDomainSnapshot_parallel: several snapshots of one domain in one
// apply (tofu creates and deletes them in parallel) all exist in libvirt,
// and are all deleted again.
func TestAccDomainSnapshot_parallel(t *testing.T) {
	name := "tfacc-snap-par"
	snapshotPreCheck(t)
	disk := filepath.Join(snapshotPoolPath(t), name+".qcow2")
	snaps := `
resource "libvirt_domain_snapshot" "many" {
  count  = 4
  domain = libvirt_domain.test.id
  name   = "p${count.index}"
}
`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { snapshotPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             snapshotCheckDestroyed(name, disk),
		Steps: []resource.TestStep{
			{
				Config: snapshotDomainConfig(name, false, false, "") + snaps,
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name, "p0", "p1", "p2", "p3"),
					snapshotCheckQcow2Tags(disk, "p0", "p1", "p2", "p3"),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// a snapshot deleted outside the configuration leaves the state
				// at refresh and is created again
				PreConfig: func() {
					if err := snapshotDo(func(l *libvirt.Libvirt) error {
						dom, err := l.DomainLookupByName(name)
						if err != nil {
							return err
						}
						s, err := l.DomainSnapshotLookupByName(dom, "p2", 0)
						if err != nil {
							return err
						}
						return l.DomainSnapshotDelete(s, 0)
					}); err != nil {
						t.Fatal(err)
					}
				},
				Config: snapshotDomainConfig(name, false, false, "") + snaps,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("libvirt_domain_snapshot.many[2]", plancheck.ResourceActionCreate),
						plancheck.ExpectResourceAction("libvirt_domain_snapshot.many[1]", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: snapshotCheckList(name, "p0", "p1", "p2", "p3"),
			},
			{
				Config: snapshotDomainConfig(name, false, false, ""),
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name),
					snapshotCheckQcow2Tags(disk),
				),
			},
		},
	})
}

// snapshotRevert reverts domain to snap as `virsh snapshot-revert` does.
func snapshotRevert(domain, snap string) error {
	return snapshotDo(func(l *libvirt.Libvirt) error {
		dom, err := l.DomainLookupByName(domain)
		if err != nil {
			return err
		}
		s, err := l.DomainSnapshotLookupByName(dom, snap, 0)
		if err != nil {
			return err
		}
		return l.DomainRevertToSnapshot(s, 0)
	})
}

// TestAccDomainSnapshot_revert: the revert the docs describe (virsh
// snapshot-revert, here through the same API call). A domain stopped out of
// band plans a start; reverted to a snapshot of the running domain it runs
// again, and neither the domain nor the snapshot plans anything.
func TestAccDomainSnapshot_revert(t *testing.T) {
	name := "tfacc-snap-rev"
	snapshotPreCheck(t)
	disk := filepath.Join(snapshotPoolPath(t), name+".qcow2")
	config := snapshotDomainConfig(name, true, true, "") + `
resource "libvirt_domain_snapshot" "test" {
  domain = libvirt_domain.test.id
  name   = "r1"
}
`
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { snapshotPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             snapshotCheckDestroyed(name, disk),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_domain_snapshot.test", tfjsonpath.New("state"), knownvalue.StringExact("running")),
				},
			},
			{
				// stopped out of band: the domain plans a start
				PreConfig: func() {
					if err := snapshotDo(func(l *libvirt.Libvirt) error {
						dom, err := l.DomainLookupByName(name)
						if err != nil {
							return err
						}
						return l.DomainDestroy(dom)
					}); err != nil {
						t.Fatal(err)
					}
				},
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// reverted to the running snapshot: running again, nothing to plan
				PreConfig: func() {
					if err := snapshotRevert(name, "r1"); err != nil {
						t.Fatal(err)
					}
				},
				Config:   config,
				PlanOnly: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("libvirt_domain.test", "running", "true"),
					snapshotCheckList(name, "r1"),
					func(*terraform.State) error {
						return snapshotDo(func(l *libvirt.Libvirt) error {
							dom, err := l.DomainLookupByName(name)
							if err != nil {
								return err
							}
							state, _, err := l.DomainGetState(dom, 0)
							if err == nil && libvirt.DomainState(state) != libvirt.DomainRunning {
								err = fmt.Errorf("domain %s in state %d after the revert, want running", name, state)
							}
							return err
						})
					},
				),
			},
		},
	})
}

// TestAccDomainSnapshot_createFails: a create libvirt refuses leaves
// nothing behind (no snapshot, no overlay, the disk unchanged), and a
// snapshot of the same name made outside the configuration is refused and
// left alone.
func TestAccDomainSnapshot_createFails(t *testing.T) {
	name := "tfacc-snap-fail"
	snapshotPreCheck(t)
	disk := filepath.Join(snapshotPoolPath(t), name+".qcow2")
	overlay := filepath.Join(snapshotOverlayDir, name+".q.qcow2")
	_ = os.Remove(overlay)
	t.Cleanup(func() { _ = os.Remove(overlay) })
	base := snapshotDomainConfig(name, true, true, snapshotIgnoreDisks)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { snapshotPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             snapshotCheckDestroyed(name, disk, overlay),
		Steps: []resource.TestStep{
			{
				Config: base,
				Check:  snapshotCheckList(name),
			},
			{
				// quiesce needs a guest agent this domain does not have
				Config: base + renderConfig(`
resource "libvirt_domain_snapshot" "test" {
  domain    = libvirt_domain.test.id
  name      = "q1"
  disk_only = true
  quiesce   = true
  disks     = { disks = [{ name = "vda", snapshot = "external", source = { file = { file = {{q .Overlay}} } } }] }
}
`, map[string]any{"Overlay": overlay}),
				ExpectError: regexp.MustCompile(`Cannot create snapshot(.|\n)*agent`),
			},
			{
				Config: base,
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name),
					snapshotCheckFile(overlay, false),
					func(*terraform.State) error {
						src, _, err := snapshotDomainDisk(name, false)
						if err != nil || src != disk {
							return fmt.Errorf("running domain's vda is %q (%v) after the failed create, want %s", src, err, disk)
						}
						return nil
					},
				),
			},
			{
				// a snapshot "taken" outside this configuration has the name: refused, kept
				PreConfig: func() {
					if err := snapshotDo(func(l *libvirt.Libvirt) error {
						dom, err := l.DomainLookupByName(name)
						if err != nil {
							return err
						}
						_, err = l.DomainSnapshotCreateXML(dom, "<domainsnapshot><name>taken</name><description>not ours</description></domainsnapshot>", 0)
						return err
					}); err != nil {
						t.Fatal(err)
					}
				},
				Config: base + `
resource "libvirt_domain_snapshot" "test" {
  domain = libvirt_domain.test.id
  name   = "taken"
}
`,
				ExpectError: regexp.MustCompile(`already has a snapshot named\s+"taken"`),
			},
			{
				Config: base,
				Check: resource.ComposeTestCheckFunc(
					snapshotCheckList(name, "taken"),
					snapshotCheckLibvirt(name, "taken", func(d *libvirtxml.DomainSnapshot) error {
						if d.Description != "not ours" {
							return fmt.Errorf("the existing snapshot was changed: description %q", d.Description)
						}
						return nil
					}),
				),
			},
		},
	})
}
