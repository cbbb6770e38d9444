package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// ignitionFileMatches checks, independently of the provider's code, that the
// file at the state's path holds exactly want, with the state's size, the
// id of 0.9.7 (first 16 hex digits of the content's SHA-256) and the name
// <name>-<id><ext> in dir.
type ignitionFileMatches struct {
	address, dir, name, ext, want string
	lastPath                      *string
}

func (c ignitionFileMatches) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil {
		resp.Error = errors.New("no state")
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != c.address {
			continue
		}
		p, _ := r.AttributeValues["path"].(string)
		id, _ := r.AttributeValues["id"].(string)
		size := fmt.Sprint(r.AttributeValues["size"])
		data, err := os.ReadFile(p)
		if err != nil {
			resp.Error = fmt.Errorf("reading file at state path: %w", err)
			return
		}
		if string(data) != c.want {
			resp.Error = fmt.Errorf("file %s holds %q, want %q", p, data, c.want)
			return
		}
		sum := sha256.Sum256([]byte(c.want))
		wantID := hex.EncodeToString(sum[:])[:16]
		if id != wantID {
			resp.Error = fmt.Errorf("id %q, want %q", id, wantID)
			return
		}
		if size != fmt.Sprint(len(c.want)) {
			resp.Error = fmt.Errorf("size %s, file has %d bytes", size, len(c.want))
			return
		}
		if wantPath := filepath.Join(c.dir, c.name+"-"+wantID+c.ext); p != wantPath {
			resp.Error = fmt.Errorf("path %s, want %s", p, wantPath)
			return
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			resp.Error = fmt.Errorf("file %s mode %v (err %v), want 0600: it holds secrets", p, fi.Mode(), err)
			return
		}
		if c.lastPath != nil {
			*c.lastPath = p
		}
		return
	}
	resp.Error = fmt.Errorf("%s not in state", c.address)
}

// ignitionDirEmpty proves destroy (or a failed create) left nothing in dir.
func ignitionDirEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) != 0 {
		return fmt.Errorf("%d entries left in %s (first %s)", len(entries), dir, entries[0].Name())
	}
	return nil
}

// ignitionLifecycle runs the same lifecycle for both kinds: create, file lost
// and rewritten by refresh, content change replaces and removes the old
// file, invalid content rejected at plan time, destroy removes the file.
func ignitionLifecycle(t *testing.T, typ, ext, content1, content2, bad string, badError *regexp.Regexp) {
	dir, dir2 := t.TempDir(), t.TempDir()
	address := typ + ".x"
	name := "tfacc-node-" + strings.TrimPrefix(typ, "libvirt_")
	cfgIn := func(name, dir, content string) string {
		return testConfig(`
resource {{q .Type}} "x" {
  name      = {{q .Name}}
  directory = {{q .Dir}}
  content   = {{q .Content}}
}
`, map[string]string{"Type": typ, "Name": name, "Dir": dir, "Content": content})
	}
	cfg := func(content string) string { return cfgIn(name, dir, content) }
	var firstPath, secondPath string
	ids := statecheck.CompareValue(compare.ValuesDiffer())
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if err := ignitionDirEmpty(dir); err != nil {
				return err
			}
			return ignitionDirEmpty(dir2)
		},
		Steps: []resource.TestStep{
			{
				// Rejected at plan time, naming the attribute; nothing written.
				Config:      cfg(bad),
				ExpectError: badError,
			},
			{
				PreConfig: func() {
					if err := ignitionDirEmpty(dir); err != nil {
						t.Fatalf("rejected content left a file: %v", err)
					}
				},
				Config: cfg(content1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(address, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(address, tfjsonpath.New("path"),
							knownvalue.StringRegexp(regexp.MustCompile("^"+regexp.QuoteMeta(dir+"/"+name)+`-[0-9a-f]{16}`+regexp.QuoteMeta(ext)+"$"))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectSensitiveValue(address, tfjsonpath.New("content")),
					statecheck.ExpectKnownValue(address, tfjsonpath.New("directory"), knownvalue.StringExact(dir)),
					ignitionFileMatches{address: address, dir: dir, name: name, ext: ext, want: content1, lastPath: &firstPath},
					ids.AddStateValue(address, tfjsonpath.New("id")),
				},
			},
			{
				// The file was lost: refresh writes it again, nothing planned.
				PreConfig: func() {
					if err := os.Remove(firstPath); err != nil {
						t.Fatalf("removing file out of band: %v", err)
					}
				},
				Config: cfg(content1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					ignitionFileMatches{address: address, dir: dir, name: name, ext: ext, want: content1},
				},
			},
			{
				// Content is never updated in place: the file is named by it.
				Config: cfg(content2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					ignitionFileMatches{address: address, dir: dir, name: name, ext: ext, want: content2, lastPath: &secondPath},
					ids.AddStateValue(address, tfjsonpath.New("id")),
				},
				Check: func(*terraform.State) error {
					if _, err := os.Stat(firstPath); !errors.Is(err, os.ErrNotExist) {
						return fmt.Errorf("replaced file %s still exists (stat: %v)", firstPath, err)
					}
					entries, err := os.ReadDir(dir)
					if err != nil || len(entries) != 1 {
						return fmt.Errorf("want only %s in %s, got %v (err %v)", secondPath, dir, entries, err)
					}
					return nil
				},
			},
			{
				// name and directory are not updated in place either: the
				// file moves, and the old one is removed.
				Config: cfgIn(name+"-renamed", dir2, content2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					ignitionFileMatches{address: address, dir: dir2, name: name + "-renamed", ext: ext, want: content2},
				},
				Check: func(*terraform.State) error { return ignitionDirEmpty(dir) },
			},
		},
	})
}

