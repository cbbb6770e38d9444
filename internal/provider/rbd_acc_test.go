package provider

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
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

// The RBD tests need the single-node Ceph cluster of scripts/testenv-ceph.sh
// and its /var/cache/tfplv/env-ceph.sh (make test-rbd runs both); the second
// host is the one of scripts/testenv-host2.sh (env-host2.sh). Every libvirt
// object and RBD image they make is named tfacc-rbd*.

const rbdPrefix = "tfacc-rbd"

// rbdCeph is the test cluster as env-ceph.sh describes it.
type rbdCeph struct {
	monHost, monPort, pool, user, key string
}

// rbdPreCheck skips without Ceph (outside make test-rbd) and returns the cluster.
func rbdPreCheck(t *testing.T) rbdCeph {
	t.Helper()
	testAccPreCheck(t)
	c := rbdCeph{
		monHost: os.Getenv("LIBVIRT_TEST_CEPH_MON_HOST"), monPort: os.Getenv("LIBVIRT_TEST_CEPH_MON_PORT"),
		pool: os.Getenv("LIBVIRT_TEST_CEPH_POOL"), user: os.Getenv("LIBVIRT_TEST_CEPH_USER"), key: os.Getenv("LIBVIRT_TEST_CEPH_KEY"),
	}
	if c.key == "" || c.monHost == "" || c.pool == "" || c.user == "" {
		t.Skip("Ceph is not set up: run scripts/testenv-ceph.sh and source /var/cache/tfplv/env-ceph.sh (make test-rbd does both)")
	}
	rbdCheckNothingLeft(t, c)
	return c
}

// rbdURIB is the second host's URI, "" when it is not set up.
func rbdURIB() string { return os.Getenv("LIBVIRT_TEST_URI_B") }

// rbdCmd runs the rbd tool as the libvirt client (its key is in /etc/ceph).
func rbdCmd(c rbdCeph, args ...string) ([]byte, error) {
	out, err := exec.Command("rbd", append([]string{"--id", c.user, "-p", c.pool}, args...)...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("rbd %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return out, nil
}

// rbdImages lists the test's images in the Ceph pool.
func rbdImages(c rbdCeph) ([]string, error) {
	out, err := rbdCmd(c, "ls")
	if err != nil {
		return nil, err
	}
	var ours []string
	for _, n := range strings.Fields(string(out)) {
		if strings.HasPrefix(n, rbdPrefix) {
			ours = append(ours, n)
		}
	}
	return ours, nil
}

// rbdLeftovers names what a test of this file left: RBD images, and on each
// host pools, secrets, domains (a transient copy domain too) and staging
// volumes named tfacc-rbd*.
func rbdLeftovers(c rbdCeph) []string {
	var left []string
	images, err := rbdImages(c)
	if err != nil {
		left = append(left, err.Error())
	}
	for _, i := range images {
		left = append(left, "RBD image "+i)
	}
	uris := []string{testAccURI()}
	if u := rbdURIB(); u != "" {
		uris = append(uris, u)
	}
	for _, uri := range uris {
		client, err := libvirtconn.New(uri)
		if err != nil {
			return append(left, err.Error())
		}
		err = client.Do(context.Background(), func(l *libvirt.Libvirt) error {
			doms, _, err := l.ConnectListAllDomains(1, 0)
			if err != nil {
				return err
			}
			for _, d := range doms {
				if strings.HasPrefix(d.Name, rbdPrefix) {
					left = append(left, uri+": domain "+d.Name)
				}
			}
			pools, _, err := l.ConnectListAllStoragePools(1, 0)
			if err != nil {
				return err
			}
			for _, p := range pools {
				if strings.HasPrefix(p.Name, rbdPrefix) {
					left = append(left, uri+": pool "+p.Name)
					continue
				}
				vols, _, err := l.StoragePoolListAllVolumes(p, 1, 0)
				if err != nil {
					continue // inactive pool
				}
				for _, v := range vols {
					if strings.HasPrefix(v.Name, rbdPrefix) {
						left = append(left, uri+": volume "+v.Key)
					}
				}
			}
			secrets, _, err := l.ConnectListAllSecrets(1, 0)
			if err != nil {
				return err
			}
			for _, s := range secrets {
				if strings.HasPrefix(s.UsageID, rbdPrefix) {
					left = append(left, uri+": secret "+s.UsageID)
				}
			}
			return nil
		})
		client.Close()
		if err != nil {
			left = append(left, uri+": "+err.Error())
		}
	}
	return left
}

// rbdCheckNothingLeft fails when an earlier run left something behind.
func rbdCheckNothingLeft(t *testing.T, c rbdCeph) {
	t.Helper()
	if left := rbdLeftovers(c); len(left) > 0 {
		t.Fatalf("left over from an earlier run (remove by hand): %s", strings.Join(left, "; "))
	}
}

// rbdCheckDestroy proves that destroy removed every RBD image and libvirt object.
func rbdCheckDestroy(c rbdCeph) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if left := rbdLeftovers(c); len(left) > 0 {
			return fmt.Errorf("left after destroy: %s", strings.Join(left, "; "))
		}
		return nil
	}
}

