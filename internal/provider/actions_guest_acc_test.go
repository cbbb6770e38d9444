package provider

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

// The day-2 actions against the booted test guest, driven through Terraform
// 1.15's CLI (terraform-plugin-testing 1.16 cannot invoke actions):
// `terraform apply -invoke=action.TYPE.NAME` with a freshly built provider
// under dev_overrides. The guest is observed through its guest agent only.

const (
	actName = "tfact-guest"
	// actBaseMiB is the root overlay's first capacity: the guest image's size.
	actBaseMiB = 2048
	// actGrowMiB is what the root and data volumes grow by before fs_grow.
	actGrowMiB = 512
	// actDataMiB is the data volume's first capacity.
	actDataMiB = 512
)

// actVolumes in the order they are removed after an interrupted run
// (the base last: the root overlay's backing file).
var actVolumes = []string{actName + "-base.qcow2", actName + "-root.qcow2", actName + "-data.qcow2"}

// actConfig is the guest (no network, no seed: the agent is all the test
// talks to) and one action block of each kind.
const actConfig = `
resource "libvirt_volume" "base" {
  name   = {{q .Base}}
  pool   = {{q .Pool}}
  create = { content = { url = {{q .Image}} } }
  target = { format = { type = "qcow2" } }
}

resource "libvirt_volume" "root" {
  name          = {{q .Root}}
  pool          = {{q .Pool}}
  capacity      = {{.CapacityMiB}}
  capacity_unit = "MiB"
  # qcow2 v3: QEMU resizes no v2 image with internal snapshots
  target = { format = { type = "qcow2" }, compat = "1.1" }
  backing_store = { path = libvirt_volume.base.path, format = { type = "qcow2" } }
}

resource "libvirt_volume" "data" {
  name          = {{q .Data}}
  pool          = {{q .Pool}}
  capacity      = {{.DataMiB}}
  capacity_unit = "MiB"
  target        = { format = { type = "qcow2" }, compat = "1.1" }
}

resource "libvirt_domain" "guest" {
  name             = {{q .Name}}
  type             = {{q .Type}}
  memory           = 512
  memory_unit      = "MiB"
  vcpu             = 1
  running          = true
  shutdown_timeout = "0s"
  features         = { acpi = true }

  os = {
    type    = "hvm"
    kernel  = {{q .Kernel}}
    initrd  = {{q .Initrd}}
    cmdline = "root=/dev/vda rw console=ttyS0 net.ifnames=0"
  }

  devices = {
    disks = [
      {
        source = { volume = { pool = libvirt_volume.root.pool, volume = libvirt_volume.root.name } }
        target = { dev = "vda", bus = "virtio" }
        driver = { name = "qemu", type = "qcow2" }
      },
      {
        source = { volume = { pool = libvirt_volume.data.pool, volume = libvirt_volume.data.name } }
        target = { dev = "vdb", bus = "virtio" }
        driver = { name = "qemu", type = "qcow2" }
      },
    ]
    serials  = [{ source = { file = { path = {{q .Console}} } }, target = { port = 0 } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
    channels = [{
      source = { unix = {} }
      target = { virt_io = { name = "org.qemu.guest_agent.0" } }
    }]
  }
}

action "libvirt_domain_reboot" "reboot" {
  config {
    domain = libvirt_domain.guest.id
  }
}

action "libvirt_domain_snapshot_revert" "internal" {
  config {
    domain   = libvirt_domain.guest.id
    snapshot = "before"
  }
}

action "libvirt_domain_snapshot_revert" "external" {
  config {
    domain   = libvirt_domain.guest.name
    snapshot = "external"
  }
}

action "libvirt_domain_fs_grow" "root" {
  config {
    domain = libvirt_domain.guest.id
    path   = "/"
  }
}

action "libvirt_domain_fs_grow" "data" {
  config {
    domain = libvirt_domain.guest.id
    path   = "/mnt/data"
  }
}

action "libvirt_domain_shutdown" "slow" {
  config {
    domain  = libvirt_domain.guest.id
    timeout = "10m"
  }
}

action "libvirt_domain_shutdown" "off" {
  config {
    domain  = libvirt_domain.guest.id
    timeout = "3m"
  }
}
`

