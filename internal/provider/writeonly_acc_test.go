package provider

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write-only attributes: the secrets of first-boot files and console
// passwords reach the guest or libvirt, and never the state, a saved plan or
// tofu's TRACE log. These tests drive the tofu binary itself (tofuWorkdir)
// so that those three files can be searched.

// woPrefix names every libvirt object these tests create.
const woPrefix = "tfwo-"

// woRun is a tofu runner in one working directory that keeps every output,
// with TF_LOG=trace written to a file.
type woRun struct {
	t       *testing.T
	dir     string
	tofu    func(args ...string) (string, int)
	outputs []string
	trace   string
}

func newWoRun(t *testing.T, config string) *woRun {
	dir := t.TempDir()
	r := &woRun{t: t, dir: dir, tofu: tofuWorkdir(t, dir, config), trace: filepath.Join(dir, "trace.log")}
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", r.trace)
	return r
}

// run runs tofu and fails the test on an error exit (plan's 2 is "changes").
func (r *woRun) run(args ...string) (string, int) {
	r.t.Helper()
	out, code := r.tofu(append([]string{args[0], "-input=false", "-no-color"}, args[1:]...)...)
	r.outputs = append(r.outputs, out)
	if code != 0 && !(args[0] == "plan" && code == 2) {
		r.t.Fatalf("tofu %s failed (exit %d):\n%s", strings.Join(args, " "), code, out)
	}
	return out, code
}

// setConfig replaces main.tf's configuration (after the provider blocks
// tofuWorkdir wrote, which old keeps).
func (r *woRun) replace(old, new string) {
	r.t.Helper()
	main := filepath.Join(r.dir, "work", "main.tf")
	b, err := os.ReadFile(main)
	if err != nil {
		r.t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		r.t.Fatalf("main.tf has no %q", old)
	}
	mustWrite(r.t, main, strings.Replace(string(b), old, new, 1))
}

// savedPlanJSON plans into a file and returns `tofu show -json` of it, and
// the plan's exit code (0: no changes, 2: changes).
func (r *woRun) savedPlanJSON() (string, int) {
	r.t.Helper()
	_, code := r.run("plan", "-detailed-exitcode", "-out=saved.tfplan")
	out, show := r.tofu("show", "-json", "-no-color", "saved.tfplan")
	if show != 0 {
		r.t.Fatalf("tofu show -json failed (exit %d):\n%s", show, out)
	}
	r.outputs = append(r.outputs, out)
	return out, code
}

// state returns the state file.
func (r *woRun) state() string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "work", "terraform.tfstate"))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// checkAbsent fails when a marker appears, as text, base64 or hex, in the
// state file, in any output kept (saved plans as JSON among them) or in the
// TRACE log, and checks that the log is a real TRACE log.
func (r *woRun) checkAbsent(markers ...string) {
	r.t.Helper()
	b, err := os.ReadFile(r.trace)
	if err != nil {
		r.t.Fatal(err)
	}
	trace := string(b)
	if len(trace) < 10000 || !strings.Contains(trace, "[TRACE]") || !strings.Contains(trace, "ApplyResourceChange") {
		r.t.Fatalf("the trace log (%d bytes) has no [TRACE] line or no ApplyResourceChange: TF_LOG did not reach tofu", len(trace))
	}
	files := map[string]string{"state file": r.state(), "TRACE log": trace}
	if b, err := os.ReadFile(filepath.Join(r.dir, "work", "terraform.tfstate.backup")); err == nil {
		files["state backup"] = string(b)
	}
	for i, out := range r.outputs {
		files["tofu output "+string(rune('A'+i%26))+string(rune('0'+i/26))] = out
	}
	for _, m := range markers {
		for _, form := range []string{m, base64.StdEncoding.EncodeToString([]byte(m)), hex.EncodeToString([]byte(m))} {
			for name, content := range files {
				if strings.Contains(content, form) {
					r.t.Errorf("%s contains the write-only value %q (form %q)", name, m, form)
				}
			}
		}
	}
	r.t.Logf("searched the state, %d tofu outputs and a %d-byte TRACE log for %d markers", len(r.outputs), len(trace), len(markers))
}

