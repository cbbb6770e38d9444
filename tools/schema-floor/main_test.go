package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

func domainSchema(t *testing.T, maxSubtree int) *tfprotov6.SchemaBlock {
	t.Helper()
	resp, err := newServer(maxSubtree).GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return resp.ResourceSchemas["libvirt_domain"].Block
}

// Pruning keeps the benchmark's paths, removes every other nested attribute
// larger than the limit, and shrinks the schema as the limit drops.
func TestPrune(t *testing.T) {
	full := countBlock(domainSchema(t, -1))
	prev := full
	for _, max := range []int{400, 60, 5, 0} {
		b := domainSchema(t, max)
		n := countBlock(b)
		if n >= prev {
			t.Errorf("max %d: %d attributes, not fewer than %d", max, n, prev)
		}
		prev = n
		var walk func([]*tfprotov6.SchemaAttribute, string)
		walk = func(attrs []*tfprotov6.SchemaAttribute, prefix string) {
			for _, a := range attrs {
				p := strings.TrimPrefix(prefix+"."+a.Name, ".")
				if a.NestedType == nil {
					continue
				}
				kept := false
				for _, k := range keepPaths {
					kept = kept || k == p
				}
				if size := countAttrs(a.NestedType.Attributes); !kept && size > max {
					t.Errorf("max %d: %s kept with %d attributes", max, p, size)
				}
				walk(a.NestedType.Attributes, p)
			}
		}
		walk(b.Attributes, "")
		for _, k := range keepPaths {
			if !hasPath(b.Attributes, strings.Split(k, ".")) {
				t.Errorf("max %d: benchmark path %s pruned", max, k)
			}
		}
		t.Logf("max subtree %d: %d of %d attributes", max, n, full)
	}
}

func hasPath(attrs []*tfprotov6.SchemaAttribute, path []string) bool {
	for _, a := range attrs {
		if a.Name != path[0] {
			continue
		}
		if len(path) == 1 {
			return true
		}
		return a.NestedType != nil && hasPath(a.NestedType.Attributes, path[1:])
	}
	return false
}
