//go:build faults

package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/virtxml/terraform-provider-libvirt/internal/testrelay"
)

// The fault-injection layer (make test-faults): each case breaks libvirtd or
// the provider during a real apply and prints a row of the table: the case,
// how long the broken apply took, what was left outside the state, and what
// the next apply did.

var faultTable struct {
	sync.Mutex
	rows []string
}

func faultRow(t *testing.T, format string, args ...any) {
	row := fmt.Sprintf(format, args...)
	faultTable.Lock()
	faultTable.rows = append(faultTable.rows, row)
	faultTable.Unlock()
	t.Log(row)
}

func TestMain(m *testing.M) {
	code := m.Run()
	faultTable.Lock()
	if len(faultTable.rows) > 0 {
		fmt.Println("\nfault-injection table (case | broken apply | left outside state | next apply)")
		for _, r := range faultTable.rows {
			fmt.Println("  " + r)
		}
	}
	faultTable.Unlock()
	os.Exit(code)
}

// countNamed counts the lines of a virsh listing that start with prefix.
func countNamed(out, prefix string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], prefix) {
			n++
		}
	}
	return n
}

// TestFault_libvirtdRestartDuringApply restarts libvirtd while 10 domains
// and 20 volumes (10 empty, 10 uploaded: 16 MiB served at 8 MiB/s) are
// being created; the restart comes as soon as the first volume exists. The broken apply may fail, but never with a duplicate create
// ("already exists"); the next apply converges with nothing imported by
// hand, and the host holds exactly the 10 domains and 20 volumes.
func TestFault_libvirtdRestartDuringApply(t *testing.T) {
	testAccPreCheck(t)
	const prefix = "tfflt-rst"
	pool := testAccPool()
	cleanup := func() { faultFleetCleanup(prefix, pool, 10, 20) }
	cleanup()
	t.Cleanup(func() { startLibvirtd(t); cleanup() })
	dir := t.TempDir()
	// uploads of 16 MiB at 8 MiB/s: the restart lands while they stream
	content := slowContent(t, 16<<20, 0).URL + "/image.raw"
	tofu := tofuWorkdir(t, dir, faultFleetConfig(prefix, pool, content, "", 10, 10, 10))

	type result struct {
		out  string
		code int
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve", "-parallelism=20")
		done <- result{out, code}
	}()
	// restart as soon as the creates have begun (the first volume exists)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if out, err := virsh("vol-list", pool); err == nil && countNamed(out, prefix+"-") > 0 {
			break
		}
	}
	stopLibvirtd(t)
	time.Sleep(2 * time.Second)
	startLibvirtd(t)
	first := <-done
	took := time.Since(start)
	if strings.Contains(first.out, "already exists") {
		t.Errorf("the broken apply repeated a create that had happened:\n%s", first.out)
	}

	out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve", "-parallelism=20")
	if code != 0 {
		t.Fatalf("the second apply did not converge (exit %d):\n%s", code, out)
	}
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("the plan after the second apply is not empty (exit %d):\n%s", code, out)
	}
	doms := countNamed(mustVirsh(t, "list", "--all", "--name"), prefix+"-")
	vols := countNamed(mustVirsh(t, "vol-list", pool), prefix+"-")
	if doms != 10 || vols != 20 {
		t.Errorf("the host holds %d domains and %d volumes of this configuration, want 10 and 20", doms, vols)
	}
	var errs []string
	for _, m := range regexp.MustCompile(`Error: (.*)`).FindAllStringSubmatch(first.out, -1) {
		errs = append(errs, m[1])
	}
	t.Logf("errors of the broken apply: %q", errs)
	faultRow(t, "libvirtd restarted as the creates begin (10 domains, 20 volumes) | exit %d after %s, %d errors, none a duplicate create | %d domains, %d volumes beyond state | converged, plan empty",
		first.code, took.Round(100*time.Millisecond), len(errs), doms-10, vols-20)
	if out, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Errorf("destroy failed:\n%s", out)
	}
}