// actCLI runs one Terraform binary in one root module.
type actCLI struct {
	t         *testing.T
	bin, root string
	env       []string
}

func (c actCLI) run(args ...string) (string, error) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.root
	cmd.Env = append(os.Environ(), c.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (c actCLI) mustRun(args ...string) string {
	c.t.Helper()
	out, err := c.run(args...)
	if err != nil {
		c.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// invoke runs one action and fails unless the state file is byte for byte
// what it was: an action changes nothing in state.
func (c actCLI) invoke(action string) (string, error) {
	c.t.Helper()
	before := fileSum(c.t, filepath.Join(c.root, "terraform.tfstate"))
	start := time.Now()
	out, err := c.run("apply", "-auto-approve", "-no-color", "-refresh=false", "-invoke=action."+action)
	c.t.Logf("terraform apply -invoke=action.%s (%v):\n%s", action, time.Since(start).Round(time.Second), out)
	if after := fileSum(c.t, filepath.Join(c.root, "terraform.tfstate")); after != before {
		c.t.Errorf("invoking %s changed the state file", action)
	}
	return out, err
}

func fileSum(t *testing.T, file string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// actTerraform is Terraform 1.15 (the first test-matrix release with
// actions); in CI its absence fails the test.
func actTerraform(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("TERRAFORM_115")
	if bin != "" {
		if _, err := os.Stat(bin); err == nil {
			return bin
		}
	}
	msg := "TERRAFORM_115 does not name a Terraform 1.15 binary (scripts/testenv.sh exports it): the actions need Terraform 1.14 or later"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// buildProviderForCLI builds the provider and writes a CLI configuration
// that makes Terraform use it for virtxml/libvirt.
func buildProviderForCLI(t *testing.T, dir string) (cliConfig string) {
	t.Helper()
	binDir := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(binDir, "terraform-provider-libvirt"), ".")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	cliConfig = filepath.Join(dir, "cli.tfrc")
	mustWrite(t, cliConfig, cliOverrides{BinDir: binDir, Registries: []string{"registry.terraform.io"}, NoCheckpoint: true}.config())
	return cliConfig
}

func TestAccActions_guest(t *testing.T) {
	guestDir := e2eGuestDir(t)
	testAccPreCheck(t)
	tf := actTerraform(t)
	actRemoveLeftovers(t)

	dir := t.TempDir()
	cli := actCLI{t: t, bin: tf, root: filepath.Join(dir, "root"),
		env: []string{"TF_CLI_CONFIG_FILE=" + buildProviderForCLI(t, dir), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1"}}
	// qemu runs as another user: the console log's directory must be traversable
	work, err := os.MkdirTemp("/var/tmp", actName+".")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(work) })
	consoleLog := filepath.Join(work, "console.log")
	write := func(capacityMiB, dataMiB int) {
		mustWrite(t, filepath.Join(cli.root, "versions.tf"), "terraform {\n  required_providers {\n    libvirt = { source = \"virtxml/libvirt\" }\n  }\n}\n")
		mustWrite(t, filepath.Join(cli.root, "main.tf"), testConfig(actConfig, map[string]any{
			"Name": actName, "Base": actVolumes[0], "Root": actVolumes[1], "Pool": testAccPool(), "Type": testAccDomainType(),
			"Image": guestDir + "/root.qcow2", "Kernel": guestDir + "/vmlinuz", "Initrd": guestDir + "/initrd.img",
			"Console": consoleLog, "CapacityMiB": capacityMiB, "Data": actVolumes[2], "DataMiB": dataMiB,
		}))
	}
	t.Cleanup(func() {
		if out, err := cli.run("destroy", "-auto-approve", "-no-color"); err != nil {
			t.Errorf("terraform destroy: %v\n%s", err, out)
		}
		actRemoveLeftovers(t)
		if t.Failed() {
			if b, err := os.ReadFile(consoleLog); err == nil {
				t.Logf("guest console (last 3000 bytes):\n%s", tail(string(b), 3000))
			}
		}
	})

	write(actBaseMiB, actDataMiB)
	start := time.Now()
	cli.mustRun("apply", "-auto-approve", "-no-color")
	c, err := libvirtconn.New(testAccURI())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	uuid, _, err := libvirtops.Domains(c).Identify(ctx, actName)
	if err != nil {
		t.Fatal(err)
	}
	agent, err := libvirtops.Domains(c).Agent(uuid)
	if err != nil {
		t.Fatal(err)
	}
	boot1 := actWaitBootID(t, agent, "", 8*time.Minute)
	t.Logf("guest up after %v, boot id %s", time.Since(start).Round(time.Second), boot1)

	// Cancellation: this guest ignores shutdown requests until the shim
	// below is in place, so the shutdown waits for its 10m timeout; an
	// interrupt (Terraform stops the provider) ends it at once and leaves
	// the domain running.
	actInterruptedShutdown(t, cli, c, uuid)

	// The test guest has no D-Bus, hence no systemd-logind: it ignores the
	// ACPI power button, and the guest agent's `shutdown -r +0` (a
	// scheduled shutdown, which needs logind) fails. A shim in its place
	// (on this test's overlay, not in the shared image) runs systemctl,
	// which talks to PID 1 directly, as a guest with logind would.
	actGuestRun(t, agent, "/bin/sh", "-c", `set -e
mv /usr/sbin/shutdown /usr/sbin/shutdown.systemd
printf '#!/bin/sh\ncase " $* " in *" -r "*) exec systemctl reboot ;; *) exec systemctl poweroff ;; esac\n' >/usr/sbin/shutdown
chmod 755 /usr/sbin/shutdown
sync`)
	// A partitioned disk for fs_grow: vdb with one GPT partition filling
	// it, ext4, mounted on /mnt/data (not in fstab: the reboot below
	// unmounts it, and it is mounted again after)
	actGuestRun(t, agent, "/bin/sh", "-c", `set -e
printf 'label: gpt\n,,L\n' | sfdisk --quiet /dev/vdb
udevadm settle
mkfs.ext4 -q /dev/vdb1`)

	// reboot: the guest comes back with another boot id
	start = time.Now()
	out, err := cli.invoke("libvirt_domain_reboot.reboot")
	if err != nil {
		t.Fatalf("reboot: %v\n%s", err, out)
	}
	if !strings.Contains(out, actName+": reboot requested") {
		t.Errorf("the reboot reported no progress:\n%s", out)
	}
	boot2 := actWaitBootID(t, agent, boot1, 8*time.Minute)
	t.Logf("rebooted in %v, boot id %s", time.Since(start).Round(time.Second), boot2)
	actGuestRun(t, agent, "/bin/sh", "-c", "mkdir -p /mnt/data && mount /dev/vdb1 /mnt/data")

	// snapshot revert: an internal snapshot, a file written after it, the
	// revert; the file is gone
	if err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		dom, err := l.DomainLookupByName(actName)
		if err != nil {
			return err
		}
		_, err = l.DomainSnapshotCreateXML(dom, "<domainsnapshot><name>before</name></domainsnapshot>", 0)
		return err
	}); err != nil {
		t.Fatalf("internal snapshot: %v", err)
	}
	const marker = "/root/written-after-snapshot"
	actGuestRun(t, agent, "/bin/sh", "-c", "echo after > "+marker+" && sync")
	if got := actGuestRun(t, agent, "/bin/cat", marker); strings.TrimSpace(got) != "after" {
		t.Fatalf("the marker file reads %q before the revert", got)
	}
	start = time.Now()
	out, err = cli.invoke("libvirt_domain_snapshot_revert.internal")
	if err != nil {
		t.Fatalf("revert: %v\n%s", err, out)
	}
	if !strings.Contains(out, "reverted to snapshot before; the domain is running") {
		t.Errorf("the revert reported no progress:\n%s", out)
	}
	if err := actWaitAgent(agent, 5*time.Minute); err != nil {
		t.Fatalf("after the revert: %v", err)
	}
	res, err := agent.Exec(ctx, "/usr/bin/test", []string{"-e", marker}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 {
		t.Errorf("%s still exists after the revert to the snapshot taken before it was written", marker)
	}
	if got := strings.TrimSpace(actGuestRun(t, agent, "/bin/cat", "/proc/sys/kernel/random/boot_id")); got != boot2 {
		t.Errorf("boot id after the revert %q, want the snapshot's %q (memory state reverted)", got, boot2)
	}
	t.Logf("reverted in %v", time.Since(start).Round(time.Second))

	// an external snapshot (its metadata only, redefined) is refused with
	// the reason, before libvirt is asked
	actRedefineExternalSnapshot(t, c)
	out, err = cli.invoke("libvirt_domain_snapshot_revert.external")
	if err == nil {
		t.Errorf("the revert to an external snapshot succeeded:\n%s", out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"Cannot revert to an external snapshot", `snapshot "external" keeps its disk vda, disk vdb in separate files`, "libvirt 9.9 or later"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the external-snapshot error lacks %q:\n%s", want, out)
		}
	}

	// fs_grow: the root volume grows live (an apply of a larger capacity),
	// then the action grows the whole-disk ext4 in the guest
	sizeBefore, dataBefore := actDfBytes(t, agent, "/"), actDfBytes(t, agent, "/mnt/data")
	write(actBaseMiB+actGrowMiB, actDataMiB+actGrowMiB)
	cli.mustRun("apply", "-auto-approve", "-no-color")
	out, err = cli.invoke("libvirt_domain_fs_grow.root")
	if err != nil {
		t.Fatalf("fs_grow: %v\n%s", err, out)
	}
	if !strings.Contains(out, "/dev/vda is a whole disk") {
		t.Errorf("fs_grow did not report the whole-disk case:\n%s", out)
	}
	actCheckGrown(t, "/", sizeBefore, actDfBytes(t, agent, "/"))

	// the partitioned disk: no growpart in the guest, so sfdisk and partx
	out, err = cli.invoke("libvirt_domain_fs_grow.data")
	if err != nil {
		t.Fatalf("fs_grow /mnt/data: %v\n%s", err, out)
	}
	for _, want := range []string{"growing partition 1 of /dev/vdb", "growpart is not installed in the guest: growing the partition with sfdisk and partx"} {
		if !strings.Contains(out, want) {
			t.Errorf("fs_grow /mnt/data did not report %q:\n%s", want, out)
		}
	}
	actCheckGrown(t, "/mnt/data", dataBefore, actDfBytes(t, agent, "/mnt/data"))

	// shutdown: graceful within the timeout; the domain is shut off
	out, err = cli.invoke("libvirt_domain_shutdown.off")
	if err != nil {
		t.Fatalf("shutdown: %v\n%s", err, out)
	}
	if state, err := libvirtops.Domains(c).State(ctx, uuid); err != nil || state != "shut off" {
		t.Errorf("after the shutdown action the domain is %q (%v), want shut off", state, err)
	}
	if !strings.Contains(out, actName+": shut down") {
		t.Errorf("the shutdown did not report a graceful stop:\n%s", out)
	}
	// a second shutdown leaves the stopped domain alone
	out, err = cli.invoke("libvirt_domain_shutdown.off")
	if err != nil || !strings.Contains(out, actName+": already shut off") {
		t.Errorf("shutdown of a stopped domain: %v\n%s", err, out)
	}
}

// actInterruptedShutdown starts the slow shutdown, interrupts Terraform
// (SIGINT, as Ctrl-C) once the action reported that it waits, and checks
// that Terraform and the provider ended soon after and that the domain was
// not forced off: the wait was abandoned, not finished. Terraform sends
// StopProvider, which cancels the action's context; whether it prints the
// action's "context canceled" (exit code 1) or exits before that answer
// arrives ("Apply complete!", exit code 0) is a race in Terraform 1.15, so
// neither is asserted; the provider log shows the StopProvider.
func actInterruptedShutdown(t *testing.T, cli actCLI, c *libvirtconn.Client, uuid string) {
	t.Helper()
	providerLog := filepath.Join(t.TempDir(), "provider.log")
	cmd := exec.Command(cli.bin, "apply", "-auto-approve", "-no-color", "-refresh=false", "-invoke=action.libvirt_domain_shutdown.slow")
	cmd.Dir = cli.root
	cmd.Env = append(os.Environ(), append(cli.env, "TF_LOG_PROVIDER=TRACE", "TF_LOG_PATH="+providerLog)...)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waiting := "waiting up to 10m0s for the guest to stop"
	for deadline := time.Now().Add(3 * time.Minute); !strings.Contains(out.String(), waiting); time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the shutdown never reported %q:\n%s", waiting, out.String())
		}
	}
	interrupted := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Logf("interrupted shutdown: Terraform ended %v after SIGINT (exit: %v):\n%s", time.Since(interrupted).Round(100*time.Millisecond), err, out.String())
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("Terraform still ran a minute after SIGINT:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "Stopping operation...") {
		t.Errorf("Terraform did not stop the operation:\n%s", out.String())
	}
	// the provider process is gone with Terraform: nothing is left to force
	// the domain off when the 10 minutes are over
	provider := filepath.Join(filepath.Dir(cli.envValue("TF_CLI_CONFIG_FILE")), "bin", "terraform-provider-libvirt")
	time.Sleep(2 * time.Second)
	if pids := processesOf(provider); len(pids) > 0 {
		t.Errorf("provider processes %v still run after the interrupted invocation", pids)
	}
	if b, err := os.ReadFile(providerLog); err == nil {
		t.Logf("the provider received StopProvider (cancels the action's context): %v", strings.Contains(string(b), "tf_rpc=StopProvider"))
	}
	time.Sleep(5 * time.Second)
	if state, err := libvirtops.Domains(c).State(context.Background(), uuid); err != nil || state != "running" {
		t.Errorf("after the interrupted shutdown the domain is %q (%v), want running", state, err)
	}
}

// envValue returns the value of NAME in the CLI's environment.
func (c actCLI) envValue(name string) string {
	for _, kv := range c.env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// processesOf lists the processes running the program at path.
func processesOf(path string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == path {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// actWaitBootID waits until the guest agent answers with a boot id other
// than not, and returns it.
func actWaitBootID(t *testing.T, agent libvirtops.GuestAgent, not string, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		res, err := agent.Exec(context.Background(), "/bin/cat", []string{"/proc/sys/kernel/random/boot_id"}, nil)
		if err == nil && res.ExitCode == 0 {
			if id := strings.TrimSpace(res.Stdout); id != "" && id != not {
				return id
			}
			last = fmt.Errorf("boot id still %s", not)
		} else {
			last = err
		}
		time.Sleep(2 * time.Second)
	}
	t.Fatalf("no new boot id within %v: %v", timeout, last)
	return ""
}

func actWaitAgent(agent libvirtops.GuestAgent, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := agent.Ping(context.Background())
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the guest agent did not answer within %v: %w", timeout, err)
		}
		time.Sleep(2 * time.Second)
	}
}

// actGuestRun runs a command in the guest and returns its output; a
// non-zero exit fails the test.
func actGuestRun(t *testing.T, agent libvirtops.GuestAgent, path string, args ...string) string {
	t.Helper()
	res, err := agent.Exec(context.Background(), path, args, nil)
	if err != nil {
		t.Fatalf("%s %v in the guest: %v", path, args, err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("%s %v in the guest: exit code %d: %s", path, args, res.ExitCode, res.Stderr)
	}
	return res.Stdout
}

// actCheckGrown checks that a filesystem grew by about actGrowMiB (less
// the new block groups' metadata).
func actCheckGrown(t *testing.T, mountpoint string, before, after uint64) {
	t.Helper()
	grown := int64(after) - int64(before)
	t.Logf("df %s: %d -> %d bytes (+%d MiB)", mountpoint, before, after, grown>>20)
	if grown < (actGrowMiB-64)<<20 || grown > actGrowMiB<<20 {
		t.Errorf("the filesystem on %s grew by %d MiB, want about %d MiB", mountpoint, grown>>20, actGrowMiB)
	}
}

// actDfBytes is the size of a filesystem in the guest as df reports it.
func actDfBytes(t *testing.T, agent libvirtops.GuestAgent, mountpoint string) uint64 {
	t.Helper()
	out := actGuestRun(t, agent, "/bin/df", "--block-size=1", "--output=size", mountpoint)
	f := strings.Fields(out)
	if len(f) != 2 {
		t.Fatalf("df printed %q", out)
	}
	n, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		t.Fatalf("df printed %q: %v", out, err)
	}
	return n
}

// actRedefineExternalSnapshot records an external disk snapshot in the
// guest's snapshot list without creating its overlay (a redefine): the
// revert must refuse it from its description alone.
func actRedefineExternalSnapshot(t *testing.T, c *libvirtconn.Client) {
	t.Helper()
	err := c.Do(context.Background(), func(l *libvirt.Libvirt) error {
		dom, err := l.DomainLookupByName(actName)
		if err != nil {
			return err
		}
		// a redefined snapshot carries the domain's definition
		domXML, err := l.DomainGetXMLDesc(dom, libvirt.DomainXMLInactive)
		if err != nil {
			return err
		}
		xml := fmt.Sprintf(`<domainsnapshot>
  <name>external</name>
  <state>disk-snapshot</state>
  <creationTime>%d</creationTime>
  <memory snapshot='no'/>
  <disks>
    <disk name='vda' snapshot='external' type='file'>
      <source file='/nonexistent/%s-external-vda.qcow2'/>
    </disk>
    <disk name='vdb' snapshot='external' type='file'>
      <source file='/nonexistent/%s-external-vdb.qcow2'/>
    </disk>
  </disks>
  %s
</domainsnapshot>`, time.Now().Unix(), actName, actName, domXML)
		_, err = l.DomainSnapshotCreateXML(dom, xml, uint32(libvirt.DomainSnapshotCreateRedefine))
		return err
	})
	if err != nil {
		t.Fatalf("redefining an external snapshot: %v", err)
	}
}

// actRemoveLeftovers removes what an interrupted run left: the domain with
// its snapshot metadata, then the volumes (overlay before base).
func actRemoveLeftovers(t *testing.T) {
	t.Helper()
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		if dom, err := l.DomainLookupByName(actName); err == nil {
			t.Logf("removing domain %s left behind", actName)
			_ = l.DomainDestroy(dom)
			if err := l.DomainUndefineFlags(dom, libvirt.DomainUndefineNvram|libvirt.DomainUndefineManagedSave|libvirt.DomainUndefineSnapshotsMetadata); err != nil {
				return err
			}
		}
		pool, err := l.StoragePoolLookupByName(testAccPool())
		if err != nil {
			return err
		}
		for i := len(actVolumes) - 1; i >= 0; i-- { // the base last
			if vol, err := l.StorageVolLookupByName(pool, actVolumes[i]); err == nil {
				t.Logf("removing volume %s left behind", actVolumes[i])
				var le libvirt.Error
				if err := l.StorageVolDelete(vol, 0); err != nil && !(errors.As(err, &le) && le.Code == uint32(libvirt.ErrNoStorageVol)) {
					return err
				}
			}
		}
		return nil
	})
}