// rbdCheckOnly fails when the test objects are not exactly want (after a
// failed apply: the half-made volume, its staging volume and the transient
// domain must be gone).
func rbdCheckOnly(c rbdCeph, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		left := rbdLeftovers(c)
		if strings.Join(left, "\n") != strings.Join(want, "\n") {
			return fmt.Errorf("test objects are %q, want %q", left, want)
		}
		return nil
	}
}

// rbdContent writes size bytes of random data with zero runs between
// (so that the copy meets both) as raw and as qcow2; it returns both paths.
func rbdContent(t *testing.T, size int) (raw, qcow2 string) {
	t.Helper()
	dir := t.TempDir()
	data := make([]byte, size)
	rnd := rand.New(rand.NewSource(int64(size)))
	for off := 0; off < size; off += 4 << 20 {
		end := min(off+3<<20, size)
		rnd.Read(data[off:end]) // 3 MiB of data, 1 MiB of zeros
	}
	raw = filepath.Join(dir, "content.raw")
	qcow2 = filepath.Join(dir, "content.qcow2")
	if err := os.WriteFile(raw, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("qemu-img", "convert", "-f", "raw", "-O", "qcow2", raw, qcow2).CombinedOutput(); err != nil {
		t.Fatalf("qemu-img convert: %v: %s", err, out)
	}
	return raw, qcow2
}

// rbdCheckImage reads the RBD image back with `rbd export` and compares it
// with the raw content: equal bytes, then zeros up to size.
func rbdCheckImage(c rbdCeph, image, raw string, size int64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		out := filepath.Join(filepath.Dir(raw), image+".export")
		defer os.Remove(out)
		if _, err := rbdCmd(c, "export", image, out); err != nil {
			return err
		}
		got, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		want, err := os.ReadFile(raw)
		if err != nil {
			return err
		}
		if int64(len(got)) != size {
			return fmt.Errorf("RBD image %s is %d bytes, want %d", image, len(got), size)
		}
		if !bytes.Equal(got[:len(want)], want) {
			i := 0
			for i < len(want) && got[i] == want[i] {
				i++
			}
			return fmt.Errorf("RBD image %s differs from the content at byte %d", image, i)
		}
		if len(bytes.Trim(got[len(want):], "\x00")) != 0 {
			return fmt.Errorf("RBD image %s is not zero after the content's %d bytes", image, len(want))
		}
		return nil
	}
}