// TestFault_providerKilledMidUpload kills the provider (SIGKILL) while it
// streams a 64 MiB image served at 8 MiB/s. The half-written volume is never
// taken for complete: the next apply refuses it, naming the volume and the
// command that removes it; after that command the apply converges.
func TestFault_providerKilledMidUpload(t *testing.T) {
	testAccPreCheck(t)
	const name = "tfflt-kill.img"
	pool := testAccPool()
	_, _ = virsh("vol-delete", "--pool", pool, name)
	t.Cleanup(func() { _, _ = virsh("vol-delete", "--pool", pool, name) })
	const size = 64 << 20
	srv := slowContent(t, size, 'z')
	dir := t.TempDir()
	tofu := tofuWorkdir(t, dir, renderConfig(`
resource "libvirt_volume" "v" {
  name   = {{q .Name}}
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/image.raw" } }
}
`, map[string]string{"Name": name, "Pool": pool, "URL": srv.URL}))
	done := make(chan int, 1)
	go func() {
		_, code := tofu("apply", "-input=false", "-no-color", "-auto-approve")
		done <- code
	}()
	// kill the plugin once the upload runs
	bin := filepath.Join(dir, "bin", "terraform-provider-libvirt")
	var killed bool
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && !killed; time.Sleep(200 * time.Millisecond) {
		if _, err := virsh("vol-info", "--pool", pool, name); err != nil {
			continue // not created yet
		}
		time.Sleep(2 * time.Second)
		out, _ := exec.Command("pgrep", "-f", bin).Output()
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				killed = true
			}
		}
	}
	if !killed {
		t.Fatal("the provider was never seen uploading")
	}
	firstCode := <-done
	if _, err := virsh("vol-info", "--pool", pool, name); err != nil {
		t.Fatalf("the test needs the half-written volume to remain after SIGKILL: %v", err)
	}

	out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve")
	fix := fmt.Sprintf("virsh vol-delete --pool %s %s", pool, name)
	if code == 0 || !regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(fix), " ", `\s+`)).MatchString(out) {
		t.Fatalf("the apply after the kill took the half-written volume or did not name the fix %q (exit %d):\n%s", fix, code, out)
	}
	mustVirsh(t, strings.Fields(fix)[1:]...)
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("the apply after %q failed (exit %d):\n%s", fix, code, out)
	}
	info := mustVirsh(t, "vol-info", "--pool", pool, "--bytes", name)
	if !regexp.MustCompile(`Capacity:\s+` + strconv.Itoa(size) + ` bytes`).MatchString(info) {
		t.Errorf("the volume after the fix is not the whole image:\n%s", info)
	}
	faultRow(t, "provider SIGKILLed mid-upload (64 MiB at 8 MiB/s) | exit %d | 1 half-written volume | refused, naming %q; converged after it", firstCode, fix)
	if out, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Errorf("destroy failed:\n%s", out)
	}
}

// startTofu runs tofu in the background and returns a wait function with
// its exit code and output.
func startTofu(t *testing.T, dir string, args ...string) (*exec.Cmd, func() (int, string)) {
	t.Helper()
	cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), args...)
	cmd.Dir = filepath.Join(dir, "work")
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+filepath.Join(dir, "cli.tfrc"), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, func() (int, string) {
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return code, out.String()
	}
}

// waitVolume waits until the named volume exists (the upload has begun).
func waitVolume(t *testing.T, pool, name string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if _, err := virsh("vol-info", "--pool", pool, name); err == nil {
			time.Sleep(time.Second)
			return
		}
	}
	t.Fatalf("volume %s never appeared", name)
}