func TestAccIgnition_lifecycle(t *testing.T) {
	ignitionLifecycle(t, "libvirt_ignition", ".ign",
		`{"ignition":{"version":"3.4.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 AAAAone"]}]}}`,
		`{"ignition":{"version":"3.4.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 AAAAtwo"]}]}}`,
		`{"ignition": {"version": 3}`,
		regexp.MustCompile(`(?s)Invalid Ignition config.*content must be an Ignition config.*not a\s+JSON\s+object`))
}

func TestAccCombustion_lifecycle(t *testing.T) {
	ignitionLifecycle(t, "libvirt_combustion", ".sh",
		"#!/bin/bash\n# combustion: network\necho 'root:one' | chpasswd\n",
		"#!/bin/bash\n# combustion: network\necho 'root:two' | chpasswd\nsystemctl enable sshd\n",
		"  \n",
		regexp.MustCompile(`(?s)Invalid Combustion script.*content must be a non-empty shell script; it is\s+empty`))
}

// TestAccIgnition_domainFwCfg proves the documented hand-over: a TCG domain
// whose fw_cfg sysinfo entries point at the ignition and combustion files is
// accepted by libvirt, holds the entries, and starts (QEMU opens both files
// at start-up, so a running domain proves it could read them).
func TestAccIgnition_domainFwCfg(t *testing.T) {
	const dom = "tfacc-node-fwcfg"
	removeDomainLeftovers(t, dom)
	dir := t.TempDir()
	// QEMU (libvirt-qemu) must reach files below the test's temporary
	// directory; libvirt labels the files themselves, not their parents.
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	ign := `{"ignition":{"version":"3.4.0"}}`
	comb := "#!/bin/bash\necho configured > /etc/issue.d/tfacc\n"
	cfg := testAccDomainSmallConfig(dom, true, false, `
  sys_info = [{
    fw_cfg = {
      entry = [
        { name = "opt/com.coreos/config", file = libvirt_ignition.fcos.path },
        { name = "opt/org.opensuse.combustion/script", file = libvirt_combustion.microos.path },
      ]
    }
  }]
`, "") + renderConfig(`
resource "libvirt_ignition" "fcos" {
  name      = "tfacc-node-fcos"
  directory = {{q .Dir}}
  content   = {{q .Ignition}}
}

resource "libvirt_combustion" "microos" {
  name      = "tfacc-node-microos"
  directory = {{q .Dir}}
  content   = {{q .Combustion}}
}
`, map[string]string{"Dir": dir, "Ignition": ign, "Combustion": comb})
	var ignPath, combPath string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(s *terraform.State) error {
			if err := testAccDomainCheckDestroyed(dom)(s); err != nil {
				return err
			}
			return ignitionDirEmpty(dir)
		},
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				ignitionFileMatches{address: "libvirt_ignition.fcos", dir: dir, name: "tfacc-node-fcos", ext: ".ign", want: ign},
				ignitionFileMatches{address: "libvirt_combustion.microos", dir: dir, name: "tfacc-node-microos", ext: ".sh", want: comb},
				statecheck.ExpectKnownValue("libvirt_domain.test", tfjsonpath.New("running"), knownvalue.Bool(true)),
			},
			Check: func(s *terraform.State) error {
				// Check runs before ConfigStateChecks: the paths come from state.
				ignPath = s.RootModule().Resources["libvirt_ignition.fcos"].Primary.Attributes["path"]
				combPath = s.RootModule().Resources["libvirt_combustion.microos"].Primary.Attributes["path"]
				if ignPath == "" || combPath == "" {
					return fmt.Errorf("paths not in state: %q %q", ignPath, combPath)
				}
				state, err := virsh("domstate", dom)
				if err != nil {
					return err
				}
				if state != "running" {
					return fmt.Errorf("domain %s is %q, want running", dom, state)
				}
				for _, args := range [][]string{{"dumpxml", dom}, {"dumpxml", "--inactive", dom}} {
					out, err := virsh(args...)
					if err != nil {
						return err
					}
					for _, want := range []string{
						`<sysinfo type='fwcfg'>`,
						fmt.Sprintf(`<entry name='opt/com.coreos/config' file='%s'/>`, ignPath),
						fmt.Sprintf(`<entry name='opt/org.opensuse.combustion/script' file='%s'/>`, combPath),
					} {
						if !strings.Contains(out, want) {
							return fmt.Errorf("virsh %s lacks %s:\n%s", strings.Join(args, " "), want, out)
						}
					}
				}
				// QEMU itself got the files: its command line names them.
				pid, err := os.ReadFile("/run/libvirt/qemu/" + dom + ".pid")
				if err != nil {
					return err
				}
				cmdline, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/cmdline")
				if err != nil {
					return err
				}
				args := strings.ReplaceAll(string(cmdline), "\x00", " ")
				for _, want := range []string{"name=opt/com.coreos/config,file=" + ignPath, "name=opt/org.opensuse.combustion/script,file=" + combPath} {
					if !strings.Contains(args, want) {
						return fmt.Errorf("QEMU command line lacks -fw_cfg %s: %s", want, args)
					}
				}
				return nil
			},
		}},
	})
}