// rbdCheckSeenByHostB proves the image is shared storage: host B's rbd
// pool (made by the provider with host = "b") lists it after a refresh, with
// its size.
func rbdCheckSeenByHostB(pool, image string, size uint64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		client, err := libvirtconn.New(rbdURIB())
		if err != nil {
			return err
		}
		defer client.Close()
		return client.Do(context.Background(), func(l *libvirt.Libvirt) error {
			p, err := l.StoragePoolLookupByName(pool)
			if err != nil {
				return fmt.Errorf("host B has no pool %s: %w", pool, err)
			}
			if err := l.StoragePoolRefresh(p, 0); err != nil {
				return err
			}
			v, err := l.StorageVolLookupByName(p, image)
			if err != nil {
				return fmt.Errorf("host B's pool %s does not see %s: %w", pool, image, err)
			}
			_, capacity, _, err := l.StorageVolGetInfo(v)
			if err != nil || capacity != size {
				return fmt.Errorf("host B reads size %d for %s, want %d (%v)", capacity, image, size, err)
			}
			return nil
		})
	}
}

// rbdPoolConfig is the cephx key as a libvirt_secret (usage ceph) and an rbd
// pool using it, as resources ceph_HOST and rbd_HOST: host "a" is the
// provider's uri, any other the provider's host of that name.
func rbdPoolConfig(c rbdCeph, host string) string {
	return renderConfig(`
resource "libvirt_secret" "ceph_{{.Host}}" {
  {{if ne .Host "a"}}host = {{q .Host}}{{end}}
  usage        = { type = "ceph", name = "{{.Pool}} client.{{.User}}" }
  value_base64 = {{q .Key}}
  private      = "yes"
}

resource "libvirt_pool" "rbd_{{.Host}}" {
  {{if ne .Host "a"}}host = {{q .Host}}{{end}}
  name     = "{{.Pool}}"
  type     = "rbd"
  source = {
    name = {{q .CephPool}}
    host = [{ name = {{q .MonitorHost}}, port = {{q .MonitorPort}} }]
    auth = {
      type     = "ceph"
      username = {{q .User}}
      secret   = { uuid = libvirt_secret.ceph_{{.Host}}.uuid }
    }
  }
}
`, map[string]string{"Host": host, "Pool": rbdPrefix, "User": c.user, "Key": c.key, "CephPool": c.pool,
		"MonitorHost": c.monHost, "MonitorPort": c.monPort})
}

// rbdVolumeConfig is a volume of the rbd pool filled from url.
func rbdVolumeConfig(name, url, extra string) string {
	return renderConfig(`
resource "libvirt_volume" {{q .Name}} {
  name   = {{q .Name}}
  pool   = libvirt_pool.rbd_a.name
  create = { content = { url = {{q .URL}}, staging_pool = {{q .StagingPool}} } }
  {{.Extra}}
}
`, map[string]string{"Name": name, "URL": url, "StagingPool": testAccPool(), "Extra": extra})
}