// TestFault_frozenPathAndInterrupt runs tofu against libvirtd through a relay
// that freezes, and interrupts it:
//   - frozen before plan: the plan fails (handshake deadline);
//   - frozen during an upload: the apply fails (keepalive);
//   - SIGINT during an upload on a healthy path: tofu exits promptly and the
//     half-written volume is deleted;
//   - SIGINT during an upload on a frozen path: tofu exits promptly.
func TestFault_frozenPathAndInterrupt(t *testing.T) {
	testAccPreCheck(t)
	pool := testAccPool()
	const name = "tfflt-frozen.img"
	_, _ = virsh("vol-delete", "--pool", pool, name)
	t.Cleanup(func() { _, _ = virsh("vol-delete", "--pool", pool, name) })
	relay := testrelay.New(t, "/var/run/libvirt/libvirt-sock")
	img := slowContent(t, 64<<20, 0)
	dir := t.TempDir()
	tofuWorkdir(t, dir, faultRelayProvider(relay.Addr())+renderConfig(`
resource "libvirt_volume" "small" {
  name     = "tfflt-frozen-small.img"
  pool     = {{q .Pool}}
  capacity = 1048576
}

resource "libvirt_volume" "v" {
  name   = {{q .Name}}
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/image.raw" } }
}
`, map[string]string{"Name": name, "Pool": pool, "URL": img.URL}))
	t.Cleanup(func() { _, _ = virsh("vol-delete", "--pool", pool, "tfflt-frozen-small.img") })
	_, wait := startTofu(t, dir, "apply", "-input=false", "-no-color", "-auto-approve", "-target=libvirt_volume.small")
	if code, out := wait(); code != 0 {
		t.Fatalf("applying the small volume (exit %d):\n%s", code, out)
	}

	// 1. frozen before plan: the refresh of the small volume needs libvirtd
	relay.Set(true)
	start := time.Now()
	_, wait = startTofu(t, dir, "plan", "-input=false", "-no-color")
	code, out := wait()
	took := time.Since(start)
	relay.Set(false)
	if code == 0 || took > 30*time.Second || !strings.Contains(out, "did not answer the handshake") {
		t.Errorf("plan through a frozen path: exit %d after %s, want an error within 30 s naming the handshake:\n%s", code, took, out)
	}
	faultRow(t, "path frozen before plan | exit %d after %s (no answer to the handshake) | nothing | -", code, took.Round(100*time.Millisecond))

	// 1b. frozen during a plan, after the handshake: half-way through the
	// bytes a healthy plan exchanges
	before := relay.Relayed()
	_, wait = startTofu(t, dir, "plan", "-input=false", "-no-color", "-target=libvirt_volume.small")
	if code, out := wait(); code != 0 {
		t.Fatalf("healthy plan (exit %d):\n%s", code, out)
	}
	healthy := relay.Relayed() - before
	for _, interrupt := range []bool{false, true} {
		base := relay.Relayed()
		relay.FreezeAfter(healthy / 2)
		cmd, wait := startTofu(t, dir, "plan", "-input=false", "-no-color", "-target=libvirt_volume.small")
		// the freeze happens within moments; wait until it did
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if relay.Relayed()-base >= healthy/2 {
				break
			}
		}
		start = time.Now()
		if interrupt {
			time.Sleep(time.Second)
			start = time.Now()
			_ = cmd.Process.Signal(syscall.SIGINT)
		}
		code, out = wait()
		took = time.Since(start)
		relay.Set(false)
		handshake := strings.Contains(out, "did not answer the handshake")
		switch {
		case code == 0:
			t.Errorf("plan through a path frozen mid-plan succeeded:\n%s", out)
		case handshake:
			t.Errorf("the path froze during the handshake, not during the plan (calibration: %d bytes for a healthy plan):\n%s", healthy, out)
		case !interrupt && took > 30*time.Second:
			t.Errorf("plan through a path frozen mid-plan: error after %s, want within 30 s:\n%s", took, out)
		case interrupt && took > 10*time.Second:
			t.Errorf("tofu took %s to exit after SIGINT on a path frozen mid-plan:\n%s", took, out)
		}
		if interrupt {
			faultRow(t, "SIGINT during a plan on a path frozen mid-plan | tofu exit %d %s after SIGINT | nothing | -", code, took.Round(10*time.Millisecond))
		} else {
			faultRow(t, "path frozen during a plan (after %d of its %d bytes) | exit %d after %s (keepalive) | nothing | -", healthy/2, healthy, code, took.Round(100*time.Millisecond))
		}
	}

	// 2. frozen during an upload
	_, wait = startTofu(t, dir, "apply", "-input=false", "-no-color", "-auto-approve")
	waitVolume(t, pool, name)
	relay.Set(true)
	start = time.Now()
	code, out = wait()
	took = time.Since(start)
	relay.Set(false)
	if code == 0 || took > 45*time.Second {
		t.Errorf("apply through a path frozen during the upload: exit %d %s after the freeze, want an error within 45 s:\n%s", code, took, out)
	}
	_, leftErr := virsh("vol-info", "--pool", pool, name)
	left := "nothing"
	if leftErr == nil {
		left = "the half-written volume (named with its vol-delete command by the next apply)"
		_, _ = virsh("vol-delete", "--pool", pool, name)
	}
	faultRow(t, "path frozen during an upload | exit %d %s after the freeze (keepalive) | %s | -", code, took.Round(10*time.Millisecond), left)

	// 3. SIGINT during an upload, healthy path
	cmd, wait := startTofu(t, dir, "apply", "-input=false", "-no-color", "-auto-approve")
	waitVolume(t, pool, name)
	start = time.Now()
	_ = cmd.Process.Signal(syscall.SIGINT)
	code, out = wait()
	took = time.Since(start)
	if took > 10*time.Second {
		t.Errorf("tofu took %s to exit after SIGINT during an upload:\n%s", took, out)
	}
	if _, err := virsh("vol-info", "--pool", pool, name); err == nil {
		t.Errorf("SIGINT left the half-written volume:\n%s", out)
		_, _ = virsh("vol-delete", "--pool", pool, name)
	}
	faultRow(t, "SIGINT during an upload | tofu exit %d %s after SIGINT | nothing (partial volume deleted) | -", code, took.Round(10*time.Millisecond))

	// 4. SIGINT during an upload, frozen path
	cmd, wait = startTofu(t, dir, "apply", "-input=false", "-no-color", "-auto-approve")
	waitVolume(t, pool, name)
	relay.Set(true)
	time.Sleep(time.Second)
	start = time.Now()
	_ = cmd.Process.Signal(syscall.SIGINT)
	code, out = wait()
	took = time.Since(start)
	relay.Set(false)
	if took > 10*time.Second {
		t.Errorf("tofu took %s to exit after SIGINT on a frozen path:\n%s", took, out)
	}
	left = "nothing"
	if _, err := virsh("vol-info", "--pool", pool, name); err == nil {
		left = "the half-written volume (the path was frozen: named by the next apply)"
	}
	faultRow(t, "SIGINT during an upload on a frozen path | tofu exit %d %s after SIGINT | %s | -", code, took.Round(10*time.Millisecond), left)
}

