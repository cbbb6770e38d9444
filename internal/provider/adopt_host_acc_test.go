package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// Adopting a whole host in one step (Terraform 1.15: list resources,
// `terraform query -generate-config-out`, import by identity): a host
// prepared with virsh only, an empty state; the generated configuration
// plans imports only, applies, and plans nothing after; running domains
// keep their run-time id (nothing restarted). `make test-adopt-host`.

const adoptPrefix = "tfadopt-"

// adoptHost is what adoptPrepareHost made.
type adoptHost struct {
	domains, running []string
	objects          int // every object the query should find
}

func testAccAdoptPreCheck(t *testing.T) string {
	t.Helper()
	testAccPreCheck(t)
	tf := os.Getenv("TERRAFORM_115")
	if tf == "" {
		t.Fatal("TERRAFORM_115 must point at Terraform 1.15 (source /var/cache/tfplv/env.sh)")
	}
	return tf
}

// terraformWorkdir builds the provider and returns a runner of Terraform
// 1.15 in dir/work with that build (dev_overrides).
func terraformWorkdir(t *testing.T, tf, dir string) (run func(args ...string) (string, int), work string) {
	t.Helper()
	binDir := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(binDir, "terraform-provider-libvirt"), ".")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	cliConfig := filepath.Join(dir, "cli.tfrc")
	mustWrite(t, cliConfig, cliOverrides{BinDir: binDir, Registries: []string{"registry.terraform.io"}}.config())
	work = filepath.Join(dir, "work")
	return func(args ...string) (string, int) {
		cmd := exec.Command(tf, args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
		}
		return out.String(), 0
	}, work
}

// adoptCleanup removes every tfadopt- object (domains, volumes, pools,
// networks, the filter, the secret), whatever a failed run left.
func adoptCleanup(t *testing.T, poolDirs ...string) {
	t.Helper()
	if out, err := virsh("list", "--all", "--name"); err == nil {
		for _, d := range strings.Fields(out) {
			if strings.HasPrefix(d, adoptPrefix) {
				_, _ = virsh("destroy", d)
				_, _ = virsh("undefine", d, "--nvram", "--tpm", "--snapshots-metadata")
			}
		}
	}
	if out, err := virsh("vol-list", testAccPool()); err == nil {
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], adoptPrefix) {
				_, _ = virsh("vol-delete", f[0], "--pool", testAccPool())
			}
		}
	}
	for _, p := range []string{adoptPrefix + "pool-a", adoptPrefix + "pool-b"} {
		_, _ = virsh("pool-destroy", p)
		_, _ = virsh("pool-undefine", p)
	}
	for _, n := range []string{adoptPrefix + "net-a", adoptPrefix + "net-b"} {
		_, _ = virsh("net-destroy", n)
		_, _ = virsh("net-undefine", n)
	}
	_, _ = virsh("nwfilter-undefine", adoptPrefix+"filter")
	if out, err := virsh("secret-list"); err == nil {
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, adoptPrefix) {
				if f := strings.Fields(line); len(f) > 0 {
					_, _ = virsh("secret-undefine", f[0])
				}
			}
		}
	}
	for _, d := range poolDirs {
		_ = os.RemoveAll(d)
	}
}