// TestAccIgnition_stateFrom097 takes over a libvirt_ignition that
// dmacvicar/libvirt 0.9.7 created: its state (id = first 16 hex digits of the
// content's SHA-256, path in its temporary directory, no directory
// attribute) with its configuration unchanged. The plan is empty, the file
// stays where 0.9.7 put it (written again, since a reboot cleaned /tmp), and
// destroy removes it.
func TestAccIgnition_stateFrom097(t *testing.T) {
	testAccPreCheck(t)
	dir := t.TempDir()
	content := `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/hostname","contents":{"source":"data:,tfacc-node"}}]}}`
	sum := sha256.Sum256([]byte(content))
	id := hex.EncodeToString(sum[:])[:16]
	oldDir := filepath.Join(dir, "tmp", "terraform-provider-libvirt-ignition")
	oldPath := filepath.Join(oldDir, "ignition-"+id+".ign")
	tofu := tofuWorkdir(t, dir, renderConfig(`
resource "libvirt_ignition" "fcos" {
  name    = "fcos-ignition"
  content = {{q .}}
}
`, content))
	quoted := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	mustWrite(t, filepath.Join(dir, "work", "terraform.tfstate"), fmt.Sprintf(`{
  "version": 4, "terraform_version": "1.10.0", "serial": 3, "lineage": "8a0d5d2e-7c39-4c1b-a1d5-000000000097", "outputs": {},
  "resources": [{
    "mode": "managed", "type": "libvirt_ignition", "name": "fcos",
    "provider": "provider[\"registry.opentofu.org/virtxml/libvirt\"]",
    "instances": [{"schema_version": 0, "attributes": {
      "id": %q, "name": "fcos-ignition", "content": %s, "path": %q, "size": %d
    }, "sensitive_attributes": []}]
  }]
}`, id, quoted(content), oldPath, len(content)))
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan over 0.9.7's state is not empty (exit %d):\n%s", code, out)
	}
	got, err := os.ReadFile(oldPath)
	if err != nil || string(got) != content {
		t.Fatalf("refresh did not write the file again at 0.9.7's path %s: %q, %v", oldPath, got, err)
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply (refresh-only in effect) failed (exit %d):\n%s", code, out)
	}
	out, code := tofu("state", "show", "-no-color", "libvirt_ignition.fcos")
	// tofu aligns the = signs after the longest attribute name shown
	flat := strings.Join(strings.Fields(out), " ")
	if code != 0 || !strings.Contains(flat, fmt.Sprintf("directory = %q", oldDir)) || !strings.Contains(flat, fmt.Sprintf("path = %q", oldPath)) {
		t.Errorf("state after apply does not keep 0.9.7's file (exit %d):\n%s", code, out)
	}
	if out, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("destroy failed (exit %d):\n%s", code, out)
	}
	if err := ignitionDirEmpty(oldDir); err != nil {
		t.Errorf("destroy: %v", err)
	}
}

