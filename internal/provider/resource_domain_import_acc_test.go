package provider

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAccDomain_generateConfig imports a domain defined outside the provider
// (virsh define) with an import block and `tofu plan
// -generate-config-out`, applies the import and proves the next plan of the
// generated configuration is empty. It drives the tofu binary itself with a
// provider binary built from this module (dev_overrides).
func TestAccDomain_generateConfig(t *testing.T) {
	testAccPreCheck(t)
	t.Run("stopped", func(t *testing.T) { testAccDomainGenerateConfig(t, "tfacc-dom-gencfg", false) })
	t.Run("running", func(t *testing.T) { testAccDomainGenerateConfig(t, "tfacc-dom-gencfg-run", true) })
}

func testAccDomainGenerateConfig(t *testing.T, name string, running bool) {
	removeDomainLeftovers(t, name)
	removeNetworkLeftovers(t, name+"-net")
	removeStorageLeftovers(t, name+".qcow2")

	dir := t.TempDir()

	netXML := filepath.Join(dir, "net.xml")
	mustWrite(t, netXML, fmt.Sprintf(`<network><name>%s-net</name><ip address=%q prefix='24'/></network>`, name, map[bool]string{false: "10.233.9.1", true: "10.233.8.1"}[running]))
	mustVirsh(t, "net-define", netXML)
	t.Cleanup(func() { removeNetworkLeftovers(t, name+"-net") })
	mustVirsh(t, "net-start", name+"-net")
	mustVirsh(t, "vol-create-as", testAccPool(), name+".qcow2", "16M", "--format", "qcow2")
	t.Cleanup(func() { removeStorageLeftovers(t, name+".qcow2") })
	volPath := mustVirsh(t, "vol-path", "--pool", testAccPool(), name+".qcow2")
	domXML := filepath.Join(dir, "dom.xml")
	mustWrite(t, domXML, fmt.Sprintf(`<domain type=%q>
  <name>%s</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type>hvm</type></os>
  <features><acpi/></features>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source file=%q/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <interface type='network'><source network='%s-net'/><model type='virtio'/></interface>
    <serial type='pty'><target port='0'/></serial>
    <console type='pty'><target type='serial' port='0'/></console>
    <graphics type='vnc' autoport='yes' listen='127.0.0.1'/>
  </devices>
</domain>`, testAccDomainType(), name, volPath, name))
	mustVirsh(t, "define", domXML)
	t.Cleanup(func() { removeDomainLeftovers(t, name) })
	if running {
		mustVirsh(t, "start", name)
	}

	generateConfigRoundTrip(t, dir, map[string]string{"libvirt_domain.imported": name})
	state := "shut off"
	if running {
		state = "running"
	}
	if err := testCheckVirsh(regexp.MustCompile(`(?m)^State:\s+`+state+`$`), "dominfo", name)(nil); err != nil {
		t.Fatalf("the imported domain changed: %v", err)
	}
}

// generateConfigRoundTrip adopts existing libvirt objects the way a user
// would: import blocks (address -> import id) and `tofu plan
// -generate-config-out`, then apply. It fails unless the next plan of the
// generated configuration is empty. It drives the tofu binary itself with a
// provider binary built from this module (dev_overrides), in dir/work.
func generateConfigRoundTrip(t *testing.T, dir string, imports map[string]string) {
	t.Helper()
	var blocks strings.Builder
	for to, id := range imports {
		blocks.WriteString(renderConfig("import {\n  to = {{.To}}\n  id = {{q .ID}}\n}\n", map[string]string{"To": to, "ID": id}))
	}
	tofu := tofuWorkdir(t, dir, blocks.String())
	if out, code := tofu("plan", "-input=false", "-no-color", "-generate-config-out=generated.tf"); code != 0 {
		t.Fatalf("plan -generate-config-out failed (exit %d):\n%s", code, out)
	}
	generated, err := os.ReadFile(filepath.Join(dir, "work", "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated configuration:\n%s", generated)
	for to := range imports {
		if !strings.Contains(string(generated), fmt.Sprintf("resource %q %q", strings.Split(to, ".")[0], strings.Split(to, ".")[1])) {
			t.Fatalf("the generated configuration has no block for %s", to)
		}
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply of the import failed (exit %d):\n%s", code, out)
	}
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after importing with the generated configuration is not empty (exit %d):\n%s", code, out)
	}
}

// tofuWorkdir builds the provider from this module, writes dir/work/main.tf
// (required_providers and the test provider block unless config has its
// own, then config) and returns a
// runner of the tofu binary in dir/work with that build (dev_overrides).
func tofuWorkdir(t *testing.T, dir, config string) func(args ...string) (string, int) {
	t.Helper()
	binDir := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(binDir, "terraform-provider-libvirt"), ".")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	cliConfig := filepath.Join(dir, "cli.tfrc")
	mustWrite(t, cliConfig, cliOverrides{BinDir: binDir, Registries: []string{"registry.opentofu.org"}}.config())
	work := filepath.Join(dir, "work")
	if !strings.Contains(config, "required_providers") {
		config = virtxmlRequiredProviders + testAccProviderConfig() + "\n" + config
	}
	mustWrite(t, filepath.Join(work, "main.tf"), config)
	return func(args ...string) (string, int) {
		cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), args...)
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
			t.Fatalf("tofu %s: %v", strings.Join(args, " "), err)
		}
		return out.String(), 0
	}
}

func mustWrite(t *testing.T, file, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustVirsh(t *testing.T, args ...string) string {
	t.Helper()
	out, err := virsh(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