// TestAccRBD_poolVolumeUpload: the cephx key in a libvirt_secret, an rbd pool
// on host A (and on host B when it is set up), and volumes filled from a
// qcow2 (converted to raw) and from raw content grown to a larger capacity.
// On host B (the provider's host "b"), the same secret and pool. The RBD
// images read back with `rbd export` hold the content; no staging volume or
// copy domain remains; the plan is empty after apply; the volume and pool
// import; host B's pool sees the image; destroy leaves nothing on either host.
func TestAccRBD_poolVolumeUpload(t *testing.T) {
	c := rbdPreCheck(t)
	const size = 40 << 20
	raw, qcow2 := rbdContent(t, size)
	hostB := rbdURIB() != ""
	provider, dependsOn := testAccProviderConfig(), ""
	if hostB {
		provider = testAccHostsProvider(rbdURIB()) + rbdPoolConfig(c, "b")
		// host B's pool lists host A's images (shared storage), and a pool
		// that holds volumes is not deleted: the volumes depend on it, so
		// that destroy removes them first
		dependsOn = "depends_on = [libvirt_pool.rbd_b]"
	} else {
		t.Log("LIBVIRT_TEST_URI_B is not set: the pool on the second host is not tested (make test-rbd sets it up)")
	}
	config := provider + rbdPoolConfig(c, "a") +
		rbdVolumeConfig(rbdPrefix+"-qcow2", qcow2, dependsOn) +
		rbdVolumeConfig(rbdPrefix+"-raw", raw, "capacity = 64\n  capacity_unit = \"MiB\"\n  "+dependsOn)
	var stateChecks []statecheck.StateCheck
	if hostB {
		stateChecks = append(stateChecks,
			statecheck.ExpectKnownValue("libvirt_pool.rbd_b", tfjsonpath.New("host"), knownvalue.StringExact("b")),
			statecheck.ExpectKnownValue("libvirt_pool.rbd_b", tfjsonpath.New("type"), knownvalue.StringExact("rbd")))
	}
	checks := []resource.TestCheckFunc{
		rbdCheckImage(c, rbdPrefix+"-qcow2", raw, size),
		rbdCheckImage(c, rbdPrefix+"-raw", raw, 64<<20),
	}
	want := []string{"RBD image " + rbdPrefix + "-qcow2", "RBD image " + rbdPrefix + "-raw", testAccURI() + ": pool " + rbdPrefix,
		testAccURI() + ": secret " + rbdPrefix + " client." + c.user}
	if hostB {
		checks = append(checks, rbdCheckSeenByHostB(rbdPrefix, rbdPrefix+"-qcow2", size))
		want = append(want, rbdURIB()+": pool "+rbdPrefix, rbdURIB()+": secret "+rbdPrefix+" client."+c.user)
	}
	// no staging volume, no copy domain
	checks = append(checks, rbdCheckOnly(c, want...))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             rbdCheckDestroy(c),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  resource.ComposeAggregateTestCheckFunc(checks...),
				ConfigStateChecks: append([]statecheck.StateCheck{
					statecheck.ExpectKnownValue("libvirt_pool.rbd_a", tfjsonpath.New("type"), knownvalue.StringExact("rbd")),
					statecheck.ExpectKnownValue("libvirt_pool.rbd_a", tfjsonpath.New("host"), knownvalue.Null()),
					statecheck.ExpectKnownValue("libvirt_secret.ceph_a", tfjsonpath.New("value_base64"), knownvalue.StringExact(c.key)),
					statecheck.ExpectKnownValue("libvirt_volume."+rbdPrefix+"-qcow2", tfjsonpath.New("path"),
						knownvalue.StringExact(c.pool+"/"+rbdPrefix+"-qcow2")),
					statecheck.ExpectKnownValue("libvirt_volume."+rbdPrefix+"-qcow2", tfjsonpath.New("capacity"), knownvalue.Int64Exact(size)),
					statecheck.ExpectKnownValue("libvirt_volume."+rbdPrefix+"-raw", tfjsonpath.New("capacity"), knownvalue.Int64Exact(64)),
					statecheck.ExpectKnownValue("libvirt_volume."+rbdPrefix+"-raw", tfjsonpath.New("capacity_unit"), knownvalue.StringExact("MiB")),
				}, stateChecks...),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				ResourceName:            "libvirt_volume." + rbdPrefix + "-qcow2",
				ImportState:             true,
				ImportStateId:           rbdPrefix + "/" + rbdPrefix + "-qcow2",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"create", "allocation", "allocation_unit", "content_source", "content_bytes"},
			},
			{
				ResourceName:      "libvirt_pool.rbd_a",
				ImportState:       true,
				ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"allocation", "allocation_unit", "available", "available_unit",
					"capacity", "capacity_unit", "refresh"},
			},
		},
	})
}

