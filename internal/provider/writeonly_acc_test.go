package provider

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	// binary is what the TRACE log's first lines name ("OpenTofu version: ")
	binary string
}

func newWoRun(t *testing.T, config string) *woRun {
	dir := t.TempDir()
	r := &woRun{t: t, dir: dir, tofu: tofuWorkdir(t, dir, config), trace: filepath.Join(dir, "trace.log"), binary: "OpenTofu version: "}
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", r.trace)
	return r
}

// useTerraform115 makes r run Terraform 1.15 ($TERRAFORM_115) instead of
// OpenTofu, with the same provider build (dev_overrides for Terraform's
// registry address too).
func (r *woRun) useTerraform115() {
	r.t.Helper()
	tf := os.Getenv("TERRAFORM_115")
	if tf == "" {
		r.t.Fatal("TERRAFORM_115 is not set: source /var/cache/tfplv/env.sh (scripts/testenv.sh writes it)")
	}
	r.t.Setenv("TF_ACC_TERRAFORM_PATH", tf)
	r.binary = "Terraform version: 1.15."
	mustWrite(r.t, filepath.Join(r.dir, "cli.tfrc"),
		cliOverrides{BinDir: filepath.Join(r.dir, "bin"), Registries: []string{"registry.opentofu.org", "registry.terraform.io"}}.config())
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
	if !strings.Contains(trace, r.binary) {
		r.t.Fatalf("the trace log does not name %q: another binary ran", r.binary)
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
  shutdown_timeout  = "0s"
  restart_on_change = false
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
	return woDumpPasswdOf(t, name, "--inactive")
}

// woDumpPasswdOf is woDumpPasswd of the live XML ("") or the persistent one ("--inactive").
func woDumpPasswdOf(t *testing.T, name, which string) string {
	t.Helper()
	args := []string{"dumpxml", "--security-info", name}
	if which != "" {
		args = append(args, which)
	}
	xml := mustVirsh(t, args...)
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
	testAccWriteOnlyGraphicsPasswd(t, woPrefix+"gfx", false)
}

// TestAccWriteOnly_graphicsPasswdTerraform115 is the same with Terraform 1.15.
func TestAccWriteOnly_graphicsPasswdTerraform115(t *testing.T) {
	testAccWriteOnlyGraphicsPasswd(t, woPrefix+"gfx-tf", true)
}

func testAccWriteOnlyGraphicsPasswd(t *testing.T, name string, terraform bool) {
	testAccPreCheck(t)
	removeDomainLeftovers(t, name)
	t.Cleanup(func() { removeDomainLeftovers(t, name) })
	// VNC passwords have at most 8 characters
	first, second := "w1"+secretRandom(t)[:6], "w2"+secretRandom(t)[:6]

	t.Setenv("TF_VAR_vnc_passwd", first)
	r := newWoRun(t, woDomainConfig(name, 1))
	if terraform {
		r.useTerraform115()
	}
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

// woGuestName names the guest, its volumes and its files.
const woGuestName = woPrefix + "guest"

// woGuestConfig boots the test guest with a cloud-init seed built from
// user_data_wo, vendor_data_wo and network_config_wo, and writes an
// Ignition config and a Combustion script from content_wo: every write-only
// value from an ephemeral variable (a literal would stand in the saved plan's
// copy of the configuration). version is every _wo_version.
func woGuestConfig(guestDir, workDir string, version int) string {
	return woConfig(`
variable "user_data" {
  type      = string
  ephemeral = true
}
variable "vendor_data" {
  type      = string
  ephemeral = true
}
variable "network_config" {
  type      = string
  ephemeral = true
}
variable "ignition" {
  type      = string
  ephemeral = true
}
variable "combustion" {
  type      = string
  ephemeral = true
}

resource "libvirt_cloudinit_disk" "seed" {
  name      = {{q .Name}}
  directory = {{q .SeedDir}}
  meta_data = "instance-id: {{.Name}}\nlocal-hostname: {{.Name}}\n"

  user_data_wo              = var.user_data
  user_data_wo_version      = {{.Version}}
  vendor_data_wo            = var.vendor_data
  vendor_data_wo_version    = {{.Version}}
  network_config_wo         = var.network_config
  network_config_wo_version = {{.Version}}
}

resource "libvirt_ignition" "ign" {
  name               = {{q .Name}}
  directory          = {{q .FileDir}}
  content_wo         = var.ignition
  content_wo_version = {{.Version}}
}

resource "libvirt_combustion" "script" {
  name               = {{q .Name}}
  directory          = {{q .FileDir}}
  content_wo         = var.combustion
  content_wo_version = {{.Version}}
}

resource "libvirt_volume" "base" {
  name   = "{{.Name}}-base.qcow2"
  pool   = {{q .Pool}}
  create = { content = { url = "{{.GuestDir}}/root.qcow2" } }
  target = { format = { type = "qcow2" } }
}

resource "libvirt_volume" "root" {
  name          = "{{.Name}}-root.qcow2"
  pool          = {{q .Pool}}
  target        = { format = { type = "qcow2" } }
  backing_store = { path = libvirt_volume.base.path, format = { type = "qcow2" } }
}

resource "libvirt_volume" "seed" {
  name   = "{{.Name}}-seed.iso"
  pool   = {{q .Pool}}
  create = { content = { url = libvirt_cloudinit_disk.seed.path } }
}

resource "libvirt_domain" "guest" {
  name             = {{q .Name}}
  type             = {{q .Type}}
  memory           = 512
  memory_unit      = "MiB"
  vcpu             = 1
  running          = true
  shutdown_timeout = "0s"

  os = {
    type    = "hvm"
    kernel  = "{{.GuestDir}}/vmlinuz"
    initrd  = "{{.GuestDir}}/initrd.img"
    cmdline = "root=/dev/vda rw console=ttyS0 net.ifnames=0"
  }

  devices = {
    disks = [
      {
        source = { volume = { pool = libvirt_volume.root.pool, volume = libvirt_volume.root.name } }
        target = { dev = "vda", bus = "virtio" }
      },
      {
        device    = "cdrom"
        source    = { volume = { pool = libvirt_volume.seed.pool, volume = libvirt_volume.seed.name } }
        target    = { dev = "sda", bus = "scsi" }
        read_only = true
      },
    ]
    controllers = [{ type = "scsi", model = "virtio-scsi" }]
    serials     = [{ source = { file = { path = {{q .ConsoleLog}} } }, target = { port = 0 } }]
    consoles    = [{ target = { type = "serial", port = 0 } }]
    channels = [{
      source = { unix = {} }
      target = { virt_io = { name = "org.qemu.guest_agent.0" } }
    }]
  }
}

output "ignition_path" { value = libvirt_ignition.ign.path }
output "combustion_path" { value = libvirt_combustion.script.path }
output "seed_path" { value = libvirt_cloudinit_disk.seed.path }
`, map[string]any{"Name": woGuestName, "Pool": testAccPool(), "Type": testAccDomainType(), "GuestDir": guestDir,
		"SeedDir": filepath.Join(workDir, "cloudinit"), "FileDir": filepath.Join(workDir, "files"),
		"ConsoleLog": filepath.Join(workDir, "console.log"), "Version": version})
}

// woWaitGuestFile reads a file in the guest through the guest agent
// (guest-exec of cat) until it holds want.
func woWaitGuestFile(t *testing.T, file, want string, timeout time.Duration) {
	t.Helper()
	start := time.Now()
	last := ""
	for time.Since(start) < timeout {
		code, out, err := nwfilterGuestExec(t, woGuestName, "/bin/cat", file)
		if err == nil && code == 0 && strings.TrimSpace(out) == want {
			t.Logf("the guest agent reads %s from %s (waited %v)", want, file, time.Since(start).Round(time.Second))
			return
		}
		last = fmt.Sprintf("exit %d, output %q, error %v", code, out, err)
		time.Sleep(3 * time.Second)
	}
	t.Fatalf("%s in the guest never held %q within %v; last: %s", file, want, timeout, last)
}

// woPlanAction returns the actions a saved plan's JSON gives a resource.
func woPlanAction(t *testing.T, planJSON, address string) string {
	t.Helper()
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions []string `json:"actions"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(planJSON), &plan); err != nil {
		t.Fatalf("plan JSON: %v", err)
	}
	for _, rc := range plan.ResourceChanges {
		if rc.Address == address {
			return strings.Join(rc.Change.Actions, ",")
		}
	}
	return "absent"
}

// TestAccWriteOnly_firstBoot boots the test guest with a cloud-init seed
// built from write-only user data, vendor data and network config: the guest
// agent reads the files cloud-init wrote from the user data and the vendor
// data, while none of the five write-only values (the Ignition and
// Combustion contents among them) is in the state, a saved plan (tofu show
// -json) or the TRACE log. A new content_wo_version replaces the Ignition
// file with the new content; a lost file plans an update that writes it
// again from the configuration; a new user_data_wo_version replaces the seed
// and the volume uploaded from it, and leaves the domain as it is.
func TestAccWriteOnly_firstBoot(t *testing.T) {
	guestDir := e2eGuestDir(t)
	testAccPreCheck(t)
	volumes := []string{woGuestName + "-base.qcow2", woGuestName + "-root.qcow2", woGuestName + "-seed.iso"}
	removeDomainLeftovers(t, woGuestName)
	removeStorageLeftovers(t, volumes...)
	t.Cleanup(func() {
		removeDomainLeftovers(t, woGuestName)
		removeStorageLeftovers(t, volumes...)
	})
	// qemu runs as another user: the serial log's directory must be traversable
	work, err := os.MkdirTemp("/var/tmp", woGuestName+".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(filepath.Join(work, "console.log")); err == nil {
				t.Logf("guest console (last 3000 bytes):\n%s", tail(string(b), 3000))
			}
		}
	})

	userMark, vendorMark, netMark := woMarker(t, "user"), woMarker(t, "vendor"), woMarker(t, "net")
	ignMark, ignMark2, combMark := woMarker(t, "ign"), woMarker(t, "ign2"), woMarker(t, "comb")
	ignition := func(m string) string {
		return `{"ignition":{"version":"3.4.0"},"storage":{"files":[{"path":"/etc/` + m + `"}]}}`
	}
	t.Setenv("TF_VAR_user_data", "#cloud-config\nwrite_files:\n  - path: /var/tmp/tfwo-user-data\n    content: \""+userMark+"\\n\"\n")
	t.Setenv("TF_VAR_vendor_data", "#cloud-config\nbootcmd:\n  - [ sh, -c, \"echo "+vendorMark+" > /var/tmp/tfwo-vendor-data\" ]\n")
	t.Setenv("TF_VAR_network_config", "version: 2\nethernets: {}\n# "+netMark+"\n")
	t.Setenv("TF_VAR_ignition", ignition(ignMark))
	t.Setenv("TF_VAR_combustion", "#!/bin/sh\n# combustion: network\necho "+combMark+"\n")

	r := newWoRun(t, woGuestConfig(guestDir, work, 1))
	if _, code := r.savedPlanJSON(); code != 2 {
		t.Fatal("the first plan has no changes")
	}
	start := time.Now()
	r.run("apply", "-auto-approve", "saved.tfplan")
	t.Logf("apply done in %v", time.Since(start).Round(time.Second))
	woWaitGuestFile(t, "/var/tmp/tfwo-user-data", userMark, 8*time.Minute) // TCG on a shared host: minutes
	woWaitGuestFile(t, "/var/tmp/tfwo-vendor-data", vendorMark, time.Minute)
	if _, code := r.savedPlanJSON(); code != 0 {
		t.Fatal("the plan after apply is not empty")
	}
	ignPath, _ := r.tofu("output", "-raw", "ignition_path")
	combPath, _ := r.tofu("output", "-raw", "combustion_path")
	for file, want := range map[string]string{ignPath: ignition(ignMark), combPath: os.Getenv("TF_VAR_combustion")} {
		if got, err := os.ReadFile(file); err != nil || string(got) != want {
			t.Fatalf("%s does not hold the write-only content (error %v):\n%s", file, err, got)
		}
	}

	// a lost file from write-only content: refresh cannot write it from
	// state; the plan updates it in place and apply writes it from the configuration
	if err := os.Remove(combPath); err != nil {
		t.Fatal(err)
	}
	plan, code := r.savedPlanJSON()
	if code != 2 || woPlanAction(t, plan, "libvirt_combustion.script") != "update" {
		t.Fatalf("a lost Combustion file should plan an update (exit %d, action %s)", code, woPlanAction(t, plan, "libvirt_combustion.script"))
	}
	r.run("apply", "-auto-approve", "saved.tfplan")
	if got, err := os.ReadFile(combPath); err != nil || string(got) != os.Getenv("TF_VAR_combustion") {
		t.Fatalf("the lost Combustion file was not written again at %s (error %v)", combPath, err)
	}

	// new versions: the first-boot files are replaced (new paths, the
	// seed volume with them); the domain keeps its definition
	t.Setenv("TF_VAR_ignition", ignition(ignMark2))
	r.replace("content_wo_version = 1\n}\n\nresource \"libvirt_combustion\"", "content_wo_version = 2\n}\n\nresource \"libvirt_combustion\"")
	r.replace("user_data_wo_version      = 1", "user_data_wo_version      = 2")
	plan, code = r.savedPlanJSON()
	for address, want := range map[string]string{
		"libvirt_ignition.ign":        "delete,create",
		"libvirt_cloudinit_disk.seed": "delete,create",
		"libvirt_volume.seed":         "delete,create",
		"libvirt_combustion.script":   "absent",
		"libvirt_domain.guest":        "absent",
		"libvirt_volume.root":         "absent",
	} {
		got := woPlanAction(t, plan, address)
		if got == "no-op" {
			got = "absent"
		}
		if got != want && !(want == "delete,create" && got == "create,delete") {
			t.Errorf("after the version changes %s plans %s, want %s", address, got, want)
		}
	}
	if code != 2 || t.Failed() {
		t.FailNow()
	}
	r.run("apply", "-auto-approve", "saved.tfplan")
	newIgn, _ := r.tofu("output", "-raw", "ignition_path")
	if newIgn == ignPath {
		t.Fatalf("the Ignition file kept its path %s across a new content_wo_version", ignPath)
	}
	if got, err := os.ReadFile(newIgn); err != nil || string(got) != ignition(ignMark2) {
		t.Fatalf("%s does not hold the new write-only content (error %v)", newIgn, err)
	}
	if _, err := os.Stat(ignPath); !os.IsNotExist(err) {
		t.Fatalf("the replaced Ignition file %s is still there (%v)", ignPath, err)
	}
	if _, code := r.savedPlanJSON(); code != 0 {
		t.Fatal("the plan after the version changes is not empty")
	}
	r.run("destroy", "-auto-approve")
	r.checkAbsent(userMark, vendorMark, netMark, ignMark, ignMark2, combMark)
	if err := testCheckNoDomain(woGuestName); err != nil {
		t.Fatal(err)
	}
}

// TestAccWriteOnly_graphicsPasswdRunning: on a running domain a new
// passwd_wo_version is written to the persistent definition and the plan
// warns that the console takes it at the next boot; with restart_on_change
// the apply restarts the domain and the running console has it at once.
func TestAccWriteOnly_graphicsPasswdRunning(t *testing.T) {
	testAccPreCheck(t)
	name := woPrefix + "gfx-run"
	removeDomainLeftovers(t, name)
	t.Cleanup(func() { removeDomainLeftovers(t, name) })
	first, second, third := "r1"+secretRandom(t)[:6], "r2"+secretRandom(t)[:6], "r3"+secretRandom(t)[:6]
	t.Setenv("TF_VAR_vnc_passwd", first)
	r := newWoRun(t, strings.Replace(woDomainConfig(name, 1), "running     = false", "running     = true", 1))
	r.run("apply", "-auto-approve")
	if live := woDumpPasswdOf(t, name, ""); live != first {
		t.Fatalf("the running console's password is %q, want %q", live, first)
	}

	t.Setenv("TF_VAR_vnc_passwd", second)
	r.replace("passwd_wo_version  = 1", "passwd_wo_version  = 2")
	out, code := r.run("plan", "-detailed-exitcode", "-out=saved.tfplan")
	if code != 2 || !strings.Contains(strings.Join(strings.Fields(out), " "), "takes effect when it next boots") {
		t.Fatalf("a new version on a running domain should plan an update and warn about the next boot (exit %d):\n%s", code, out)
	}
	r.run("apply", "-auto-approve", "saved.tfplan")
	if persistent, live := woDumpPasswd(t, name), woDumpPasswdOf(t, name, ""); persistent != second || live != first {
		t.Fatalf("without a restart: persistent password %q (want %q), running %q (want %q)", persistent, second, live, first)
	}

	t.Setenv("TF_VAR_vnc_passwd", third)
	r.replace("passwd_wo_version  = 2", "passwd_wo_version  = 3")
	r.replace("restart_on_change = false", "restart_on_change = true")
	out, _ = r.run("plan", "-out=saved.tfplan")
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "will be restarted") {
		t.Fatalf("with restart_on_change the plan should say the domain restarts:\n%s", out)
	}
	r.run("apply", "-auto-approve", "saved.tfplan")
	if persistent, live := woDumpPasswd(t, name), woDumpPasswdOf(t, name, ""); persistent != third || live != third {
		t.Fatalf("with restart_on_change: persistent password %q, running %q, want %q for both", persistent, live, third)
	}
	if _, code := r.run("plan", "-detailed-exitcode"); code != 0 {
		t.Fatal("the plan after the restart is not empty")
	}
	r.run("destroy", "-auto-approve")
	r.checkAbsent(first, second, third)
}