// adoptDomainXML are the domain shapes: name -> (XML with %[1]s for the
// name and %[2]s for the pool path, running).
var adoptDomainXML = []struct {
	name, xml string
	running   bool
}{
	// what virt-install writes for a Debian guest with SPICE (UEFI, TPM,
	// virtio disk, NAT NIC, guest agent and SPICE channels, sound, USB redirection)
	{"vi-spice", `<domain type='qemu'><name>%[1]s</name>
  <metadata><libosinfo:libosinfo xmlns:libosinfo="http://libosinfo.org/xmlns/libvirt/domain/1.0"><libosinfo:os id="http://debian.org/debian/12"/></libosinfo:libosinfo></metadata>
  <memory unit='KiB'>131072</memory><currentMemory unit='KiB'>131072</currentMemory><vcpu placement='static'>1</vcpu>
  <os firmware='efi'><type arch='x86_64' machine='q35'>hvm</type><boot dev='hd'/></os>
  <features><acpi/><apic/></features>
  <clock offset='utc'><timer name='rtc' tickpolicy='catchup'/><timer name='pit' tickpolicy='delay'/><timer name='hpet' present='no'/></clock>
  <on_poweroff>destroy</on_poweroff><on_reboot>restart</on_reboot><on_crash>destroy</on_crash>
  <pm><suspend-to-mem enabled='no'/><suspend-to-disk enabled='no'/></pm>
  <devices><emulator>/usr/bin/qemu-system-x86_64</emulator>
    <disk type='file' device='disk'><driver name='qemu' type='qcow2' discard='unmap'/><source file='%[2]s/%[1]s.qcow2'/><target dev='vda' bus='virtio'/></disk>
    <interface type='network'><source network='tfadopt-net-a'/><model type='virtio'/></interface>
    <console type='pty'/>
    <channel type='unix'><source mode='bind'/><target type='virtio' name='org.qemu.guest_agent.0'/></channel>
    <channel type='spicevmc'><target type='virtio' name='com.redhat.spice.0'/></channel>
    <input type='tablet' bus='usb'/>
    <graphics type='spice' autoport='yes'><image compression='off'/></graphics>
    <sound model='ich9'/><video><model type='virtio'/></video>
    <redirdev bus='usb' type='spicevmc'/><redirdev bus='usb' type='spicevmc'/>
    <memballoon model='virtio'/><rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>
    <tpm model='tpm-crb'><backend type='emulator' version='2.0'/></tpm>
  </devices></domain>`, true},
	// the typical virt-install server guest: UEFI, TPM, virtio disk, NAT NIC,
	// serial console, VNC, guest agent channel
	{"vi-vnc", `<domain type='qemu'><name>%[1]s</name>
  <memory unit='KiB'>131072</memory><currentMemory unit='KiB'>131072</currentMemory><vcpu placement='static'>2</vcpu>
  <os firmware='efi'><type arch='x86_64' machine='q35'>hvm</type><boot dev='hd'/></os>
  <features><acpi/><apic/></features>
  <clock offset='utc'/>
  <devices>
    <disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='%[2]s/%[1]s.qcow2'/><target dev='vda' bus='virtio'/></disk>
    <interface type='network'><source network='tfadopt-net-a'/><model type='virtio'/></interface>
    <serial type='pty'/><console type='pty'/>
    <channel type='unix'><source mode='bind'/><target type='virtio' name='org.qemu.guest_agent.0'/></channel>
    <graphics type='vnc' port='-1' autoport='yes'/>
    <video><model type='virtio'/></video>
    <memballoon model='virtio'/>
    <tpm model='tpm-crb'><backend type='emulator' version='2.0'/></tpm>
  </devices></domain>`, true},
	{"minimal", `<domain type='qemu'><name>%[1]s</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os></domain>`, false},
	{"two-disks", `<domain type='qemu'><name>%[1]s</name><memory unit='MiB'>96</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='q35'>hvm</type><boot dev='cdrom'/><boot dev='hd'/></os>
  <devices>
    <disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='%[2]s/%[1]s.qcow2'/><target dev='vda' bus='virtio'/></disk>
    <disk type='file' device='cdrom'><driver name='qemu' type='raw'/><target dev='sda' bus='sata'/><readonly/></disk>
  </devices></domain>`, false},
	{"filtered", `<domain type='qemu'><name>%[1]s</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='q35'>hvm</type></os>
  <devices>
    <interface type='network'><mac address='52:54:00:7a:d0:01'/><source network='tfadopt-net-b'/><model type='e1000e'/><filterref filter='tfadopt-filter'/></interface>
  </devices></domain>`, true},
	{"cpu-topology", `<domain type='qemu'><name>%[1]s</name><memory unit='MiB'>128</memory><vcpu>4</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <cpu mode='custom' match='exact'><model fallback='allow'>qemu64</model><topology sockets='1' dies='1' cores='2' threads='2'/></cpu>
  <on_reboot>destroy</on_reboot></domain>`, false},
	{"vnc-tablet", `<domain type='qemu'><name>%[1]s</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <devices><input type='tablet' bus='usb'/><graphics type='vnc' autoport='yes' listen='127.0.0.1'/><video><model type='cirrus'/></video></devices></domain>`, true},
	{"described", `<domain type='qemu'><name>%[1]s</name><title>adopted</title><description>made with virsh</description>
  <memory unit='MiB'>64</memory><vcpu>1</vcpu><os><type arch='x86_64' machine='pc'>hvm</type></os>
  <devices><memballoon model='none'/>
    <disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='%[2]s/%[1]s.qcow2'/><target dev='vdb' bus='virtio'/></disk>
  </devices></domain>`, false},
}