// TestAccRBD_badInput: content into an rbd pool without staging_pool, with a
// qcow2 target format, and staging_pool on a dir pool are refused at plan,
// naming the attribute; content larger than the configured capacity fails at
// apply after the upload, and so does an apply interrupted by its create
// timeout; nothing of the volume remains (no RBD image, no staging volume, no
// copy domain).
func TestAccRBD_badInput(t *testing.T) {
	c := rbdPreCheck(t)
	raw, qcow2 := rbdContent(t, 8<<20)
	big, _ := rbdContent(t, 256<<20)
	broken := filepath.Join(t.TempDir(), "broken.qcow2")
	if out, err := exec.Command("qemu-img", "create", "-f", "qcow2", "-u", "-b", "/nonexistent/"+rbdPrefix+"-missing.raw", "-F", "raw",
		broken, "8M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img create: %v: %s", err, out)
	}
	base := testAccProviderConfig() + rbdPoolConfig(c, "a")
	poolOnly := []string{testAccURI() + ": pool " + rbdPrefix, testAccURI() + ": secret " + rbdPrefix + " client." + c.user}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             rbdCheckDestroy(c),
		Steps: []resource.TestStep{
			{Config: base},
			{
				Config: base + renderConfig(`
resource "libvirt_volume" "v" {
  name   = "{{.Prefix}}-nostaging"
  pool   = libvirt_pool.rbd_a.name
  create = { content = { url = {{q .URL}} } }
}`, map[string]string{"Prefix": rbdPrefix, "URL": raw}),
				ExpectError: regexp.MustCompile(`(?s)Missing staging pool.*create\.content\.staging_pool\s+is\s+required\s+here.*rbd\s+pool`),
			},
			{
				Config:      base + rbdVolumeConfig(rbdPrefix+"-fmt", qcow2, `target = { format = { type = "qcow2" } }`),
				ExpectError: regexp.MustCompile(`(?s)Unsupported format in an rbd pool.*target\.format\.type\s+is\s+"qcow2".*images\s+are\s+raw`),
			},
			{
				Config: base + renderConfig(`
resource "libvirt_volume" "v" {
  name   = "{{.Prefix}}-dir"
  pool   = {{q .Pool}}
  create = { content = { url = {{q .URL}}, staging_pool = {{q .Pool}} } }
}`, map[string]string{"Prefix": rbdPrefix, "Pool": testAccPool(), "URL": raw}),
				ExpectError: regexp.MustCompile(`(?s)create\.content\.staging_pool\s+is\s+only\s+for\s+rbd\s+pools`),
			},
			{
				Config:      base + rbdVolumeConfig(rbdPrefix+"-small", qcow2, "capacity = 4\n  capacity_unit = \"MiB\""),
				ExpectError: regexp.MustCompile(`capacity\s+4194304\s+is\s+smaller\s+than\s+the\s+content's\s+size\s+8388608\s+bytes`),
			},
			{
				Config: base,
				Check:  rbdCheckOnly(c, poolOnly...),
			},
			{
				// QEMU cannot open the staged image (its backing file is
				// missing): the copy fails after the RBD image was created,
				// which is then deleted, as is the staging volume
				Config:      base + rbdVolumeConfig(rbdPrefix+"-nobacking", broken, ""),
				ExpectError: regexp.MustCompile(`(?s)Cannot create volume.*copying\s+the\s+content\s+into\s+RBD.*starting the transient copy domain`),
			},
			{
				Config: base,
				Check:  rbdCheckOnly(c, poolOnly...),
			},
			{
				// the create timeout ends the apply mid-way (in the upload, the
				// image's creation or the copy, as fast as the machine is): the
				// connection is cut, libvirt destroys a copy domain
				// (autodestroy), and the provider removes the staging volume and
				// the image on a new connection; when the deadline falls just
				// after the copy, the finished volume is recorded as tainted and
				// the next step's apply deletes it
				Config: base + rbdVolumeConfig(rbdPrefix+"-timeout", big, `timeouts = { create = "1s" }`),
				ExpectError: regexp.MustCompile(`(?s)Cannot create volume.*(context\s+deadline\s+exceeded|deleted\s+on\s+a\s+new\s+connection|interrupted)|` +
					`Cannot read volume after create.*recorded\s+as\s+tainted`),
			},
			{
				Config: base,
				Check:  rbdCheckOnly(c, poolOnly...),
			},
		},
	})
}

