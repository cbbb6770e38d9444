//go:build migrate

package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The migration layer (make test-migrate): configurations written for
// dmacvicar/libvirt the way its own docs and examples write them are applied
// with the REAL old provider (the binaries in ../shared/peers/dmacvicar-libvirt,
// decompressed at run time), then moved the way a user moves them. Each case
// appends one row to the table in $MIGRATE_TABLE: configuration, old
// provider, first plan after the move, objects restarted or recreated by the
// apply after the move, the plan of a deliberate change, the case's time and
// result.

// peerBinaries is where the old provider's releases are kept, relative to
// this package (the shared folder next to the repository).
const peerBinaries = "../../../shared/peers/dmacvicar-libvirt"

// virtxmlBuild is this provider built once for the cases that run at the
// same time; the last case to finish removes it.
var virtxmlBuild struct {
	sync.Mutex
	dir   string
	users int
}

var migrateTableLock sync.Mutex

// virtxmlProvider builds this provider (once for the cases running at the
// same time); every case installs it into its own filesystem mirror, as
// scripts/install-local-provider.sh does for users.
func virtxmlProvider(t *testing.T) string {
	t.Helper()
	virtxmlBuild.Lock()
	defer virtxmlBuild.Unlock()
	if virtxmlBuild.dir == "" {
		dir, err := os.MkdirTemp("", "mig-provider-")
		if err != nil {
			t.Fatal(err)
		}
		build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(dir, "terraform-provider-libvirt"), ".")
		build.Dir = filepath.Join("..", "..")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			_ = os.RemoveAll(dir)
			t.Fatalf("building the provider: %v\n%s", err, out)
		}
		virtxmlBuild.dir = dir
	}
	virtxmlBuild.users++
	t.Cleanup(func() {
		virtxmlBuild.Lock()
		defer virtxmlBuild.Unlock()
		if virtxmlBuild.users--; virtxmlBuild.users == 0 {
			_ = os.RemoveAll(virtxmlBuild.dir)
			virtxmlBuild.dir = ""
		}
	})
	return filepath.Join(virtxmlBuild.dir, "terraform-provider-libvirt")
}

// peerWorkdir is one user's working directory: a filesystem mirror holding
// the old provider release and this provider, a CLI configuration that
// installs both from it (and nothing from the network), and the tofu binary.
type peerWorkdir struct {
	t    *testing.T
	dir  string // main.tf, state, lock file
	cli  string
	logs []string
}

func newPeerWorkdir(t *testing.T, oldVersion string) *peerWorkdir {
	t.Helper()
	root := t.TempDir()
	mirror := filepath.Join(root, "mirror")
	version := strings.TrimSpace(readFile(t, "../../VERSION"))
	ourBinary := virtxmlProvider(t)
	for _, host := range []string{"registry.opentofu.org", "registry.terraform.io"} {
		old := filepath.Join(mirror, host, "dmacvicar/libvirt", oldVersion, "linux_amd64")
		mustMkdir(t, old)
		xz := exec.Command("xz", "-dc", filepath.Join(peerBinaries, "terraform-provider-libvirt_v"+oldVersion+".xz"))
		bin, err := xz.Output()
		if err != nil {
			t.Fatalf("decompressing dmacvicar/libvirt %s from %s: %v", oldVersion, peerBinaries, err)
		}
		if err := os.WriteFile(filepath.Join(old, "terraform-provider-libvirt_v"+oldVersion), bin, 0o755); err != nil {
			t.Fatal(err)
		}
		ours := filepath.Join(mirror, host, "virtxml/libvirt", version, "linux_amd64")
		mustMkdir(t, ours)
		if err := os.Link(ourBinary, filepath.Join(ours, "terraform-provider-libvirt_v"+version)); err != nil {
			t.Fatal(err)
		}
	}
	w := &peerWorkdir{t: t, dir: filepath.Join(root, "work"), cli: filepath.Join(root, "cli.tfrc")}
	mustMkdir(t, w.dir)
	mustWrite(t, w.cli, renderConfig(`disable_checkpoint = true
provider_installation {
  filesystem_mirror {
    path    = {{q .Mirror}}
    include = ["registry.opentofu.org/dmacvicar/libvirt", "registry.opentofu.org/virtxml/libvirt",
               "registry.terraform.io/dmacvicar/libvirt", "registry.terraform.io/virtxml/libvirt"]
  }
}
`, map[string]string{"Mirror": mirror}))
	return w
}

// peerCommandTimeout bounds one tofu command of a migration case; the
// slowest measured (an apply booting two guests) takes under a minute.
const peerCommandTimeout = 8 * time.Minute