// TestFault_relayKilledDuringParallelApply kills the network path (a relay,
// as a killed socat) while 30 volumes (10 of them uploads of 16 MiB at
// 8 MiB/s) and 10 domains are created with -parallelism=20. tofu must exit
// within 60 s of the kill; then the path comes back and the next apply must
// converge with nothing imported or deleted by hand.
func TestFault_relayKilledDuringParallelApply(t *testing.T) {
	testAccPreCheck(t)
	const prefix = "tfflt-cut"
	pool := testAccPool()
	cleanup := func() { faultFleetCleanup(prefix, pool, 10, 30) }
	cleanup()
	t.Cleanup(cleanup)
	relay := testrelay.New(t, "/var/run/libvirt/libvirt-sock")
	content := slowContent(t, 16<<20, 0).URL + "/image.raw"
	dir := t.TempDir()
	tofu := tofuWorkdir(t, dir, faultFleetConfig(prefix, pool, content, faultRelayProvider(relay.Addr()), 20, 10, 10))

	_, wait := startTofu(t, dir, "apply", "-input=false", "-no-color", "-auto-approve", "-parallelism=20")
	// kill the path once the creates have begun and some domains exist
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if out, err := virsh("list", "--all", "--name"); err == nil && countNamed(out, prefix+"-") > 0 {
			break
		}
	}
	relay.Kill()
	killed := time.Now()
	code, out := wait()
	took := time.Since(killed)
	if code == 0 {
		t.Logf("the apply finished before the kill took effect:\n%s", out)
	}
	if took > 60*time.Second {
		t.Errorf("tofu exited %s after the path was killed, want within 60 s", took)
	}
	// what exists on the host but in no state (tainted entries count as in
	// state: the next apply replaces them)
	outside := namesOutsideState(t, tofu, pool, prefix)
	var errs []string
	for _, m := range regexp.MustCompile(`Error: (.*)`).FindAllStringSubmatch(out, -1) {
		errs = append(errs, m[1])
	}
	t.Logf("broken apply: exit %d, %d errors %q; outside state: %q", code, len(errs), errs, outside)

	relay.Revive(t)
	out2, code2 := tofu("apply", "-input=false", "-no-color", "-auto-approve", "-parallelism=20")
	if code2 != 0 {
		t.Fatalf("the apply after the path came back did not converge (exit %d):\n%s", code2, out2)
	}
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("the plan after the second apply is not empty (exit %d):\n%s", code, out)
	}
	doms := countNamed(mustVirsh(t, "list", "--all", "--name"), prefix+"-")
	vols := countNamed(mustVirsh(t, "vol-list", pool), prefix+"-")
	if doms != 10 || vols != 30 {
		t.Errorf("the host holds %d domains and %d volumes of this configuration, want 10 and 30", doms, vols)
	}
	faultRow(t, "path killed during 30 volumes + 10 domains at -parallelism=20 | exit %d %s after the kill, %d errors | %d objects outside state | converged, plan empty",
		code, took.Round(100*time.Millisecond), len(errs), len(outside))
	if out, code := tofu("destroy", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Errorf("destroy failed:\n%s", out)
	}
}