// TestAccIgnition_defaultDirectory uses the persistent default location.
func TestAccIgnition_defaultDirectory(t *testing.T) {
	want := "/var/lib/libvirt/images/ignition"
	if os.Geteuid() != 0 {
		base := os.Getenv("XDG_DATA_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".local", "share")
		}
		want = filepath.Join(base, "terraform-provider-libvirt", "ignition")
	}
	const address = "libvirt_ignition.x"
	content := `{"ignition":{"version":"3.4.0"},"tfacc":"default-dir"}`
	var filePath string
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if filePath == "" {
				return errors.New("no path recorded")
			}
			if _, err := os.Stat(filePath); !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("destroy left %s (stat: %v)", filePath, err)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: testConfig(`
resource "libvirt_ignition" "x" {
  name    = "tfacc-node-default"
  content = {{q .}}
}
`, content),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(address, tfjsonpath.New("directory"), knownvalue.StringExact(want)),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(address, tfjsonpath.New("directory"), knownvalue.StringExact(want)),
				ignitionFileMatches{address: address, dir: want, name: "tfacc-node-default", ext: ".ign", want: content, lastPath: &filePath},
			},
		}},
	})
}

// TestAccIgnition_contentUnknownAtPlan: content that only becomes known
// during apply (here from terraform_data) escapes the plan-time validator;
// create checks it again, fails naming content, and writes nothing.
func TestAccIgnition_contentUnknownAtPlan(t *testing.T) {
	dir := t.TempDir()
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             func(*terraform.State) error { return ignitionDirEmpty(dir) },
		Steps: []resource.TestStep{{
			Config: testConfig(`
resource "terraform_data" "rendered" {
  input = "ignition: {version: 3.4.0}"
}

resource "libvirt_ignition" "x" {
  name      = "tfacc-node-late"
  directory = {{q .}}
  content   = terraform_data.rendered.output
}
`, dir),
			ExpectError: regexp.MustCompile(`(?s)Invalid Ignition config.*content must be an Ignition config.*not a\s+JSON\s+object`),
			Check:       func(*terraform.State) error { return ignitionDirEmpty(dir) },
		}},
	})
	if err := ignitionDirEmpty(dir); err != nil {
		t.Errorf("failed create left a file: %v", err)
	}
}
