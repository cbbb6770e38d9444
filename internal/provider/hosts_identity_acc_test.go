package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Import by identity on the second host (Terraform 1.15): objects defined
// with virsh on host b only are imported with `import { identity = { uuid,
// host = "b" } }`; the first plan imports them and changes nothing, the
// plan after the apply is empty, the running domain keeps its run-time id,
// host a never gets them, and the state's identities name host b.
// `make test-hosts`.

const identityBPrefix = "tfshort-idb"

// virshOn runs virsh against the libvirtd at uri.
func virshOn(t *testing.T, uri string, args ...string) string {
	t.Helper()
	out, err := exec.Command("virsh", append([]string{"-c", uri}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("virsh -c %s %s: %v: %s", uri, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// identityBCleanup removes what this test defines, from both hosts.
func identityBCleanup(t *testing.T, uriB, poolDir string) {
	t.Helper()
	removeDomainEverywhere(t, uriB, identityBPrefix+"-dom")
	for _, uri := range []string{testAccURI(), uriB} {
		_, _ = exec.Command("virsh", "-c", uri, "pool-destroy", identityBPrefix+"-pool").CombinedOutput()
		_, _ = exec.Command("virsh", "-c", uri, "pool-undefine", identityBPrefix+"-pool").CombinedOutput()
	}
	_ = os.RemoveAll(poolDir)
}

func TestAccHosts_importByIdentity(t *testing.T) {
	uriB := testAccURIB(t)
	tf := testAccAdoptPreCheck(t)
	dir := t.TempDir()
	poolDir := filepath.Join("/var/tmp", identityBPrefix+"-pool")
	identityBCleanup(t, uriB, poolDir)
	t.Cleanup(func() { identityBCleanup(t, uriB, poolDir) })

	// host b only: a running domain and a pool
	domain, pool := identityBPrefix+"-dom", identityBPrefix+"-pool"
	domXML := filepath.Join(dir, "dom.xml")
	mustWrite(t, domXML, fmt.Sprintf(`<domain type='qemu'><name>%s</name><memory unit='KiB'>65536</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <devices><graphics type='vnc' autoport='yes' listen='127.0.0.1'/></devices></domain>`, domain))
	virshOn(t, uriB, "define", domXML)
	virshOn(t, uriB, "start", domain)
	domUUID := virshOn(t, uriB, "domuuid", domain)
	domID := virshOn(t, uriB, "domid", domain)
	virshOn(t, uriB, "pool-define-as", pool, "dir", "--target", poolDir)
	virshOn(t, uriB, "pool-build", pool)
	virshOn(t, uriB, "pool-start", pool)
	poolUUID := virshOn(t, uriB, "pool-uuid", pool)
	if found, _, _ := domainOn(t, testAccURI(), domain); found {
		t.Fatalf("%s is on host a too; the test needs it on host b only", domain)
	}

	run, work := terraformWorkdir(t, tf, dir)
	mustWrite(t, filepath.Join(work, "main.tf"), `terraform {
  required_providers {
    libvirt = { source = "virtxml/libvirt" }
  }
}
`+testAccHostsProvider(uriB)+renderConfig(`
import {
  to       = libvirt_domain.b
  identity = { uuid = {{q .DomUUID}}, host = "b" }
}

import {
  to       = libvirt_pool.b
  identity = { uuid = {{q .PoolUUID}}, host = "b" }
}

resource "libvirt_domain" "b" {
  host    = "b"
  name    = {{q .Domain}}
  type    = "qemu"
  memory  = 65536
  vcpu    = 1
  running = true
  os      = { type = "hvm", type_arch = "x86_64", type_machine = "pc" }
  devices = {
    graphics = [{ vnc = { listen = "127.0.0.1" } }]
  }
}

resource "libvirt_pool" "b" {
  host   = "b"
  name   = {{q .Pool}}
  type   = "dir"
  target = { path = {{q .PoolDir}} }
}
`, map[string]any{"DomUUID": domUUID, "PoolUUID": poolUUID, "Domain": domain, "Pool": pool, "PoolDir": poolDir}))

	out, code := run("plan", "-no-color", "-input=false", "-detailed-exitcode")
	m := planSummary.FindStringSubmatch(out)
	if code != 2 || m == nil {
		t.Fatalf("the first plan (exit %d) is not a plan of imports:\n%s", code, out)
	}
	if m[1] != "2" || m[2] != "0" || m[3] != "0" || m[4] != "0" {
		t.Fatalf("first plan: %s; want 2 to import and nothing else:\n%s", m[0], out)
	}
	if out, code := run("apply", "-no-color", "-input=false", "-auto-approve"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	if out, code := run("plan", "-no-color", "-input=false", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after the import apply is not empty (exit %d):\n%s", code, out)
	}
	if after := virshOn(t, uriB, "domid", domain); after != domID {
		t.Errorf("%s restarted on host b: domain id %s, was %s", domain, after, domID)
	}
	if found, _, _ := domainOn(t, testAccURI(), domain); found {
		t.Errorf("%s appeared on host a", domain)
	}

	// the state: each object's identity names host b and its UUID, its id
	// is routed to b
	want := map[string]string{"libvirt_domain": domUUID, "libvirt_pool": poolUUID}
	for typ, inst := range stateInstances(t, filepath.Join(work, "terraform.tfstate")) {
		id, _ := inst["identity"].(map[string]any)
		if id["host"] != "b" || id["uuid"] != want[typ] {
			t.Errorf("%s: identity %v, want host b and uuid %s", typ, id, want[typ])
		}
		attrs, _ := inst["attributes"].(map[string]any)
		if attrs["host"] != "b" {
			t.Errorf("%s: host %v in state, want b", typ, attrs["host"])
		}
		delete(want, typ)
	}
	if len(want) != 0 {
		t.Errorf("not in state: %v", want)
	}
}

// stateInstances are the single instances of a state file's resources, by
// resource type.
func stateInstances(t *testing.T, statePath string) map[string]map[string]any {
	t.Helper()
	st := readState(t, statePath)
	out := map[string]map[string]any{}
	for _, r := range st["resources"].([]any) {
		res := r.(map[string]any)
		insts := res["instances"].([]any)
		if len(insts) != 1 {
			b, _ := json.Marshal(res)
			t.Fatalf("resource with %d instances: %s", len(insts), b)
		}
		out[res["type"].(string)] = insts[0].(map[string]any)
	}
	return out
}
