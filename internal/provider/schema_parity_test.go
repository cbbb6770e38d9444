package provider

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// dmacvicarSchema is dmacvicar/libvirt 0.9.7's published schema (`tofu
// providers schema -json`), the provider most users come from.
const dmacvicarSchema = "../../../shared/reference/dmacvicar-libvirt-0.9.7/schema.json"

// parityExceptions are the 0.9.7 attribute paths (and everything below
// them) that this provider does not have under the same name and type, each
// with its reason. docs/adr/0001-xml-tree-schema-engine.md lists them too.
var parityExceptions = map[string]map[string]string{
	"libvirt_domain": {
		"id":                   "the resource id is the domain's UUID (a string); 0.9.7's id is a number",
		"io_thread_i_ds":       "named io_thread_ids: an acronym plural stays whole (IOThreadIDs)",
		"id_map.gi_ds":         "named gids: an acronym plural stays whole (GIDs)",
		"id_map.ui_ds":         "named uids: an acronym plural stays whole (UIDs)",
		"devices.disks.mirror": "block-job status that libvirt writes, never configuration (policy Skip)",
		"os.nv_ram.source":     "network/block NVRAM backends are out of scope (policy Skip)",
		"devices.disks.driver.metadata_cache.max_size":                                 "a value with a unit is flattened everywhere: max_size + max_size_unit, like memory",
		"devices.disks.backing_store.format.metadata_cache.max_size":                   "a value with a unit is flattened everywhere: max_size + max_size_unit, like memory",
		"devices.disks.source.data_store.format.metadata_cache.max_size":               "a value with a unit is flattened everywhere: max_size + max_size_unit, like memory",
		"devices.disks.backing_store.source.data_store.format.metadata_cache.max_size": "a value with a unit is flattened everywhere: max_size + max_size_unit, like memory",
	},
	"libvirt_network": {
		"dns.sr_vs": "named srvs: an acronym plural stays whole (SRVs)",
		"dns.tx_ts": "named txts: an acronym plural stays whole (TXTs)",
	},
	"libvirt_pool": {},
	"libvirt_volume": {
		"physical":      "the size on disk is reported by libvirt, never configuration (policy Skip)",
		"physical_unit": "the size on disk is reported by libvirt, never configuration (policy Skip)",
	},
	"libvirt_cloudinit_disk": {},
	"libvirt_ignition":       {},
	"libvirt_combustion":     {},
}

// dataSourceParityExceptions is parityExceptions for data sources.
var dataSourceParityExceptions = map[string]map[string]string{
	"libvirt_node_info":        {},
	"libvirt_node_devices":     {},
	"libvirt_node_device_info": {},
}

type refAttribute struct {
	Type       json.RawMessage `json:"type"`
	NestedType *struct {
		Attributes  map[string]*refAttribute `json:"attributes"`
		NestingMode string                   `json:"nesting_mode"`
	} `json:"nested_type"`
}

func refAttributePaths(attrs map[string]*refAttribute, p string, out map[string]string) {
	for n, a := range attrs {
		full := n
		if p != "" {
			full = p + "." + n
		}
		if a.NestedType != nil {
			out[full] = "nested " + a.NestedType.NestingMode
			refAttributePaths(a.NestedType.Attributes, full, out)
		} else {
			out[full] = string(a.Type)
		}
	}
}

func ourAttributePaths(attrs []*tfprotov6.SchemaAttribute, p string, out map[string]string) {
	for _, a := range attrs {
		full := a.Name
		if p != "" {
			full = p + "." + a.Name
		}
		if a.NestedType != nil {
			out[full] = "nested " + map[tfprotov6.SchemaObjectNestingMode]string{
				tfprotov6.SchemaObjectNestingModeSingle: "single", tfprotov6.SchemaObjectNestingModeList: "list",
				tfprotov6.SchemaObjectNestingModeSet: "set", tfprotov6.SchemaObjectNestingModeMap: "map",
			}[a.NestedType.Nesting]
			ourAttributePaths(a.NestedType.Attributes, full, out)
		} else {
			b, _ := a.Type.MarshalJSON()
			out[full] = string(b)
		}
	}
}