// TestAccRBD_uploadRate fills a local (dir) volume and an RBD volume from
// the same 256 MiB raw file and prints both rates (the RBD figure includes
// the upload into the staging volume and the block copy).
func TestAccRBD_uploadRate(t *testing.T) {
	c := rbdPreCheck(t)
	const size = 256 << 20
	raw, _ := rbdContent(t, size)
	base := testAccProviderConfig() + rbdPoolConfig(c, "a")
	local := renderConfig(`
resource "libvirt_volume" "local" {
  name   = "{{.Prefix}}-rate-local"
  pool   = {{q .Pool}}
  create = { content = { url = {{q .URL}} } }
}`, map[string]string{"Prefix": rbdPrefix, "Pool": testAccPool(), "URL": raw})
	var started time.Time
	rate := func(what string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			d := time.Since(started)
			t.Logf("FIGURE upload of %d MiB into %s: %.1fs, %.1f MiB/s (apply wall time)", size>>20, what, d.Seconds(), float64(size>>20)/d.Seconds())
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             rbdCheckDestroy(c),
		Steps: []resource.TestStep{
			{Config: base},
			{PreConfig: func() { started = time.Now() }, Config: base + local, Check: rate("the dir pool " + testAccPool())},
			{
				PreConfig: func() { started = time.Now() },
				Config:    base + local + rbdVolumeConfig(rbdPrefix+"-rate", raw, ""),
				Check:     resource.ComposeAggregateTestCheckFunc(rate("RBD"), rbdCheckImage(c, rbdPrefix+"-rate", raw, size)),
			},
		},
	})
}

// TestAccRBD_guestBoot boots the test guest from an RBD disk: its root image
// (qcow2, converted to raw) is copied into RBD by libvirt_volume, the domain's
// disk is a network disk of protocol rbd authenticating with the
// libvirt_secret, and the guest agent answers with the host name from the
// seed ISO (cloud-init ran, so the root file system on RBD works). Destroy
// leaves no RBD image and no libvirt object.
func TestAccRBD_guestBoot(t *testing.T) {
	c := rbdPreCheck(t)
	guestDir := e2eGuestDir(t)
	seedDir := t.TempDir()
	name := rbdPrefix + "-guest"
	hostname := "rbd-guest"
	config := testAccProviderConfig() + rbdPoolConfig(c, "a") +
		rbdVolumeConfig(name+"-root", guestDir+"/root.qcow2", "") +
		testGuestSeed{Name: name, Hostname: hostname, SeedDir: seedDir, Pool: testAccPool()}.config() +
		testGuest{
			Name: name, GuestDir: guestDir, Running: true, FixedNICNames: true, SCSI: true, Agent: true,
			Disks: []string{renderConfig(`{
        type   = "network"
        driver = { name = "qemu", type = "raw" }
        source = {
          network = {
            protocol = "rbd"
            name     = "{{.Pool}}/${libvirt_volume.{{.Name}}-root.name}"
            hosts    = [{ name = {{q .MonHost}}, port = {{q .MonPort}} }]
            auth = {
              username = {{q .User}}
              secret   = { type = "ceph", uuid = libvirt_secret.ceph_a.uuid }
            }
          }
        }
        target = { dev = "vda", bus = "virtio" }
      }`, map[string]string{"Pool": c.pool, "Name": name, "MonHost": c.monHost, "MonPort": c.monPort, "User": c.user}), testGuestSeedDisk},
		}.config()
	var started time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             rbdCheckDestroy(c),
		Steps: []resource.TestStep{{
			PreConfig: func() { started = time.Now() },
			Config:    config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("libvirt_volume."+name+"-root", tfjsonpath.New("path"), knownvalue.StringExact(c.pool+"/"+name+"-root")),
				statecheck.ExpectKnownValue("libvirt_domain.guest",
					tfjsonpath.New("devices").AtMapKey("disks").AtSliceIndex(0).AtMapKey("source").AtMapKey("network").AtMapKey("protocol"),
					knownvalue.StringExact("rbd")),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check: resource.ComposeAggregateTestCheckFunc(
				func(*terraform.State) error {
					t.Logf("FIGURE guest root image into RBD and domain started: %.1fs", time.Since(started).Seconds())
					return testAccWaitGuestHostname(t, name, hostname, 5*time.Minute)
				},
				func(*terraform.State) error {
					t.Logf("FIGURE apply to guest agent answering from the RBD root disk: %.1fs", time.Since(started).Seconds())
					return nil
				},
			),
		}},
	})
}
