package provider

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// TestGetProviderSchemaFigures prints what tofu pays for the schema: the size
// of the GetProviderSchema answer and the latency of the first (built) and a
// later (cached) call on a fresh protocol server.
func TestGetProviderSchemaFigures(t *testing.T) {
	srv := ProtocolServer("bench")()
	ctx := context.Background()
	start := time.Now()
	resp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	first := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatal(d.Summary, d.Detail)
		}
	}
	start = time.Now()
	again, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	cached := time.Since(start)
	if err != nil || again != resp {
		t.Fatalf("second call did not return the cached response (err %v)", err)
	}
	size, attrs := 0, 0
	for name, s := range resp.ResourceSchemas {
		n := schemaSize(t, s)
		size += n
		c := countAttributes(s.Block)
		attrs += c
		t.Logf("%s: %d attributes, %d bytes (JSON)", name, c, n)
	}
	t.Logf("GetProviderSchema: resources %d attributes, %d bytes (JSON); first call %v, cached call %v", attrs, size, first, cached)
	if size == 0 || attrs == 0 {
		t.Fatal("empty schema")
	}
}

func countAttributes(b *tfprotov6.SchemaBlock) int {
	n := 0
	var walk func(o *tfprotov6.SchemaObject)
	walk = func(o *tfprotov6.SchemaObject) {
		for _, a := range o.Attributes {
			n++
			if a.NestedType != nil {
				walk(a.NestedType)
			}
		}
	}
	for _, a := range b.Attributes {
		n++
		if a.NestedType != nil {
			walk(a.NestedType)
		}
	}
	return n
}

func BenchmarkGetProviderSchemaFirstCall(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		srv := ProtocolServer("bench")()
		if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			b.Fatal(err)
		}
	}
}

// schemaSize is the JSON size of a resource schema (tfprotov6's protobuf
// conversion is internal to terraform-plugin-go; JSON carries the same tree
// and descriptions, a little more verbosely).
func schemaSize(t *testing.T, s *tfprotov6.Schema) int {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// BenchmarkPlanResourceChangeDomainFramework plans the same unchanged domain
// through the plugin framework's generic planner (what ProtocolServer's
// one-pass planner replaces), for the ADR's comparison with
// BenchmarkPlanResourceChangeDomain.
func BenchmarkPlanResourceChangeDomainFramework(b *testing.B) {
	srv, req := planFixture(b)
	framework := srv.ProviderServer
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := framework.PlanResourceChange(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				b.Fatal(d.Summary, d.Detail)
			}
		}
	}
}
