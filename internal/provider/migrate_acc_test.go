package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// dmacvicarReference is what dmacvicar/libvirt 0.9.7 left after applying
// its main.tf: the configuration, its state and the XML of every object.
const dmacvicarReference = "../../../shared/reference/dmacvicar-libvirt-0.9.7"

// TestAccMigrate_dmacvicarState is the move users try first: objects that
// dmacvicar/libvirt 0.9.7 made (stood up again from the XML it left, same
// UUIDs and keys), its configuration with only the provider source changed,
// its state after `tofu state replace-provider`. The plan must show no
// changes, and an apply must leave the objects as they are.
func TestAccMigrate_dmacvicarState(t *testing.T) {
	testAccPreCheck(t)
	const pool, srcDir = "dmfx-pool", "/var/lib/libvirt/dmfx-src"
	cleanup := func() {
		_, _ = virsh("destroy", "dmfx-vm")
		_, _ = virsh("undefine", "dmfx-vm", "--nvram")
		for _, v := range []string{"dmfx-seed.iso", "dmfx-root.qcow2", "dmfx-base.qcow2"} {
			_, _ = virsh("vol-delete", "--pool", pool, v)
		}
		_, _ = virsh("pool-destroy", pool)
		_, _ = virsh("pool-delete", pool)
		_, _ = virsh("pool-undefine", pool)
		removeNetworkLeftovers(t, "dmfx-net")
		_ = os.RemoveAll(srcDir)
	}
	cleanup()
	t.Cleanup(cleanup)
	xml := func(f string) string { return filepath.Join(dmacvicarReference, "xml", f) }

	// stand the objects up again without the old provider (its README)
	if err := os.MkdirAll(srcDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("qemu-img", "create", "-q", "-f", "qcow2", filepath.Join(srcDir, "base.qcow2"), "16M").CombinedOutput(); err != nil {
		t.Fatalf("qemu-img: %v %s", err, out)
	}
	mustVirsh(t, "net-define", xml("network-dmfx-net.xml"))
	mustVirsh(t, "net-start", "dmfx-net")
	mustVirsh(t, "net-autostart", "dmfx-net")
	mustVirsh(t, "pool-define", xml("pool-dmfx-pool.xml"))
	mustVirsh(t, "pool-build", pool)
	mustVirsh(t, "pool-start", pool)
	mustVirsh(t, "pool-autostart", pool)
	for _, v := range []string{"volume-dmfx-base.qcow2.xml", "volume-dmfx-root.qcow2.xml", "volume-dmfx-seed.iso.xml"} {
		mustVirsh(t, "vol-create", pool, xml(v))
	}
	mustVirsh(t, "define", xml("domain-dmfx-vm.xml"))
	uuidBefore := strings.TrimSpace(mustVirsh(t, "domuuid", "dmfx-vm"))
	// what the apply must leave as it is: definitions, pool identity, volume keys
	snapshot := func() map[string]string {
		out := map[string]string{
			"domain":  mustVirsh(t, "dumpxml", "--inactive", "dmfx-vm"),
			"network": mustVirsh(t, "net-dumpxml", "--inactive", "dmfx-net"),
			"pool":    mustVirsh(t, "pool-uuid", pool),
		}
		for _, v := range []string{"dmfx-seed.iso", "dmfx-root.qcow2", "dmfx-base.qcow2"} {
			out["key of "+v] = mustVirsh(t, "vol-key", "--pool", pool, v)
		}
		return out
	}
	before := snapshot()

	// the configuration, with the provider source changed and nothing else
	mainTF, err := os.ReadFile(filepath.Join(dmacvicarReference, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	config := strings.Replace(string(mainTF), `source  = "dmacvicar/libvirt"`, `source  = "virtxml/libvirt"`, 1)
	config = regexp.MustCompile(`(?m)^\s*version\s*=\s*"0\.9\.7"\n`).ReplaceAllString(config, "")
	dir := t.TempDir()
	tofu := tofuWorkdir(t, dir, config)
	state, err := os.ReadFile(filepath.Join(dmacvicarReference, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, "work", "terraform.tfstate"), string(state))

	if out, code := tofu("state", "replace-provider", "-auto-approve", "registry.opentofu.org/dmacvicar/libvirt", "registry.opentofu.org/virtxml/libvirt"); code != 0 {
		t.Fatalf("replace-provider (exit %d):\n%s", code, out)
	}
	out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode")
	if code != 0 {
		t.Fatalf("the plan after replace-provider is not empty (exit %d):\n%s", code, out)
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply (exit %d):\n%s", code, out)
	}
	if u := strings.TrimSpace(mustVirsh(t, "domuuid", "dmfx-vm")); u != uuidBefore {
		t.Errorf("the domain was recreated: UUID %s, was %s", u, uuidBefore)
	}
	for what, was := range before {
		if now := snapshot()[what]; now != was {
			t.Errorf("the apply changed the %s:\n%s", what, lineDiff(was, now))
		}
	}
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the second plan is not empty (exit %d):\n%s", code, out)
	}
}