// adoptPrepareHost builds the host with virsh only.
func adoptPrepareHost(t *testing.T, dir string) adoptHost {
	t.Helper()
	var h adoptHost
	// the pools live where qemu may read them (a test's temporary directory is
	// private to root)
	pools, err := os.MkdirTemp("/var/tmp", adoptPrefix+"pools-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(pools, 0o755); err != nil {
		t.Fatal(err)
	}
	poolA, poolB := filepath.Join(pools, "pool-a"), filepath.Join(pools, "pool-b")
	adoptCleanup(t)
	t.Cleanup(func() { adoptCleanup(t, pools) })
	for i, n := range []struct{ name, forward string }{{"net-a", "<forward mode='nat'/>"}, {"net-b", ""}} {
		f := filepath.Join(dir, n.name+".xml")
		mustWrite(t, f, fmt.Sprintf(`<network><name>%s%s</name>%s<ip address='10.231.%d.1' netmask='255.255.255.0'><dhcp><range start='10.231.%d.100' end='10.231.%d.199'/></dhcp></ip></network>`,
			adoptPrefix, n.name, n.forward, 70+i, 70+i, 70+i))
		mustVirsh(t, "net-define", f)
		mustVirsh(t, "net-start", adoptPrefix+n.name)
		h.objects++
	}
	for _, p := range []struct{ name, path string }{{"pool-a", poolA}, {"pool-b", poolB}} {
		mustVirsh(t, "pool-define-as", adoptPrefix+p.name, "dir", "--target", p.path)
		mustVirsh(t, "pool-build", adoptPrefix+p.name)
		mustVirsh(t, "pool-start", adoptPrefix+p.name)
		h.objects++
	}
	filter := filepath.Join(dir, "filter.xml")
	mustWrite(t, filter, `<filter name='tfadopt-filter' chain='root'><filterref filter='clean-traffic'/><rule action='accept' direction='in' priority='500'><tcp dstportstart='22'/></rule></filter>`)
	mustVirsh(t, "nwfilter-define", filter)
	h.objects++
	secret := filepath.Join(dir, "secret.xml")
	mustWrite(t, secret, `<secret ephemeral='no' private='yes'><description>adopted secret</description><usage type='ceph'><name>tfadopt-secret</name></usage></secret>`)
	mustVirsh(t, "secret-define", secret)
	h.objects++
	for _, d := range adoptDomainXML {
		name := adoptPrefix + d.name
		if strings.Contains(d.xml, "%[2]s") {
			mustVirsh(t, "vol-create-as", adoptPrefix+"pool-a", name+".qcow2", "16M", "--format", "qcow2")
			h.objects++ // the volume
		}
		f := filepath.Join(dir, d.name+".xml")
		mustWrite(t, f, fmt.Sprintf(d.xml, name, poolA))
		mustVirsh(t, "define", f)
		h.objects++
		h.domains = append(h.domains, name)
		if d.running {
			mustVirsh(t, "start", name)
			h.running = append(h.running, name)
		}
	}
	// an internal snapshot of a stopped domain with a qcow2 disk
	mustVirsh(t, "snapshot-create-as", adoptPrefix+"described", "before", "--description", "made with virsh")
	h.objects++
	// a volume no domain uses, in the other pool
	mustVirsh(t, "vol-create-as", adoptPrefix+"pool-b", "tfadopt-spare.raw", "8M", "--format", "raw")
	h.objects++
	return h
}

// adoptQuery is the query configuration: one list block per kind, limited to
// the test's objects.
const adoptQuery = `
list "libvirt_domain" "host" {
  provider         = libvirt
  include_resource = true
  config {
    name = "tfadopt-*"
  }
}
list "libvirt_network" "host" {
  provider         = libvirt
  include_resource = true
  config {
    name = "tfadopt-*"
  }
}
list "libvirt_pool" "host" {
  provider         = libvirt
  include_resource = true
  config {
    name = "tfadopt-*"
  }
}
list "libvirt_volume" "pool_a" {
  provider         = libvirt
  include_resource = true
  config {
    pool = "tfadopt-pool-a"
  }
}
list "libvirt_volume" "pool_b" {
  provider         = libvirt
  include_resource = true
  config {
    pool = "tfadopt-pool-b"
  }
}
list "libvirt_nwfilter" "host" {
  provider         = libvirt
  include_resource = true
  config {
    name = "tfadopt-*"
  }
}
list "libvirt_domain_snapshot" "host" {
  provider         = libvirt
  include_resource = true
  config {
    domain = "tfadopt-described"
  }
}
list "libvirt_secret" "host" {
  provider         = libvirt
  include_resource = true
  config {
    name = "tfadopt-*"
  }
}
`