// tofu runs the tofu binary of the test environment in the working directory.
func (w *peerWorkdir) tofu(args ...string) (string, int) {
	w.t.Helper()
	if len(args) > 0 && (args[0] == "init" || args[0] == "plan" || args[0] == "apply") {
		args = append([]string{args[0], "-no-color"}, args[1:]...)
	}
	// A command that hangs (the old provider can: see the 0.8.3 apply) fails
	// its case after peerCommandTimeout instead of holding the whole layer.
	ctx, cancel := context.WithTimeout(context.Background(), peerCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Getenv("TF_ACC_TERRAFORM_PATH"), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the provider plugins go with it
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+w.cli, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		w.t.Fatalf("tofu %s did not finish within %s (killed):\n%s", strings.Join(args, " "), peerCommandTimeout, out)
	}
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			w.t.Fatalf("tofu %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	w.logs = append(w.logs, fmt.Sprintf("$ tofu %s (exit %d)", strings.Join(args, " "), code))
	return string(out), code
}

// must runs tofu and fails the test unless it exits 0.
func (w *peerWorkdir) must(args ...string) string {
	w.t.Helper()
	out, code := w.tofu(args...)
	if code != 0 {
		w.t.Fatalf("tofu %s (exit %d):\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// removeSeedsAtCleanup removes, when the test ends, the ISO files the old
// provider's libvirt_cloudinit_disk resources wrote outside the pools (0.9.7
// leaves them in /tmp/terraform-provider-libvirt-cloudinit).
func (w *peerWorkdir) removeSeedsAtCleanup() {
	w.t.Helper()
	var state struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Type   string         `json:"type"`
					Values map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(w.must("show", "-json")), &state); err != nil {
		w.t.Fatal(err)
	}
	for _, r := range state.Values.RootModule.Resources {
		if p, ok := r.Values["path"].(string); ok && r.Type == "libvirt_cloudinit_disk" && strings.HasPrefix(p, "/tmp/") {
			w.t.Cleanup(func() { _ = os.Remove(p) })
		}
	}
}

func (w *peerWorkdir) write(config string) { mustWrite(w.t, filepath.Join(w.dir, "main.tf"), config) }

func (w *peerWorkdir) read() string { return readFile(w.t, filepath.Join(w.dir, "main.tf")) }

// peerPlanned is one resource a plan does something to: its action
// (update, replace, create, delete, import) and the top-level attributes
// whose value changes or becomes unknown.
type peerPlanned struct {
	action  string
	attrs   []string // known values that change
	unknown []string // values the plan leaves to the apply ("known after apply")
}

func (c peerPlanned) String() string {
	if len(c.attrs) == 0 {
		return c.action
	}
	return c.action + "(" + strings.Join(c.attrs, ",") + ")"
}

// planChanges plans, saves the plan and reads it back with `tofu show -json`:
// every resource whose action is not no-op, with the attributes it changes.
// A plan that fails is recorded in *row (the table cell) before the test
// stops.
func (w *peerWorkdir) planChanges(row *string) (map[string]peerPlanned, string) {
	w.t.Helper()
	out, code := w.tofu("plan", "-input=false", "-out=plan.bin", "-detailed-exitcode")
	if code == 1 {
		*row = "FAILED: " + firstError(out)
		w.t.Fatalf("plan failed:\n%s", out)
	}
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Mode    string `json:"mode"`
			Change  struct {
				Actions      []string                   `json:"actions"`
				Before       map[string]json.RawMessage `json:"before"`
				After        map[string]json.RawMessage `json:"after"`
				AfterUnknown map[string]json.RawMessage `json:"after_unknown"`
				Importing    *struct{}                  `json:"importing"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(w.must("show", "-json", "plan.bin")), &plan); err != nil {
		w.t.Fatal(err)
	}
	changes := map[string]peerPlanned{}
	for _, rc := range plan.ResourceChanges {
		if rc.Mode != "managed" {
			continue
		}
		action := strings.Join(rc.Change.Actions, ",")
		switch action {
		case "delete,create", "create,delete":
			action = "replace"
		case "no-op":
			if rc.Change.Importing == nil {
				continue
			}
			action = "import"
		}
		if rc.Change.Importing != nil && action != "import" {
			action = "import+" + action
		}
		var attrs, unknown []string
		if action == "update" || action == "replace" || action == "import+update" {
			seen := map[string]bool{}
			for k := range rc.Change.Before {
				seen[k] = true
			}
			for k := range rc.Change.After {
				seen[k] = true
			}
			for k := range seen {
				if u := string(rc.Change.AfterUnknown[k]); u != "" && strings.Contains(u, "true") {
					unknown = append(unknown, k)
					continue
				}
				if !jsonEqual(rc.Change.Before[k], rc.Change.After[k]) {
					attrs = append(attrs, k)
				}
			}
			sort.Strings(attrs)
			sort.Strings(unknown)
		}
		changes[rc.Address] = peerPlanned{action: action, attrs: attrs, unknown: unknown}
	}
	return changes, out
}

// sourceLine is a line of configuration tofu quotes under an error.
var sourceLine = regexp.MustCompile(`^(\d+:|[│├└╵╷])`)

// firstError is the first "Error:" line of tofu's output and the line of
// detail after it.
func firstError(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "Error:") {
			continue
		}
		msg := strings.TrimSpace(l)
		for _, d := range lines[i+1:] {
			d = strings.TrimSpace(d)
			if d == "" || strings.HasPrefix(d, "with ") || strings.HasPrefix(d, "on ") || sourceLine.MatchString(d) {
				continue
			}
			return msg + ": " + d
		}
		return msg
	}
	return "plan failed"
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// summary renders plan changes for the table: "No changes" or a sorted list.
func summary(changes map[string]peerPlanned) string {
	if len(changes) == 0 {
		return "No changes"
	}
	var parts []string
	for addr, c := range changes {
		parts = append(parts, addr+": "+c.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// hostObjects names the libvirt objects of a case, for the snapshots taken
// before and after the move and for cleanup.
type hostObjects struct {
	domains  []string
	networks []string
	pools    []string
	links    []string // host network links the case creates (bridge, dummy)
	dirs     []string // host directories the case creates
}

// identity is what a restart or a recreation changes: per object, a line
// that stays the same as long as the object is neither recreated nor
// restarted, and its definition (which the apply must not change either).
type identity struct {
	ids  map[string]string // "domain mig-x" -> "uuid=... domid=..."
	defs map[string]string // "domain mig-x" -> XML
}

func (h hostObjects) snapshot(t *testing.T) identity {
	t.Helper()
	s := identity{ids: map[string]string{}, defs: map[string]string{}}
	for _, d := range h.domains {
		k := "domain " + d
		s.ids[k] = fmt.Sprintf("uuid=%s domid=%s state=%s", mustVirsh(t, "domuuid", d), mustVirsh(t, "domid", d), mustVirsh(t, "domstate", d))
		s.defs[k] = mustVirsh(t, "dumpxml", "--inactive", d)
		if st := mustVirsh(t, "domstate", d); st == "running" {
			s.defs[k+" (live)"] = mustVirsh(t, "dumpxml", d)
		}
	}
	for _, n := range h.networks {
		k := "network " + n
		pid, _ := os.ReadFile("/run/libvirt/network/" + n + ".pid")
		s.ids[k] = fmt.Sprintf("uuid=%s dnsmasq=%s", mustVirsh(t, "net-uuid", n), strings.TrimSpace(string(pid)))
		s.defs[k] = mustVirsh(t, "net-dumpxml", n)
		s.defs[k+" (info)"] = mustVirsh(t, "net-info", n)
	}
	for _, p := range h.pools {
		k := "pool " + p
		s.ids[k] = "uuid=" + mustVirsh(t, "pool-uuid", p)
		s.defs[k] = mustVirsh(t, "pool-dumpxml", "--inactive", p)
		info := mustVirsh(t, "pool-info", p)
		s.defs[k+" (autostart)"] = regexp.MustCompile(`(?m)^Autostart:.*$`).FindString(info)
		for _, line := range strings.Split(mustVirsh(t, "vol-list", p), "\n")[2:] {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			var st syscall.Stat_t
			if err := syscall.Stat(f[1], &st); err != nil {
				t.Fatal(err)
			}
			vk := "volume " + p + "/" + f[0]
			s.ids[vk] = fmt.Sprintf("key=%s inode=%d", mustVirsh(t, "vol-key", "--pool", p, f[0]), st.Ino)
			s.defs[vk] = regexp.MustCompile(`(?m)^Capacity:.*$`).FindString(mustVirsh(t, "vol-info", "--bytes", "--pool", p, f[0]))
		}
	}
	return s
}

// compare lists the objects whose identity changed (restarted or recreated)
// and fails the test for every changed identity or definition.
func (s identity) compare(t *testing.T, after identity) []string {
	t.Helper()
	var changed []string
	for k, was := range s.ids {
		if now := after.ids[k]; now != was {
			changed = append(changed, k)
			t.Errorf("%s was restarted or recreated: %s, was %s", k, now, was)
		}
	}
	for k, was := range s.defs {
		if now := after.defs[k]; now != was {
			t.Errorf("the apply after the move changed %s:\n%s", k, lineDiff(was, now))
		}
	}
	sort.Strings(changed)
	return changed
}

func (h hostObjects) cleanup(t *testing.T) {
	// libvirtd may be restarting (another layer's fault injection): wait for
	// it rather than leave objects behind
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		if _, err := virsh("uri"); err == nil {
			break
		}
	}
	for _, d := range h.domains {
		_, _ = virsh("destroy", d)
		if _, err := virsh("undefine", d, "--nvram", "--tpm"); err != nil {
			_, _ = virsh("undefine", d, "--nvram")
		}
	}
	for _, n := range h.networks {
		_, _ = virsh("net-destroy", n)
		_, _ = virsh("net-undefine", n)
	}
	for _, p := range h.pools {
		if out, err := virsh("vol-list", p); err == nil {
			for _, line := range strings.Split(out, "\n")[2:] {
				if f := strings.Fields(line); len(f) > 0 {
					_, _ = virsh("vol-delete", "--pool", p, f[0])
				}
			}
		}
		_, _ = virsh("pool-destroy", p)
		_, _ = virsh("pool-delete", p)
		_, _ = virsh("pool-undefine", p)
	}
	for _, l := range h.links {
		_ = exec.Command("ip", "link", "del", l).Run()
	}
	for _, d := range h.dirs {
		_ = os.RemoveAll(d)
	}
}

// migrateRow appends a row to the table `make test-migrate` prints.
func migrateRow(t *testing.T, cells ...string) {
	result := "ok"
	if t.Failed() {
		result = "FAIL"
	}
	row := strings.Join(append(cells, result), " | ")
	t.Log("table row: " + row)
	file := os.Getenv("MIGRATE_TABLE")
	if file == "" {
		return
	}
	migrateTableLock.Lock()
	defer migrateTableLock.Unlock()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, row)
}

func readFile(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// peerImages writes the images the cases download: a small qcow2 base image
// and a raw data image, served with and without Content-Length.
func peerImages(t *testing.T) *contentServer {
	t.Helper()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.qcow2")
	if out, err := exec.Command("qemu-img", "create", "-q", "-f", "qcow2", base, "16M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img: %v %s", err, out)
	}
	raw := make([]byte, 1<<20)
	for i := range raw {
		raw[i] = byte(i)
	}
	return newContentServer(t, map[string][]byte{"base.qcow2": []byte(readFile(t, base)), "data.raw": raw})
}

// peerCase is one configuration moved from the old provider.
type peerCase struct {
	name    string // table row
	old     string // old provider version
	objects hostObjects
	setup   func(t *testing.T) // host links and directories the configuration uses
	config  func(images string) string
	// change edits the moved configuration deliberately; want is the plan it
	// must produce: resource address -> action(attributes).
	change     func(config string) string
	changeDesc string
	want       map[string]string
	// recomputed lists, per resource, the read-only values the change may
	// leave to the apply (a grown volume's allocation); anything else the
	// plan marks unknown fails the case.
	recomputed map[string][]string
}

// runPeerMove applies c.config with the old provider, moves it as the 0.9.x
// section of docs/guides/migrating-from-dmacvicar-libvirt.md says, and checks
// the first plan, the apply after it, and the deliberate change.
func runPeerMove(t *testing.T, c peerCase) {
	testAccPreCheck(t)
	t.Parallel()
	start := time.Now()
	firstPlan, restarted, changeCell := "(not reached)", "-", "-"
	defer func() {
		migrateRow(t, c.name, "dmacvicar/libvirt "+c.old, firstPlan, restarted, changeCell, time.Since(start).Round(time.Second).String())
	}()
	c.objects.cleanup(t)
	t.Cleanup(func() { c.objects.cleanup(t) })
	if c.setup != nil {
		c.setup(t)
	}
	images := peerImages(t)
	w := newPeerWorkdir(t, c.old)
	oldConfig := c.config(images.URL)
	if !strings.Contains(oldConfig, `source  = "dmacvicar/libvirt"`) {
		t.Fatal("the configuration must name dmacvicar/libvirt as its source")
	}
	w.write(oldConfig)
	w.must("init", "-input=false")
	w.must("apply", "-input=false", "-auto-approve")
	w.removeSeedsAtCleanup()
	before := c.objects.snapshot(t)

	// the move, as a user does it (the guide's 0.9.x section)
	w.must("state", "pull")
	moved := strings.Replace(oldConfig, `source  = "dmacvicar/libvirt"`, `source  = "virtxml/libvirt"`, 1)
	moved = strings.Replace(moved, `version = "`+c.old+`"`, `version = "~> 0.1"`, 1)
	w.write(moved)
	host := registryHost()
	w.must("state", "replace-provider", "-auto-approve", host+"/dmacvicar/libvirt", host+"/virtxml/libvirt")
	w.must("init", "-input=false", "-upgrade")
	first, out := w.planChanges(&firstPlan)
	firstPlan = summary(first)
	if len(first) != 0 {
		t.Errorf("the first plan after the move is not empty: %s\n%s", firstPlan, out)
	}
	restarted = "none"
	if len(first) == 0 {
		w.must("apply", "-input=false", "-auto-approve")
		if changed := before.compare(t, c.objects.snapshot(t)); len(changed) > 0 {
			restarted = strings.Join(changed, ", ")
		}
	} else {
		restarted = "(not applied)"
	}

	// a deliberate change plans exactly that change
	w.write(c.change(w.read()))
	if w.read() == moved {
		t.Fatal("the deliberate change did not edit the configuration")
	}
	changeCell = c.changeDesc + " -> (not reached)"
	changes, out := w.planChanges(&changeCell)
	changeCell = c.changeDesc + " -> " + summary(changes)
	got := map[string]string{}
	for addr, ch := range changes {
		got[addr] = ch.String()
	}
	if !equalMaps(got, c.want) {
		t.Errorf("%s: the plan is %v, want %v\n%s", c.changeDesc, got, c.want, out)
	}
	for addr, ch := range changes {
		allowed := map[string]bool{}
		for _, a := range c.recomputed[addr] {
			allowed[a] = true
		}
		for _, u := range ch.unknown {
			if !allowed[u] {
				t.Errorf("%s: the plan leaves %s.%s to the apply (known after apply)", c.changeDesc, addr, u)
			}
		}
	}
}

// registryHost is the registry the CLI names providers after:
// registry.terraform.io when the tests drive Terraform instead of OpenTofu.
func registryHost() string {
	if strings.Contains(filepath.Base(os.Getenv("TF_ACC_TERRAFORM_PATH")), "terraform") {
		return "registry.terraform.io"
	}
	return "registry.opentofu.org"
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// hcl097Header is the head of every 0.9.7 configuration, as its examples write it.
const hcl097Header = `terraform {
  required_providers {
    libvirt = {
      source  = "dmacvicar/libvirt"
      version = "0.9.7"
    }
  }
}

provider "libvirt" {
  uri = "qemu:///system"
}
`

// TestAccPeer097_lab is the lab users measured: a NAT network with DHCP
// reservations and DNS hosts, a pool with autostart, a base image from a URL
// with two overlays, cloud-init seeds and two running domains, written as
// 0.9.7's examples/two_vms_with_cloudinit.tf writes them.
func TestAccPeer097_lab(t *testing.T) {
	runPeerMove(t, peerCase{
		name: "lab: NAT+DHCP hosts+DNS, pool, base+overlays, cloud-init, 2 running",
		old:  "0.9.7",
		objects: hostObjects{
			domains: []string{"mig-lab-vm1", "mig-lab-vm2"}, networks: []string{"mig-lab-net"},
			pools: []string{"mig-lab-pool"}, dirs: []string{"/var/lib/libvirt/mig-lab-pool"},
		},
		config: func(images string) string {
			vm := func(n int) string {
				return renderConfig(`
resource "libvirt_cloudinit_disk" "vm{{.VM}}_init" {
  name = "mig-lab-vm{{.VM}}-init"
  user_data = <<-EOF
    #cloud-config
    ssh_pwauth: true
    timezone: UTC
  EOF
  meta_data = <<-EOF
    instance-id: vm{{.VM}}-001
    local-hostname: vm{{.VM}}
  EOF
  network_config = <<-EOF
    version: 2
    ethernets:
      eth0:
        dhcp4: true
  EOF
}

resource "libvirt_volume" "vm{{.VM}}_cloudinit" {
  name = "mig-lab-vm{{.VM}}-cloudinit.iso"
  pool = libvirt_pool.lab.name
  create = {
    content = {
      url = libvirt_cloudinit_disk.vm{{.VM}}_init.path
    }
  }
}

resource "libvirt_volume" "vm{{.VM}}_disk" {
  name   = "mig-lab-vm{{.VM}}-disk.qcow2"
  pool   = libvirt_pool.lab.name
  target = {
    format = {
      type = "qcow2"
    }
  }
  capacity = 67108864
  backing_store = {
    path   = libvirt_volume.base.path
    format = {
      type = "qcow2"
    }
  }
}

resource "libvirt_domain" "vm{{.VM}}" {
  name        = "mig-lab-vm{{.VM}}"
  memory      = 128
  memory_unit = "MiB"
  vcpu        = 1
  type        = "qemu"
  os = {
    type         = "hvm"
    type_arch    = "x86_64"
    type_machine = "q35"
  }
  devices = {
    disks = [
      {
        source = {
          volume = {
            pool   = libvirt_volume.vm{{.VM}}_disk.pool
            volume = libvirt_volume.vm{{.VM}}_disk.name
          }
        }
        target = {
          bus = "virtio"
          dev = "vda"
        }
        driver = {
          type = "qcow2"
        }
      },
      {
        device = "cdrom"
        source = {
          volume = {
            pool   = libvirt_volume.vm{{.VM}}_cloudinit.pool
            volume = libvirt_volume.vm{{.VM}}_cloudinit.name
          }
        }
        target = {
          bus = "sata"
          dev = "sda"
        }
      }
    ]
    interfaces = [
      {
        type  = "network"
        model = { type = "virtio" }
        mac   = { address = "52:54:00:41:01:1{{.VM}}" }
        source = {
          network = {
            network = libvirt_network.lab.name
          }
        }
      }
    ]
    graphics = [
      {
        vnc = {
          auto_port = true
          listen    = "127.0.0.1"
        }
      }
    ]
  }
  running = true
}
`, map[string]int{"VM": n})
			}
			return hcl097Header + renderConfig(`
resource "libvirt_pool" "lab" {
  name = "mig-lab-pool"
  type = "dir"
  target = {
    path = "/var/lib/libvirt/mig-lab-pool"
  }
  create = {
    build     = true
    start     = true
    autostart = true
  }
}

resource "libvirt_network" "lab" {
  name      = "mig-lab-net"
  autostart = true
  forward = {
    mode = "nat"
  }
  domain = {
    name = "mig.lab"
  }
  ips = [
    {
      address = "10.241.1.1"
      prefix  = 24
      dhcp = {
        ranges = [
          {
            start = "10.241.1.100"
            end   = "10.241.1.199"
          }
        ]
        hosts = [
          {
            mac  = "52:54:00:41:01:11"
            ip   = "10.241.1.11"
            name = "vm1"
          },
          {
            mac  = "52:54:00:41:01:12"
            ip   = "10.241.1.12"
            name = "vm2"
          }
        ]
      }
    }
  ]
  dns = {
    host = [
      {
        ip        = "10.241.1.11"
        hostnames = [{ hostname = "vm1.mig.lab" }]
      },
      {
        ip        = "10.241.1.12"
        hostnames = [{ hostname = "vm2.mig.lab" }]
      }
    ]
  }
}

resource "libvirt_volume" "base" {
  name   = "mig-lab-base.qcow2"
  pool   = libvirt_pool.lab.name
  target = {
    format = {
      type = "qcow2"
    }
  }
  create = {
    content = {
      url = "{{.Images}}/len/base.qcow2"
    }
  }
}
`, map[string]string{"Images": images}) + vm(1) + vm(2)
		},
		changeDesc: "DHCP host added",
		change: func(config string) string {
			return strings.Replace(config, `            name = "vm2"
          }`, `            name = "vm2"
          },
          {
            mac  = "52:54:00:41:01:13"
            ip   = "10.241.1.13"
            name = "vm3"
          }`, 1)
		},
		want: map[string]string{"libvirt_network.lab": "update(ips)"},
	})
}

// peerPool is a directory pool with autostart, as 0.9.7 creates pools.
func peerPool(resource, name string) string {
	return renderConfig(`
resource "libvirt_pool" {{q .Resource}} {
  name = {{q .Name}}
  type = "dir"
  target = {
    path = "/var/lib/libvirt/{{.Name}}"
  }
  create = {
    build     = true
    start     = true
    autostart = true
  }
}
`, map[string]string{"Resource": resource, "Name": name})
}

// TestAccPeer097_uefiNode is a UEFI node written as 0.9.7's users write it
// (explicit loader and nv_ram, since 0.9.7 cannot apply firmware
// autoselection): TPM 2.0 emulator, virtio-scsi disks with WWNs, SPICE,
// virtio video with heads and primary, running.
func TestAccPeer097_uefiNode(t *testing.T) {
	runPeerMove(t, peerCase{
		name: "uefi: loader+nv_ram, TPM, virtio-scsi+WWN, SPICE, virtio video, running",
		old:  "0.9.7",
		objects: hostObjects{
			domains: []string{"mig-uefi"}, pools: []string{"mig-uefi-pool"},
			dirs: []string{"/var/lib/libvirt/mig-uefi-pool", "/var/lib/libvirt/qemu/nvram/mig-uefi_VARS.fd"},
		},
		config: func(images string) string {
			return hcl097Header + peerPool("uefi", "mig-uefi-pool") + `
resource "libvirt_volume" "os" {
  name     = "mig-uefi-os.qcow2"
  pool     = libvirt_pool.uefi.name
  capacity = 67108864
  target = {
    format = {
      type = "qcow2"
    }
  }
}

resource "libvirt_volume" "data" {
  name     = "mig-uefi-data.qcow2"
  pool     = libvirt_pool.uefi.name
  capacity = 33554432
  target = {
    format = {
      type = "qcow2"
    }
  }
}

resource "libvirt_domain" "node" {
  name        = "mig-uefi"
  memory      = 256
  memory_unit = "MiB"
  vcpu        = 1
  type        = "qemu"

  os = {
    type            = "hvm"
    type_arch       = "x86_64"
    type_machine    = "q35"
    loader          = "/usr/share/OVMF/OVMF_CODE_4M.fd"
    loader_readonly = "yes"
    loader_type     = "pflash"
    nv_ram = {
      nv_ram   = "/var/lib/libvirt/qemu/nvram/mig-uefi_VARS.fd"
      template = "/usr/share/OVMF/OVMF_VARS_4M.fd"
    }
  }

  features = {
    acpi = true
  }

  devices = {
    controllers = [
      {
        type  = "scsi"
        model = "virtio-scsi"
      }
    ]
    disks = [
      {
        source = {
          volume = {
            pool   = libvirt_volume.os.pool
            volume = libvirt_volume.os.name
          }
        }
        target = {
          dev = "sda"
          bus = "scsi"
        }
        driver = {
          type = "qcow2"
        }
        wwn = "5000c50015ea71ac"
      },
      {
        source = {
          volume = {
            pool   = libvirt_volume.data.pool
            volume = libvirt_volume.data.name
          }
        }
        target = {
          dev = "sdb"
          bus = "scsi"
        }
        driver = {
          type = "qcow2"
        }
        wwn = "5000c50015ea71ad"
      }
    ]
    tpms = [
      {
        model = "tpm-crb"
        backend = {
          emulator = {
            version = "2.0"
          }
        }
      }
    ]
    graphics = [
      {
        spice = {
          auto_port = true
          listen    = "127.0.0.1"
        }
      }
    ]
    videos = [
      {
        model = {
          type    = "virtio"
          heads   = 1
          primary = "yes"
        }
      }
    ]
  }

  running = true
}
`
		},
		changeDesc: "data volume grown 32 -> 48 MiB",
		change: func(config string) string {
			return strings.Replace(config, "capacity = 33554432", "capacity = 50331648", 1)
		},
		want:       map[string]string{"libvirt_volume.data": "update(capacity)"},
		recomputed: map[string][]string{"libvirt_volume.data": {"allocation", "allocation_unit", "capacity_unit", "physical", "physical_unit"}},
	})
}

// TestAccPeer097_nics is a running domain with three NICs: a libvirt
// network, a host bridge and macvtap (direct) on a host link, the shapes of
// 0.9.7's examples/domain_with_network.tf. The host links are made for the
// test (mig-br0, a bridge; mig-vt0, one end of a veth pair).
func TestAccPeer097_nics(t *testing.T) {
	runPeerMove(t, peerCase{
		name: "nics: network + bridge + macvtap, running",
		old:  "0.9.7",
		objects: hostObjects{
			domains: []string{"mig-nics"}, networks: []string{"mig-nics-net"},
			links: []string{"mig-br0", "mig-vt0"},
		},
		setup: func(t *testing.T) {
			for _, cmd := range [][]string{
				{"ip", "link", "add", "mig-br0", "type", "bridge"},
				{"ip", "link", "set", "mig-br0", "up"},
				{"ip", "link", "add", "mig-vt0", "type", "veth", "peer", "name", "mig-vt1"},
				{"ip", "link", "set", "mig-vt0", "up"},
				{"ip", "link", "set", "mig-vt1", "up"},
			} {
				if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
					t.Fatalf("%v: %v %s", cmd, err, out)
				}
			}
		},
		config: func(images string) string {
			return hcl097Header + `
resource "libvirt_network" "nics" {
  name      = "mig-nics-net"
  autostart = true
  forward = {
    mode = "nat"
  }
  ips = [
    {
      address = "10.241.2.1"
      prefix  = 24
      dhcp = {
        ranges = [
          {
            start = "10.241.2.100"
            end   = "10.241.2.199"
          }
        ]
      }
    }
  ]
}

resource "libvirt_domain" "nics" {
  name        = "mig-nics"
  memory      = 128
  memory_unit = "MiB"
  vcpu        = 1
  type        = "qemu"

  os = {
    type         = "hvm"
    type_arch    = "x86_64"
    type_machine = "q35"
  }

  devices = {
    interfaces = [
      {
        type = "network"
        model = {
          type = "virtio"
        }
        mac = {
          address = "52:54:00:41:02:11"
        }
        source = {
          network = {
            network = libvirt_network.nics.name
          }
        }
      },
      {
        model = {
          type = "virtio"
        }
        mac = {
          address = "52:54:00:41:02:12"
        }
        source = {
          bridge = {
            bridge = "mig-br0"
          }
        }
      },
      {
        model = {
          type = "virtio"
        }
        mac = {
          address = "52:54:00:41:02:13"
        }
        source = {
          direct = {
            dev  = "mig-vt0"
            mode = "bridge"
          }
        }
      }
    ]
  }

  running = true
}
`
		},
		changeDesc: "autostart turned on",
		change: func(config string) string {
			return strings.Replace(config, "  running = true\n", "  running   = true\n  autostart = true\n", 1)
		},
		want: map[string]string{"libvirt_domain.nics": "update(autostart)"},
	})
}

// TestAccPeer097_stoppedDisks is a stopped domain with several disks: a
// base image downloaded with Content-Length, a raw image downloaded without
// it (capacity given, as 0.9.7 requires then), an overlay chain of three,
// an empty raw volume and a disk by file path; the shapes of 0.9.7's
// examples/resources/libvirt_volume/resource.tf.
func TestAccPeer097_stoppedDisks(t *testing.T) {
	runPeerMove(t, peerCase{
		name: "disks: URL with/without Content-Length, overlay chain, 4 disks, stopped",
		old:  "0.9.7",
		objects: hostObjects{
			domains: []string{"mig-disks"}, pools: []string{"mig-disks-pool"},
			dirs: []string{"/var/lib/libvirt/mig-disks-pool"},
		},
		config: func(images string) string {
			return hcl097Header + peerPool("disks", "mig-disks-pool") + renderConfig(`
resource "libvirt_volume" "base" {
  name   = "mig-disks-base.qcow2"
  pool   = libvirt_pool.disks.name
  target = {
    format = {
      type = "qcow2"
    }
  }
  create = {
    content = {
      url = "{{.Images}}/len/base.qcow2"
    }
  }
}

resource "libvirt_volume" "data_image" {
  name     = "mig-disks-data.raw"
  pool     = libvirt_pool.disks.name
  capacity = 1048576
  target = {
    format = {
      type = "raw"
    }
  }
  create = {
    content = {
      url = "{{.Images}}/nolen/data.raw"
    }
  }
}

resource "libvirt_volume" "mid" {
  name     = "mig-disks-mid.qcow2"
  pool     = libvirt_pool.disks.name
  capacity = 33554432
  target = {
    format = {
      type = "qcow2"
    }
  }
  backing_store = {
    path   = libvirt_volume.base.path
    format = {
      type = "qcow2"
    }
  }
}

resource "libvirt_volume" "top" {
  name     = "mig-disks-top.qcow2"
  pool     = libvirt_pool.disks.name
  capacity = 67108864
  target = {
    format = {
      type = "qcow2"
    }
  }
  backing_store = {
    path   = libvirt_volume.mid.path
    format = {
      type = "qcow2"
    }
  }
}

resource "libvirt_volume" "scratch" {
  name     = "mig-disks-scratch.raw"
  pool     = libvirt_pool.disks.name
  capacity = 8388608
  target = {
    format = {
      type = "raw"
    }
  }
}

resource "libvirt_domain" "disks" {
  name        = "mig-disks"
  memory      = 128
  memory_unit = "MiB"
  vcpu        = 1
  type        = "qemu"

  os = {
    type         = "hvm"
    type_arch    = "x86_64"
    type_machine = "q35"
  }

  devices = {
    disks = [
      {
        source = {
          volume = {
            pool   = libvirt_volume.top.pool
            volume = libvirt_volume.top.name
          }
        }
        target = {
          dev = "vda"
          bus = "virtio"
        }
        driver = {
          type = "qcow2"
        }
      },
      {
        source = {
          volume = {
            pool   = libvirt_volume.data_image.pool
            volume = libvirt_volume.data_image.name
          }
        }
        target = {
          dev = "vdb"
          bus = "virtio"
        }
        driver = {
          type = "raw"
        }
        read_only = true
      },
      {
        source = {
          file = {
            file = libvirt_volume.scratch.path
          }
        }
        target = {
          dev = "vdc"
          bus = "virtio"
        }
        driver = {
          type = "raw"
        }
      },
      {
        source = {
          volume = {
            pool   = libvirt_volume.base.pool
            volume = libvirt_volume.base.name
          }
        }
        target = {
          dev = "vdd"
          bus = "virtio"
        }
        driver = {
          type = "qcow2"
        }
        read_only = true
      }
    ]
  }

  running = false
}
`, map[string]string{"Images": images})
		},
		changeDesc: "memory of the stopped domain 128 -> 192 MiB",
		change: func(config string) string {
			return strings.Replace(config, "memory      = 128", "memory      = 192", 1)
		},
		want: map[string]string{"libvirt_domain.disks": "update(memory)"},
	})
}

// TestAccPeer097_virtiofs shares a host directory over virtiofs (shared
// memory backing, as libvirt requires for vhost-user), the shape of 0.9.7's
// examples/domain_with_filesystem.tf with the virtiofs driver, running.
func TestAccPeer097_virtiofs(t *testing.T) {
	const share = "/var/lib/libvirt/mig-virtiofs-share"
	runPeerMove(t, peerCase{
		name:    "virtiofs: shared memfd memory, virtiofs share, running",
		old:     "0.9.7",
		objects: hostObjects{domains: []string{"mig-virtiofs"}, dirs: []string{share}},
		setup: func(t *testing.T) {
			if _, err := os.Stat("/usr/lib/qemu/virtiofsd"); err != nil {
				t.Fatalf("virtiofsd is missing (scripts/testenv.sh installs it): %v", err)
			}
			mustMkdir(t, share)
		},
		config: func(images string) string {
			return hcl097Header + `
resource "libvirt_domain" "fs" {
  name        = "mig-virtiofs"
  memory      = 128
  memory_unit = "MiB"
  vcpu        = 1
  type        = "qemu"

  os = {
    type         = "hvm"
    type_arch    = "x86_64"
    type_machine = "q35"
  }

  memory_backing = {
    memory_source = {
      type = "memfd"
    }
    memory_access = {
      mode = "shared"
    }
  }

  devices = {
    filesystems = [
      {
        driver = {
          type = "virtiofs"
        }
        access_mode = "passthrough"
        source = {
          mount = {
            dir = "` + share + `"
          }
        }
        target = {
          dir = "share"
        }
      }
    ]
  }

  running = true
}
`
		},
		changeDesc: "description added",
		change: func(config string) string {
			return strings.Replace(config, `  vcpu        = 1`, `  vcpu        = 1
  description = "shares /var/lib/libvirt/mig-virtiofs-share"`, 1)
		},
		want: map[string]string{"libvirt_domain.fs": "update(description)"},
	})
}

// TestAccPeer097_consoles has a serial console, a pty console, the QEMU
// guest agent channel, an RNG (backend written as 0.9.7 writes it:
// `random = "/dev/urandom"`), VNC and a VGA video with heads and primary,
// running.
func TestAccPeer097_consoles(t *testing.T) {
	runPeerMove(t, peerCase{
		name:    "consoles: serial+console, guest agent channel, RNG, VNC, running",
		old:     "0.9.7",
		objects: hostObjects{domains: []string{"mig-consoles"}},
		config: func(images string) string {
			return hcl097Header + `
resource "libvirt_domain" "consoles" {
  name        = "mig-consoles"
  memory      = 128
  memory_unit = "MiB"
  vcpu        = 1
  type        = "qemu"

  os = {
    type         = "hvm"
    type_arch    = "x86_64"
    type_machine = "q35"
  }

  devices = {
    serials = [
      {
        target = {
          port = 0
        }
      }
    ]
    consoles = [
      {
        target = {
          type = "serial"
          port = 0
        }
      }
    ]
    channels = [
      {
        source = {
          unix = {
            mode = "bind"
          }
        }
        target = {
          virt_io = {
            name = "org.qemu.guest_agent.0"
          }
        }
      }
    ]
    rngs = [
      {
        model = "virtio"
        backend = {
          random = "/dev/urandom"
        }
      }
    ]
    graphics = [
      {
        vnc = {
          auto_port = true
          listen    = "127.0.0.1"
        }
      }
    ]
    videos = [
      {
        model = {
          type    = "vga"
          vram    = 16384
          heads   = 1
          primary = "yes"
        }
      }
    ]
  }

  running = true
}
`
		},
		changeDesc: "description added",
		change: func(config string) string {
			return strings.Replace(config, `  vcpu        = 1`, `  vcpu        = 1
  description = "consoles"`, 1)
		},
		want: map[string]string{"libvirt_domain.consoles": "update(description)"},
	})
}

// TestAccPeer083_guide is the 0.8.x section of
// docs/guides/migrating-from-dmacvicar-libvirt.md run as written on a lab
// made by the real dmacvicar/libvirt 0.8.3 (SDKv2, blocks): a NAT network
// with DNS hosts, a pool, a base image from a URL with an overlay, a
// cloud-init seed and a running domain with a console, VNC and the guest
// agent. The old resources leave the state with `tofu state rm`, the
// configuration is rewritten in the new shape with the guide's tables, the
// objects are imported with import blocks, and the plan must show imports
// and nothing else.
func TestAccPeer083_guide(t *testing.T) {
	testAccPreCheck(t)
	t.Parallel()
	start := time.Now()
	firstPlan, restarted, changeCell := "(not reached)", "-", "-"
	defer func() {
		migrateRow(t, "0.8.x guide: NAT+DNS, pool, URL base+overlay, cloud-init seed, running (state rm + import)",
			"dmacvicar/libvirt 0.8.3", firstPlan, restarted, changeCell, time.Since(start).Round(time.Second).String())
	}()
	objects := hostObjects{
		domains: []string{"mig-old-vm1"}, networks: []string{"mig-old-net"},
		pools: []string{"mig-old-pool"}, dirs: []string{"/var/lib/libvirt/mig-old-pool"},
	}
	objects.cleanup(t)
	t.Cleanup(func() { objects.cleanup(t) })
	images := peerImages(t)
	w := newPeerWorkdir(t, "0.8.3")
	w.write(renderConfig(`terraform {
  required_providers {
    libvirt = {
      source  = "dmacvicar/libvirt"
      version = "0.8.3"
    }
  }
}

provider "libvirt" {
  uri = "qemu:///system"
}

resource "libvirt_pool" "lab" {
  name = "mig-old-pool"
  type = "dir"
  path = "/var/lib/libvirt/mig-old-pool"
}

resource "libvirt_network" "lab" {
  name      = "mig-old-net"
  mode      = "nat"
  domain    = "mig-old.lab"
  addresses = ["10.241.8.0/24"]
  dhcp {
    enabled = true
  }
  dns {
    enabled = true
    hosts {
      hostname = "vm1.mig-old.lab"
      ip       = "10.241.8.11"
    }
  }
}

resource "libvirt_volume" "base" {
  name   = "mig-old-base.qcow2"
  pool   = libvirt_pool.lab.name
  source = "{{.Images}}/len/base.qcow2"
  format = "qcow2"
}

resource "libvirt_volume" "root" {
  name           = "mig-old-vm1-root.qcow2"
  pool           = libvirt_pool.lab.name
  base_volume_id = libvirt_volume.base.id
  size           = 67108864
  format         = "qcow2"
}

resource "libvirt_cloudinit_disk" "vm1" {
  name      = "mig-old-vm1-seed.iso"
  pool      = libvirt_pool.lab.name
  user_data = "#cloud-config\n"
  meta_data = "instance-id: vm1\nlocal-hostname: vm1\n"
}

resource "libvirt_domain" "vm1" {
  name       = "mig-old-vm1"
  type       = "qemu"
  memory     = 128
  vcpu       = 1
  qemu_agent = true
  cloudinit  = libvirt_cloudinit_disk.vm1.id

  disk {
    volume_id = libvirt_volume.root.id
  }
  network_interface {
    network_name = libvirt_network.lab.name
    mac          = "52:54:00:41:08:11"
  }
  console {
    type        = "pty"
    target_type = "serial"
    target_port = "0"
  }
  graphics {
    type        = "vnc"
    listen_type = "address"
  }
}
`, map[string]string{"Images": images.URL}))
	w.must("init", "-input=false")
	// -parallelism=1: 0.8.x can deadlock creating cloud-init disks, volumes and
	// networks at once (seen here: a 13-minute hang with libvirtd idle); its
	// users' workaround (dmacvicar/terraform-provider-libvirt#594) is this flag.
	w.must("apply", "-input=false", "-auto-approve", "-parallelism=1")
	before := objects.snapshot(t)

	// 3.1 forget the old objects (libvirt is not touched)
	w.must("state", "pull")
	w.must("state", "rm", "libvirt_domain.vm1", "libvirt_volume.root", "libvirt_volume.base",
		"libvirt_cloudinit_disk.vm1", "libvirt_network.lab", "libvirt_pool.lab")
	// 1 and 2: the provider and the configuration in the new shape (the
	// guide's tables, and its notes on the imported cloud-init seed); 3.2:
	// import blocks
	moved := `terraform {
  required_providers {
    libvirt = {
      source = "virtxml/libvirt"
    }
  }
}

provider "libvirt" {
  uri = "qemu:///system"
}

resource "libvirt_pool" "lab" {
  name = "mig-old-pool"
  type = "dir"
  target = {
    path = "/var/lib/libvirt/mig-old-pool"
  }
}

resource "libvirt_network" "lab" {
  name = "mig-old-net"
  forward = {
    mode = "nat"
  }
  domain = {
    name = "mig-old.lab"
  }
  ips = [{
    address = cidrhost("10.241.8.0/24", 1)
    prefix  = 24
    dhcp = {
      ranges = [{
        start = cidrhost("10.241.8.0/24", 2)
        end   = cidrhost("10.241.8.0/24", 254)
      }]
    }
  }]
  dns = {
    enable = "yes"
    host = [{
      ip = "10.241.8.11"
      hostnames = [{
        hostname = "vm1.mig-old.lab"
      }]
    }]
  }
}

resource "libvirt_volume" "base" {
  name = "mig-old-base.qcow2"
  pool = libvirt_pool.lab.name
  target = {
    format = {
      type = "qcow2"
    }
  }
}

resource "libvirt_volume" "root" {
  name     = "mig-old-vm1-root.qcow2"
  pool     = libvirt_pool.lab.name
  capacity = 67108864
  target = {
    format = {
      type = "qcow2"
    }
  }
  backing_store = {
    path = libvirt_volume.base.path
    format = {
      type = "qcow2"
    }
  }
}

resource "libvirt_volume" "vm1_seed" {
  name = "mig-old-vm1-seed.iso"
  pool = libvirt_pool.lab.name
}

resource "libvirt_domain" "vm1" {
  name        = "mig-old-vm1"
  type        = "qemu"
  memory      = 128
  memory_unit = "MiB"
  vcpu        = 1
  running     = true

  os = {
    type = "hvm"
  }

  devices = {
    disks = [
      {
        source = {
          volume = {
            pool   = libvirt_pool.lab.name
            volume = libvirt_volume.root.name
          }
        }
        target = {
          dev = "vda"
          bus = "virtio"
        }
        driver = {
          type = "qcow2"
        }
      },
      {
        device = "cdrom"
        source = {
          file = {
            file = libvirt_volume.vm1_seed.path
          }
        }
        target = {
          dev = "hdd"
          bus = "ide"
        }
        read_only = true
      },
    ]
    interfaces = [{
      type = "network"
      model = {
        type = "virtio"
      }
      source = {
        network = {
          network = "mig-old-net"
        }
      }
      mac = {
        address = "52:54:00:41:08:11"
      }
    }]
    serials = [{
      target = {
        port = 0
      }
    }]
    consoles = [{
      target = {
        type = "serial"
        port = 0
      }
    }]
    channels = [{
      source = {
        unix = {}
      }
      target = {
        virt_io = {
          name = "org.qemu.guest_agent.0"
        }
      }
    }]
    graphics = [{
      vnc = {
        listen    = "127.0.0.1"
        auto_port = true
      }
    }]
  }
}

import {
  to = libvirt_pool.lab
  id = "mig-old-pool"
}

import {
  to = libvirt_network.lab
  id = "mig-old-net"
}

import {
  to = libvirt_volume.base
  id = "mig-old-pool/mig-old-base.qcow2"
}

import {
  to = libvirt_volume.root
  id = "mig-old-pool/mig-old-vm1-root.qcow2"
}

import {
  to = libvirt_volume.vm1_seed
  id = "mig-old-pool/mig-old-vm1-seed.iso"
}

import {
  to = libvirt_domain.vm1
  id = "mig-old-vm1"
}
`
	w.write(moved)
	w.must("init", "-input=false")
	first, out := w.planChanges(&firstPlan)
	wantImports := []string{"libvirt_domain.vm1", "libvirt_network.lab", "libvirt_pool.lab",
		"libvirt_volume.base", "libvirt_volume.root", "libvirt_volume.vm1_seed"}
	onlyImports := len(first) == len(wantImports)
	for _, addr := range wantImports {
		if first[addr].action != "import" {
			onlyImports = false
		}
	}
	if !onlyImports {
		t.Errorf("the plan after the guide's steps is not imports only: %s\n%s", summary(first), out)
	}
	firstPlan = fmt.Sprintf("%d imports, nothing else", len(first))
	if !onlyImports {
		firstPlan = summary(first)
	}
	restarted = "(not applied)"
	if onlyImports {
		w.must("apply", "-input=false", "-auto-approve")
		restarted = "none"
		if changed := before.compare(t, objects.snapshot(t)); len(changed) > 0 {
			restarted = strings.Join(changed, ", ")
		}
		if out, code := w.tofu("plan", "-input=false", "-detailed-exitcode"); code != 0 {
			t.Errorf("the plan after the imports is not empty (exit %d):\n%s", code, out)
		}
	}

	// a deliberate change: a DHCP reservation for vm1
	w.write(strings.Replace(moved, `        end   = cidrhost("10.241.8.0/24", 254)
      }]`, `        end   = cidrhost("10.241.8.0/24", 254)
      }]
      hosts = [{
        mac  = "52:54:00:41:08:11"
        ip   = "10.241.8.11"
        name = "vm1"
      }]`, 1))
	changeCell = "DHCP host added -> (not reached)"
	changes, out := w.planChanges(&changeCell)
	changeCell = "DHCP host added -> " + summary(changes)
	if got := summary(changes); got != "libvirt_network.lab: update(ips)" {
		t.Errorf("DHCP host added: the plan is %s, want libvirt_network.lab: update(ips)\n%s", got, out)
	}
}