// woMarker is a value no configuration or log holds by chance.
func woMarker(t *testing.T, what string) string {
	return "tfwo-" + what + "-" + secretRandom(t)
}

// woConfig is testConfig without the provider block, which tofuWorkdir
// writes itself.
func woConfig(tmpl string, data any) string {
	return strings.TrimPrefix(testConfig(tmpl, data), testAccProviderConfig())
}

// woDomainConfig is a stopped domain with one VNC console whose password is
// write-only (passwd_wo with its version), from an ephemeral variable: a
// literal would stand in the saved plan's copy of the configuration
// (`tofu show -json`: configuration.*.expressions), as any literal does.
func woDomainConfig(name string, version int) string {
	return woConfig(`
variable "vnc_passwd" {
  type      = string
  ephemeral = true
}

resource "libvirt_domain" "gfx" {
  name        = {{q .Name}}
  type        = {{q .Type}}
  memory      = 64
  memory_unit = "MiB"
  vcpu        = 1
  running     = false
  os          = { type = "hvm" }
  devices = {
    graphics = [{
      vnc = {
        listen             = "127.0.0.1"
        auto_port          = true
        passwd_wo          = var.vnc_passwd
        passwd_wo_version  = {{.Version}}
      }
    }]
  }
}
`, map[string]any{"Name": name, "Type": testAccDomainType(), "Version": version})
}

// woDumpPasswd returns the VNC password in the domain's persistent XML,
// read with the security information (libvirt leaves it out otherwise).
func woDumpPasswd(t *testing.T, name string) string {
	t.Helper()
	xml := mustVirsh(t, "dumpxml", "--inactive", "--security-info", name)
	const attr = "passwd='"
	i := strings.Index(xml, attr)
	if i < 0 {
		return ""
	}
	rest := xml[i+len(attr):]
	return rest[:strings.IndexByte(rest, '\'')]
}

// TestAccWriteOnly_graphicsPasswd: a VNC password set through passwd_wo is
// in the domain's XML and in no state, saved plan or TRACE log; a new value
// alone plans nothing, a new version writes it in place.
func TestAccWriteOnly_graphicsPasswd(t *testing.T) {
	testAccPreCheck(t)
	name := woPrefix + "gfx"
	removeDomainLeftovers(t, name)
	t.Cleanup(func() { removeDomainLeftovers(t, name) })
	// VNC passwords have at most 8 characters
	first, second := "w1"+secretRandom(t)[:6], "w2"+secretRandom(t)[:6]

	t.Setenv("TF_VAR_vnc_passwd", first)
	r := newWoRun(t, woDomainConfig(name, 1))
	if _, code := r.savedPlanJSON(); code != 2 {
		t.Fatalf("the first plan has no changes (exit %d)", code)
	}
	r.run("apply", "-auto-approve", "saved.tfplan")
	if got := woDumpPasswd(t, name); got != first {
		t.Fatalf("the domain's VNC password is %q, want the write-only value %q", got, first)
	}
	if _, code := r.savedPlanJSON(); code != 0 {
		t.Fatal("the plan after apply is not empty")
	}

	// a new value without a new version: nothing to compare with, no change
	t.Setenv("TF_VAR_vnc_passwd", second)
	if _, code := r.savedPlanJSON(); code != 0 {
		t.Fatal("a new passwd_wo alone planned a change")
	}
	// a new version: an in-place update that writes the new password
	r.replace("passwd_wo_version  = 1", "passwd_wo_version  = 2")
	plan, code := r.savedPlanJSON()
	if code != 2 || !strings.Contains(plan, `"update"`) || strings.Contains(plan, `"delete"`) {
		t.Fatalf("a new passwd_wo_version should plan an in-place update (exit %d):\n%s", code, plan)
	}
	r.run("apply", "-auto-approve", "saved.tfplan")
	if got := woDumpPasswd(t, name); got != second {
		t.Fatalf("after the version change the VNC password is %q, want %q", got, second)
	}
	if _, code := r.savedPlanJSON(); code != 0 {
		t.Fatal("the plan after the update is not empty")
	}
	r.checkAbsent(first, second)
	r.run("destroy", "-auto-approve")
	if err := testCheckNoDomain(name); err != nil {
		t.Fatal(err)
	}
}