// namesOutsideState lists the domains and volumes named prefix-* that exist
// on the host but are in no resource of the state.
func namesOutsideState(t *testing.T, tofu func(args ...string) (string, int), pool, prefix string) []string {
	t.Helper()
	show, code := tofu("show", "-json")
	if code != 0 {
		t.Fatalf("tofu show -json:\n%s", show)
	}
	var st struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Values map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(show), &st); err != nil {
		t.Fatalf("state JSON: %v", err)
	}
	known := map[string]bool{}
	for _, r := range st.Values.RootModule.Resources {
		if n, ok := r.Values["name"].(string); ok {
			known[n] = true
		}
	}
	var outside []string
	for _, listing := range []string{mustVirsh(t, "list", "--all", "--name"), mustVirsh(t, "vol-list", pool)} {
		for _, l := range strings.Split(listing, "\n") {
			if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], prefix+"-") && !known[f[0]] {
				outside = append(outside, f[0])
			}
		}
	}
	return outside
}

// faultRelayProvider is the terraform and provider blocks of a case whose
// provider reaches libvirtd through the relay at relayAddr (host:port).
func faultRelayProvider(relayAddr string) string {
	return renderConfig("\n"+virtxmlRequiredProviders+`
provider "libvirt" {
  uri = "qemu+tcp://{{.RelayAddr}}/system"
}
`, map[string]string{"RelayAddr": relayAddr})
}

// faultFleetConfig is the configuration of the parallel-apply fault cases:
// empties empty volumes, uploads volumes filled from content, and domains
// domains each using one empty volume, all named prefix-N; provider is the
// terraform and provider blocks ("" for the test's default).
func faultFleetConfig(prefix, pool, content, provider string, empties, uploads, domains int) string {
	return provider + renderConfig(`
resource "libvirt_volume" "empty" {
  count    = {{.Empties}}
  name     = "{{.Prefix}}-${count.index}.img"
  pool     = {{q .Pool}}
  capacity = 1048576
}

resource "libvirt_volume" "uploaded" {
  count  = {{.Uploads}}
  name   = "{{.Prefix}}-${count.index + {{.Empties}}}.img"
  pool   = {{q .Pool}}
  create = { content = { url = {{q .ContentURL}} } }
}

resource "libvirt_domain" "vm" {
  count       = {{.Domains}}
  name        = "{{.Prefix}}-${count.index}"
  type        = {{q domainType}}
  memory      = 32
  memory_unit = "MiB"
  os          = { type = "hvm" }
  devices = {
    disks = [{ source = { volume = { pool = {{q .Pool}}, volume = libvirt_volume.empty[count.index].name } }, target = { dev = "vda" } }]
  }
}
`, map[string]any{"Prefix": prefix, "Pool": pool, "ContentURL": content, "Domains": domains, "Empties": empties, "Uploads": uploads})
}

// faultFleetCleanup removes what a fault case may have left: domains
// prefix-0.. and volumes prefix-0.img...
func faultFleetCleanup(prefix, pool string, domains, volumes int) {
	for i := 0; i < domains; i++ {
		_, _ = virsh("destroy", fmt.Sprintf("%s-%d", prefix, i))
		_, _ = virsh("undefine", fmt.Sprintf("%s-%d", prefix, i))
	}
	for i := 0; i < volumes; i++ {
		_, _ = virsh("vol-delete", "--pool", pool, fmt.Sprintf("%s-%d.img", prefix, i))
	}
}