// TestSchemaParityDmacvicar compares every attribute path of the resources
// dmacvicar/libvirt 0.9.7 and this provider both have: each 0.9.7 path must
// exist here with the same type, or fall under a listed exception; every
// exception must still be needed. It prints the counts.
func TestSchemaParityDmacvicar(t *testing.T) {
	raw, err := os.ReadFile(dmacvicarSchema)
	if err != nil {
		t.Fatalf("the reference schema (shared/reference beside the checkout): %v", err)
	}
	var ref struct {
		ProviderSchemas map[string]struct {
			ResourceSchemas   map[string]refBlock `json:"resource_schemas"`
			DataSourceSchemas map[string]refBlock `json:"data_source_schemas"`
		} `json:"provider_schemas"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	theirs := ref.ProviderSchemas["registry.opentofu.org/dmacvicar/libvirt"]
	sch, err := ProtocolServer("test")().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	total, matched := 0, 0
	for _, kind := range []struct {
		what       string
		exceptions map[string]map[string]string
		theirs     map[string]refBlock
		ours       map[string]*tfprotov6.Schema
	}{
		{"resource", parityExceptions, theirs.ResourceSchemas, sch.ResourceSchemas},
		{"data source", dataSourceParityExceptions, theirs.DataSourceSchemas, sch.DataSourceSchemas},
	} {
		n, m := schemaParityCompare(t, kind.what, kind.exceptions, kind.theirs, kind.ours)
		total += n
		matched += m
	}
	t.Logf("all %d resources and %d data sources: %d of %d 0.9.7 attribute paths match",
		len(parityExceptions), len(dataSourceParityExceptions), matched, total)
}

type refBlock struct {
	Block struct {
		Attributes map[string]*refAttribute `json:"attributes"`
	} `json:"block"`
}

// schemaParityCompare compares the types listed in exceptions and returns
// how many 0.9.7 paths they have and how many match here.
func schemaParityCompare(t *testing.T, what string, exceptions map[string]map[string]string, theirsAll map[string]refBlock, oursAll map[string]*tfprotov6.Schema) (total, matched int) {
	t.Helper()
	names := make([]string, 0, len(exceptions))
	for n := range exceptions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, r := range names {
		theirs, ours := map[string]string{}, map[string]string{}
		refAttributePaths(theirsAll[r].Block.Attributes, "", theirs)
		if len(theirs) == 0 {
			t.Fatalf("%s %s: not in the reference schema", what, r)
		}
		if oursAll[r] == nil {
			t.Errorf("%s %s: not served by this provider", what, r)
			continue
		}
		ourAttributePaths(oursAll[r].Block.Attributes, "", ours)
		used := map[string]int{}
		same, excepted := 0, 0
		for p, ty := range theirs {
			if o, ok := ours[p]; ok && o == ty {
				same++
				continue
			}
			exc := ""
			for e := range exceptions[r] {
				if p == e || strings.HasPrefix(p, e+".") {
					exc = e
				}
			}
			if exc != "" {
				used[exc]++
				excepted++
				continue
			}
			if o, ok := ours[p]; ok {
				t.Errorf("%s: %s is %s in 0.9.7 and %s here", r, p, ty, o)
			} else {
				t.Errorf("%s: %s (%s in 0.9.7) does not exist here", r, p, ty)
			}
		}
		for e, reason := range exceptions[r] {
			if used[e] == 0 {
				t.Errorf("%s: exception %q matches nothing any more (%s)", r, e, reason)
			}
		}
		t.Logf("%s %s: %d of %d 0.9.7 paths match by name and type; %d fall under %d listed exceptions", what, r, same, len(theirs), excepted, len(exceptions[r]))
		total += len(theirs)
		matched += same
	}
	return total, matched
}