// blockLines counts the lines of each generated resource block, by address.
func blockLines(generated string) map[string]int {
	out := map[string]int{}
	for addr, b := range resourceBlocks(generated) {
		out[addr] = strings.Count(b, "\n")
	}
	return out
}

// resourceBlocks are the generated resource blocks, by address.
func resourceBlocks(generated string) map[string]string {
	out := map[string]string{}
	var addr string
	var b strings.Builder
	for _, line := range strings.Split(generated, "\n") {
		if strings.HasPrefix(line, "resource ") {
			f := strings.Fields(line)
			addr = strings.Trim(f[1], `"`) + "." + strings.Trim(f[2], `"`)
			b.Reset()
		}
		if addr != "" {
			b.WriteString(line + "\n")
			if line == "}" {
				out[addr] = b.String()
				addr = ""
			}
		}
	}
	return out
}

// lineReport lists the generated resource blocks with the object's name and
// their line count, one a line, by address.
func lineReport(generated string) string {
	lines := blockLines(generated)
	addrs := make([]string, 0, len(lines))
	for a := range lines {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	var report strings.Builder
	blocks := resourceBlocks(generated)
	for _, a := range addrs {
		name := ""
		if m := nameLine.FindStringSubmatch(blocks[a]); m != nil {
			name = m[1]
		}
		fmt.Fprintf(&report, "  %-36s %-28s %4d lines\n", a, name, lines[a])
	}
	return report.String()
}

var nameLine = regexp.MustCompile(`(?m)^  name += "([^"]*)"`)

var planSummary = regexp.MustCompile(`Plan: (\d+) to import, (\d+) to add, (\d+) to change, (\d+) to destroy`)

func TestAccAdoptHost_terraformQuery(t *testing.T) {
	tf := testAccAdoptPreCheck(t)
	dir := t.TempDir()
	h := adoptPrepareHost(t, dir)
	idsBefore := map[string]string{}
	for _, d := range h.running {
		idsBefore[d] = mustVirsh(t, "domid", d)
	}

	run, work := terraformWorkdir(t, tf, dir)
	mustWrite(t, filepath.Join(work, "main.tf"), `terraform {
  required_providers {
    libvirt = { source = "virtxml/libvirt" }
  }
}
`+testAccProviderConfig())
	mustWrite(t, filepath.Join(work, "adopt.tfquery.hcl"), adoptQuery)

	var took []time.Duration
	for i := 0; i < 3; i++ {
		_ = os.Remove(filepath.Join(work, "generated.tf"))
		start := time.Now()
		out, code := run("query", "-no-color", "-generate-config-out=generated.tf")
		took = append(took, time.Since(start))
		if code != 0 {
			t.Fatalf("terraform query failed (exit %d):\n%s", code, out)
		}
	}
	t.Logf("query with -generate-config-out, %d domains defined: %v", len(h.domains), took)
	generated, err := os.ReadFile(filepath.Join(work, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	keepGenerated(t, "terraform-generated.tf", string(generated))
	lines := blockLines(string(generated))
	t.Logf("generated configuration, lines per object (%d objects, %d lines in all):\n%s", len(lines), strings.Count(string(generated), "\n"), lineReport(string(generated)))
	if len(lines) != h.objects {
		t.Fatalf("the query generated %d resource blocks, the host has %d objects:\n%s", len(lines), h.objects, generated)
	}
	if n := strings.Count(string(generated), "identity = {"); n != h.objects {
		t.Errorf("%d import blocks by identity, want %d", n, h.objects)
	}

	out, code := run("plan", "-no-color", "-input=false", "-detailed-exitcode")
	m := planSummary.FindStringSubmatch(out)
	if code != 2 || m == nil {
		t.Fatalf("the first plan (exit %d) is not a plan of imports:\n%s\ngenerated:\n%s", code, out, generated)
	}
	if m[1] != fmt.Sprint(h.objects) || m[2] != "0" || m[3] != "0" || m[4] != "0" {
		t.Fatalf("first plan: %s; want %d to import and nothing else:\n%s", m[0], h.objects, out)
	}
	if out, code := run("apply", "-no-color", "-input=false", "-auto-approve"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	if out, code := run("plan", "-no-color", "-input=false", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after the import apply is not empty (exit %d):\n%s", code, out)
	}
	for d, before := range idsBefore {
		if after := mustVirsh(t, "domid", d); after != before {
			t.Errorf("%s restarted: domain id %s, was %s", d, after, before)
		}
	}
	statePath := filepath.Join(work, "terraform.tfstate")
	if n := countIdentities(t, statePath); n != h.objects {
		t.Errorf("%d state objects carry an identity, want %d", n, h.objects)
	}

	// a state written before identities existed gains them on refresh
	stripIdentities(t, statePath)
	if n := countIdentities(t, statePath); n != 0 {
		t.Fatalf("%d identities left after stripping them", n)
	}
	if out, code := run("apply", "-refresh-only", "-no-color", "-input=false", "-auto-approve"); code != 0 {
		t.Fatalf("refresh failed (exit %d):\n%s", code, out)
	}
	if n := countIdentities(t, statePath); n != h.objects {
		t.Errorf("after a refresh %d state objects carry an identity, want %d", n, h.objects)
	}
}

// keepGenerated copies a generated configuration into $TFPLV_ADOPT_KEEP
// (when set), to read what the shortening left.
func keepGenerated(t *testing.T, name, text string) {
	t.Helper()
	if dir := os.Getenv("TFPLV_ADOPT_KEEP"); dir != "" {
		mustWrite(t, filepath.Join(dir, name), text)
	}
}

// countIdentities counts the resource instances of a state file with an
// identity.
func countIdentities(t *testing.T, statePath string) int {
	t.Helper()
	st := readState(t, statePath)
	n := 0
	for _, r := range st["resources"].([]any) {
		for _, inst := range r.(map[string]any)["instances"].([]any) {
			if id, ok := inst.(map[string]any)["identity"]; ok && id != nil {
				n++
			}
		}
	}
	return n
}

// stripIdentities removes the identities from a state file, as a state
// written by a provider version without them.
func stripIdentities(t *testing.T, statePath string) {
	t.Helper()
	st := readState(t, statePath)
	for _, r := range st["resources"].([]any) {
		for _, inst := range r.(map[string]any)["instances"].([]any) {
			delete(inst.(map[string]any), "identity")
			delete(inst.(map[string]any), "identity_schema_version")
		}
	}
	st["serial"] = st["serial"].(float64) + 1
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, statePath, string(b))
}

func readState(t *testing.T, statePath string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestAccAdoptHost_queryTime measures `terraform query` over 100 defined
// (not started) domains (TFPLV_ADOPT_BENCH=1: make test-adopt-host).
func TestAccAdoptHost_queryTime(t *testing.T) {
	tf := testAccAdoptPreCheck(t)
	if os.Getenv("TFPLV_ADOPT_BENCH") == "" {
		t.Skip("timing over 100 domains: TFPLV_ADOPT_BENCH=1 (make test-adopt-host)")
	}
	dir := t.TempDir()
	adoptCleanup(t)
	t.Cleanup(func() { adoptCleanup(t) })
	const n = 100
	for i := 0; i < n; i++ {
		f := filepath.Join(dir, fmt.Sprintf("d%d.xml", i))
		mustWrite(t, f, fmt.Sprintf(`<domain type='qemu'><name>%sbench-%03d</name><memory unit='MiB'>64</memory><vcpu>1</vcpu><os><type arch='x86_64' machine='pc'>hvm</type></os></domain>`, adoptPrefix, i))
		mustVirsh(t, "define", f)
	}
	run, work := terraformWorkdir(t, tf, dir)
	mustWrite(t, filepath.Join(work, "main.tf"), `terraform {
  required_providers {
    libvirt = { source = "virtxml/libvirt" }
  }
}
`+testAccProviderConfig())
	mustWrite(t, filepath.Join(work, "adopt.tfquery.hcl"), `
list "libvirt_domain" "bench" {
  provider         = libvirt
  include_resource = true
  config {
    name = "tfadopt-bench-*"
  }
}
`)
	var took []time.Duration
	for i := 0; i < 3; i++ {
		_ = os.Remove(filepath.Join(work, "generated.tf"))
		start := time.Now()
		out, code := run("query", "-no-color", "-generate-config-out=generated.tf")
		took = append(took, time.Since(start))
		if code != 0 {
			t.Fatalf("terraform query failed (exit %d):\n%s", code, out)
		}
		generated, err := os.ReadFile(filepath.Join(work, "generated.tf"))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(blockLines(string(generated))); got != n {
			t.Fatalf("the query generated %d resource blocks, want %d", got, n)
		}
	}
	t.Logf("query with -generate-config-out, %d domains defined: %v", n, took)
}
