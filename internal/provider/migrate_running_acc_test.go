package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// dmacvicarShaped returns attrs the way dmacvicar/libvirt 0.9.7 writes a
// resource's state: every attribute of its schema present, null where not
// set, nested objects likewise.
func dmacvicarShaped(t *testing.T, resourceType string, attrs map[string]any) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(dmacvicarSchema)
	if err != nil {
		t.Fatalf("the reference schema (shared/reference beside the checkout): %v", err)
	}
	var ref struct {
		ProviderSchemas map[string]struct {
			ResourceSchemas map[string]refBlock `json:"resource_schemas"`
		} `json:"provider_schemas"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	block, ok := ref.ProviderSchemas["registry.opentofu.org/dmacvicar/libvirt"].ResourceSchemas[resourceType]
	if !ok {
		t.Fatalf("%s: not in the reference schema", resourceType)
	}
	var fill func(schema map[string]*refAttribute, v map[string]any) map[string]any
	fill = func(schema map[string]*refAttribute, v map[string]any) map[string]any {
		out := map[string]any{}
		for name, a := range schema {
			x, set := v[name]
			switch {
			case !set || x == nil:
				out[name] = nil
			case a.NestedType != nil && a.NestedType.NestingMode == "single":
				out[name] = fill(a.NestedType.Attributes, x.(map[string]any))
			case a.NestedType != nil:
				var l []any
				for _, e := range x.([]any) {
					l = append(l, fill(a.NestedType.Attributes, e.(map[string]any)))
				}
				out[name] = l
			default:
				out[name] = x
			}
		}
		for name := range v {
			if _, ok := schema[name]; !ok {
				t.Fatalf("%s: %s is not an attribute of 0.9.7's schema", resourceType, name)
			}
		}
		return out
	}
	return fill(block.Block.Attributes, attrs)
}

// TestAccMigrate_dmacvicarRunningDomain: a RUNNING domain under
// dmacvicar/libvirt 0.9.7, whose state holds libvirt's runtime domain ID as
// its numeric `id` (the UUID in `uuid`), moved here by changing the provider
// source and `tofu state replace-provider`. Before the upgrade handled it,
// the first plan failed with `"3" is not a UUID`. The plan must show no
// changes, the apply must leave the domain running as it was (same domain
// ID: not restarted), and `libvirt_domain.x.id`, passed to the interface
// addresses data source as 0.9.7's README shows, finds the domain.
func TestAccMigrate_dmacvicarRunningDomain(t *testing.T) {
	testAccPreCheck(t)
	const name, vol = "par-run", "par-run.qcow2"
	pool := testAccPool()
	cleanup := func() {
		_, _ = virsh("destroy", name)
		_, _ = virsh("undefine", name, "--nvram")
		_, _ = virsh("vol-delete", "--pool", pool, vol)
	}
	cleanup()
	t.Cleanup(cleanup)
	dir := t.TempDir()

	// the domain as 0.9.7 defined it from the configuration below, started:
	// a tiny disk, no OS (it sits in the firmware)
	mustVirsh(t, "vol-create-as", pool, vol, "1M", "--format", "qcow2")
	domainXML := filepath.Join(dir, "domain.xml")
	mustWrite(t, domainXML, fmt.Sprintf(`<domain type='qemu'>
  <name>%s</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type>hvm</type></os>
  <devices>
    <disk type='volume' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source pool='%s' volume='%s'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>
  </devices>
</domain>`, name, pool, vol))
	mustVirsh(t, "define", domainXML)
	mustVirsh(t, "start", name)
	uuid := strings.TrimSpace(mustVirsh(t, "domuuid", name))
	domid := func() int {
		n, err := strconv.Atoi(strings.TrimSpace(mustVirsh(t, "domid", name)))
		if err != nil {
			t.Fatalf("virsh domid: %v", err)
		}
		return n
	}
	idBefore := domid()

	config := renderConfig(`terraform {
  required_providers {
    libvirt = { source = "virtxml/libvirt" } # was dmacvicar/libvirt 0.9.7
  }
}
{{.ProviderBlock}}
resource "libvirt_domain" "vm" {
  name        = {{q .Name}}
  type        = "qemu"
  memory      = 64
  memory_unit = "MiB"
  vcpu        = 1
  running     = true
  os          = { type = "hvm" }
  devices = {
    disks = [{
      source = { volume = { pool = {{q .Pool}}, volume = {{q .Volume}} } }
      target = { dev = "vda", bus = "virtio" }
      driver = { type = "qcow2" }
    }]
    rngs = [{ model = "virtio", backend = { random = "/dev/urandom" } }]
  }
}

data "libvirt_domain_interface_addresses" "vm" {
  domain = libvirt_domain.vm.id # 0.9.7's README; there, id was the runtime number
  source = "lease"
}
`, map[string]string{"ProviderBlock": testAccProviderConfig(), "Name": name, "Pool": pool, "Volume": vol})
	tofu := tofuWorkdir(t, dir, config)

	// the state 0.9.7 writes for it: its full attribute set, id the runtime number
	attrs := dmacvicarShaped(t, "libvirt_domain", map[string]any{
		"id": idBefore, "uuid": uuid, "name": name, "type": "qemu",
		"memory": 64, "memory_unit": "MiB", "vcpu": 1, "running": true,
		"os": map[string]any{"type": "hvm"},
		"devices": map[string]any{
			"disks": []any{map[string]any{
				"source": map[string]any{"volume": map[string]any{"pool": pool, "volume": vol}},
				"target": map[string]any{"dev": "vda", "bus": "virtio"},
				"driver": map[string]any{"type": "qcow2"},
			}},
			"rngs": []any{map[string]any{"model": "virtio", "backend": map[string]any{"random": "/dev/urandom"}}},
		},
	})
	state, err := json.MarshalIndent(map[string]any{
		"version": 4, "terraform_version": "1.12.6", "serial": 1, "lineage": "7a1c3f0e-0d6b-4b8e-9a55-0c3f6f0b9e21",
		"outputs": map[string]any{}, "check_results": nil,
		"resources": []any{map[string]any{
			"mode": "managed", "type": "libvirt_domain", "name": "vm",
			"provider":  `provider["registry.opentofu.org/dmacvicar/libvirt"]`,
			"instances": []any{map[string]any{"schema_version": 0, "attributes": attrs, "sensitive_attributes": []any{}}},
		}},
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(state), fmt.Sprintf(`"id": %d,`, idBefore)) {
		t.Fatalf("the state does not hold the numeric id %d:\n%s", idBefore, state)
	}
	mustWrite(t, filepath.Join(dir, "work", "terraform.tfstate"), string(state))

	if out, code := tofu("state", "replace-provider", "-auto-approve", "registry.opentofu.org/dmacvicar/libvirt", "registry.opentofu.org/virtxml/libvirt"); code != 0 {
		t.Fatalf("replace-provider (exit %d):\n%s", code, out)
	}
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the first plan after replace-provider is not empty (exit %d):\n%s", code, out)
	}
	if out, code := tofu("apply", "-input=false", "-no-color", "-auto-approve"); code != 0 {
		t.Fatalf("apply (exit %d):\n%s", code, out)
	}
	if now := domid(); now != idBefore {
		t.Errorf("the domain ID is %d after the apply, was %d: the domain was restarted", now, idBefore)
	}
	if u := strings.TrimSpace(mustVirsh(t, "domuuid", name)); u != uuid {
		t.Errorf("the domain was recreated: UUID %s, was %s", u, uuid)
	}
	idIsUUID := regexp.MustCompile(`(?m)^\s*id\s+=\s+"` + uuid + `"`)
	out, code := tofu("state", "show", "-no-color", "libvirt_domain.vm")
	if code != 0 || !idIsUUID.MatchString(out) {
		t.Errorf("the state's id is not the UUID %s (exit %d):\n%s", uuid, code, out)
	}
	out, code = tofu("state", "show", "-no-color", "data.libvirt_domain_interface_addresses.vm")
	if code != 0 || !idIsUUID.MatchString(out) {
		t.Errorf("the data source given libvirt_domain.vm.id did not find the domain %s (exit %d):\n%s", uuid, code, out)
	}
	if out, code := tofu("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after the apply is not empty (exit %d):\n%s", code, out)
	}
}
