package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The OpenTofu path of adopting a whole host (OpenTofu 1.12 has neither list
// resources nor import by identity): the plural data sources list the
// host's objects and write their short configuration with import blocks;
// the steps of the guide "Adopting a whole host", on the same host as
// TestAccAdoptHost_terraformQuery, reach the same end.

// adoptDataSources reads every kind with the test's filters and puts the
// configuration they write into one output.
const adoptDataSources = `
data "libvirt_domains" "host" {
  name = "tfadopt-*"
}
data "libvirt_networks" "host" {
  name = "tfadopt-*"
}
data "libvirt_pools" "host" {
  name = "tfadopt-*"
}
data "libvirt_volumes" "pool_a" {
  pool = "tfadopt-pool-a"
}
data "libvirt_volumes" "pool_b" {
  pool = "tfadopt-pool-b"
}
data "libvirt_nwfilters" "host" {
  name = "tfadopt-*"
}
data "libvirt_domain_snapshots" "host" {
  domain = "tfadopt-described"
}
data "libvirt_secrets" "host" {
  name = "tfadopt-*"
}

output "adopt" {
  value = join("\n", [
    data.libvirt_domains.host.configuration,
    data.libvirt_networks.host.configuration,
    data.libvirt_pools.host.configuration,
    data.libvirt_volumes.pool_a.configuration,
    data.libvirt_volumes.pool_b.configuration,
    data.libvirt_nwfilters.host.configuration,
    data.libvirt_domain_snapshots.host.configuration,
    data.libvirt_secrets.host.configuration,
  ])
}
`

func TestAccAdoptHost_opentofu(t *testing.T) {
	testAccPreCheck(t)
	dir := t.TempDir()
	h := adoptPrepareHost(t, dir)
	idsBefore := map[string]string{}
	for _, d := range h.running {
		idsBefore[d] = mustVirsh(t, "domid", d)
	}
	tofu := tofuWorkdir(t, dir, adoptDataSources)
	work := filepath.Join(dir, "work")

	start := time.Now()
	if out, code := tofu("apply", "-no-color", "-input=false", "-auto-approve"); code != 0 {
		t.Fatalf("reading the data sources failed (exit %d):\n%s", code, out)
	}
	took := time.Since(start)
	adopted, code := tofu("output", "-raw", "adopt")
	if code != 0 {
		t.Fatalf("tofu output failed (exit %d):\n%s", code, adopted)
	}
	keepGenerated(t, "opentofu-generated.tf", adopted)
	lines := blockLines(adopted)
	t.Logf("data sources read in %v; configuration: %d resource blocks, %d lines in all:\n%s", took, len(lines), strings.Count(adopted, "\n"), lineReport(adopted))
	// the goal: a typical virt-install domain in at most 60 lines
	for _, d := range []string{"vi-vnc", "vi-spice"} {
		addr := "libvirt_domain." + adoptPrefix + d
		if n, ok := lines[addr]; !ok || n > 60 {
			t.Errorf("%s: %d lines (found: %t), want at most 60", addr, n, ok)
		}
	}
	if len(lines) != h.objects {
		t.Fatalf("the data sources wrote %d resource blocks, the host has %d objects:\n%s", len(lines), h.objects, adopted)
	}
	// the configuration replaces the data sources: only the provider stays
	mustWrite(t, filepath.Join(work, "adopted.tf"), adopted)
	mustWrite(t, filepath.Join(work, "main.tf"), virtxmlRequiredProviders+testAccProviderConfig())
	if err := os.Remove(filepath.Join(work, "terraform.tfstate")); err != nil {
		t.Fatal(err)
	}
	// written as a person writes it: `tofu fmt` changes nothing
	if out, code := tofu("fmt", "-check", "-diff", "-no-color", "adopted.tf"); code != 0 {
		t.Errorf("tofu fmt would change the generated configuration (exit %d):\n%s", code, out)
	}

	out, code := tofu("plan", "-no-color", "-input=false", "-detailed-exitcode")
	m := planSummary.FindStringSubmatch(out)
	if code != 2 || m == nil {
		t.Fatalf("the first plan (exit %d) is not a plan of imports:\n%s\nconfiguration:\n%s", code, out, adopted)
	}
	if m[1] != fmt.Sprint(h.objects) || m[2] != "0" || m[3] != "0" || m[4] != "0" {
		t.Fatalf("first plan: %s; want %d to import and nothing else:\n%s", m[0], h.objects, out)
	}
	if out, code := tofu("apply", "-no-color", "-input=false", "-auto-approve"); code != 0 {
		t.Fatalf("apply failed (exit %d):\n%s", code, out)
	}
	if out, code := tofu("plan", "-no-color", "-input=false", "-detailed-exitcode"); code != 0 {
		t.Fatalf("the plan after the import apply is not empty (exit %d):\n%s", code, out)
	}
	for d, before := range idsBefore {
		if after := mustVirsh(t, "domid", d); after != before {
			t.Errorf("%s restarted: domain id %s, was %s", d, after, before)
		}
	}
}
