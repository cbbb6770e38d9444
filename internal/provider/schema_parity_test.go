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
// with its reason. Only what a 0.9.7 configuration cannot set may be listed
// (computed-only in 0.9.7's schema, or an object without attributes): every
// path a 0.9.7 user can configure must match by name and type.
// docs/adr/0001-xml-tree-schema-engine.md lists them too.
var parityExceptions = map[string]map[string]string{
	"libvirt_domain": {
		"id": "computed by 0.9.7: libvirt's runtime domain number of a running domain (virsh domid), a number; " +
			"here the resource id is the UUID (0.9.7's uuid), and a 0.9.7 state's number becomes the UUID when it is upgraded",
	},
	"libvirt_network":        {},
	"libvirt_pool":           {},
	"libvirt_volume":         {},
	"libvirt_cloudinit_disk": {},
	"libvirt_ignition":       {},
	"libvirt_combustion":     {},
}

// dataSourceParityExceptions is parityExceptions for data sources.
var dataSourceParityExceptions = map[string]map[string]string{
	"libvirt_node_info":                  {},
	"libvirt_node_devices":               {},
	"libvirt_node_device_info":           {},
	"libvirt_domain_interface_addresses": {},
}

type refAttribute struct {
	Type                         json.RawMessage `json:"type"`
	Optional, Required, Computed bool
	NestedType                   *struct {
		Attributes  map[string]*refAttribute `json:"attributes"`
		NestingMode string                   `json:"nesting_mode"`
	} `json:"nested_type"`
}

// refPath is one attribute of 0.9.7's schema: its type ("nested single"
// for objects) and whether a configuration can set it.
type refPath struct {
	typ          string
	configurable bool
}

func refAttributePaths(attrs map[string]*refAttribute, p string, out map[string]refPath) {
	for n, a := range attrs {
		full := n
		if p != "" {
			full = p + "." + n
		}
		settable := a.Optional || a.Required
		if a.NestedType != nil {
			// an object without attributes holds nothing to configure
			out[full] = refPath{"nested " + a.NestedType.NestingMode, settable && len(a.NestedType.Attributes) > 0}
			refAttributePaths(a.NestedType.Attributes, full, out)
		} else {
			out[full] = refPath{string(a.Type), settable}
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
// and data sources dmacvicar/libvirt 0.9.7 and this provider both have, and
// of the provider block: each 0.9.7 path must exist here with the same type,
// or fall under a listed exception that 0.9.7's own flags show a
// configuration cannot set; every exception must still be needed. It logs
// the counts and each remaining exception with its reason (go test -v).
func TestSchemaParityDmacvicar(t *testing.T) {
	raw, err := os.ReadFile(dmacvicarSchema)
	if err != nil {
		t.Fatalf("the reference schema (shared/reference beside the checkout): %v", err)
	}
	var ref struct {
		ProviderSchemas map[string]struct {
			Provider          refBlock            `json:"provider"`
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
		{"provider", map[string]map[string]string{"provider": {}}, map[string]refBlock{"provider": theirs.Provider}, map[string]*tfprotov6.Schema{"provider": sch.Provider}},
		{"resource", parityExceptions, theirs.ResourceSchemas, sch.ResourceSchemas},
		{"data source", dataSourceParityExceptions, theirs.DataSourceSchemas, sch.DataSourceSchemas},
	} {
		n, m := schemaParityCompare(t, kind.what, kind.exceptions, kind.theirs, kind.ours)
		total += n
		matched += m
	}
	if len(parityExceptions) != len(theirs.ResourceSchemas) || len(dataSourceParityExceptions) != len(theirs.DataSourceSchemas) {
		t.Errorf("0.9.7 has %d resources and %d data sources; the comparison covers %d and %d",
			len(theirs.ResourceSchemas), len(theirs.DataSourceSchemas), len(parityExceptions), len(dataSourceParityExceptions))
	}
	t.Logf("the provider block, all %d resources and %d data sources: %d of %d 0.9.7 attribute paths match by name and type",
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
		theirs, ours := map[string]refPath{}, map[string]string{}
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
		for p, ref := range theirs {
			if o, ok := ours[p]; ok && o == ref.typ {
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
				t.Errorf("%s: %s is %s in 0.9.7 and %s here", r, p, ref.typ, o)
			} else {
				t.Errorf("%s: %s (%s in 0.9.7) does not exist here", r, p, ref.typ)
			}
		}
		excs := make([]string, 0, len(exceptions[r]))
		for e := range exceptions[r] {
			excs = append(excs, e)
		}
		sort.Strings(excs)
		for _, e := range excs {
			if used[e] == 0 {
				t.Errorf("%s: exception %q matches nothing any more (%s)", r, e, exceptions[r][e])
			}
			// an exception stands only for what 0.9.7 computes or cannot configure
			for p, ref := range theirs {
				if (p == e || strings.HasPrefix(p, e+".")) && ref.configurable {
					t.Errorf("%s: exception %q covers %s, which a 0.9.7 configuration can set: it must match by name and type", r, e, p)
				}
			}
		}
		t.Logf("%s %s: %d of %d 0.9.7 paths match by name and type; %d fall under %d listed exceptions", what, r, same, len(theirs), excepted, len(exceptions[r]))
		for _, e := range excs {
			t.Logf("  exception %s.%s: %s", r, e, exceptions[r][e])
		}
		total += len(theirs)
		matched += same
	}
	return total, matched
}
