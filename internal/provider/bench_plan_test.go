package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// planFixture is a trivial domain's config/prior state as the protocol carries them.
func planFixture(b *testing.B) (tfprotov6.ProviderServer, *tfprotov6.PlanResourceChangeRequest) {
	srv := ProtocolServer("bench")()
	ctx := context.Background()
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	ty := sch.ResourceSchemas["libvirt_domain"].ValueType()
	objTy := ty.(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, t := range objTy.AttributeTypes {
		vals[name] = tftypes.NewValue(t, nil)
	}
	vals["name"] = tftypes.NewValue(tftypes.String, "bench")
	vals["type"] = tftypes.NewValue(tftypes.String, "qemu")
	vals["memory"] = tftypes.NewValue(tftypes.Number, 64)
	vals["memory_unit"] = tftypes.NewValue(tftypes.String, "MiB")
	config := tftypes.NewValue(ty, vals)
	state := map[string]tftypes.Value{}
	for k, v := range vals {
		state[k] = v
	}
	state["id"] = tftypes.NewValue(tftypes.String, "742b4a76-5db9-4919-bdc2-4a0d431f07c2")
	state["uuid"] = tftypes.NewValue(tftypes.String, "742b4a76-5db9-4919-bdc2-4a0d431f07c2")
	state["running"] = tftypes.NewValue(tftypes.Bool, false)
	state["autostart"] = tftypes.NewValue(tftypes.Bool, false)
	state["start_paused"] = tftypes.NewValue(tftypes.Bool, false)
	state["start_force_boot"] = tftypes.NewValue(tftypes.Bool, false)
	state["restart_on_change"] = tftypes.NewValue(tftypes.Bool, false)
	state["shutdown_timeout"] = tftypes.NewValue(tftypes.String, "60s")
	state["console_urls"] = tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{})
	prior := tftypes.NewValue(ty, state)
	dv := func(v tftypes.Value) *tfprotov6.DynamicValue {
		d, err := tfprotov6.NewDynamicValue(ty, v)
		if err != nil {
			b.Fatal(err)
		}
		return &d
	}
	// proposed new state = prior state merged with config, as tofu sends it
	return srv, &tfprotov6.PlanResourceChangeRequest{
		TypeName:         "libvirt_domain",
		PriorState:       dv(prior),
		ProposedNewState: dv(prior),
		Config:           dv(config),
	}
}

// BenchmarkPlanResourceChangeDomain measures the provider side of planning one
// unchanged domain (what tofu plan -refresh=false costs per domain), with
// nothing in the decoded-value cache: every request value is decoded.
func BenchmarkPlanResourceChangeDomain(b *testing.B) {
	srv, req := planFixture(b)
	benchPlan(b, srv, req, func() { resetValueCaches(srv) })
}

// BenchmarkPlanResourceChangeDomainAfterRead is the same plan when the prior
// state is what this provider process returned from ReadResource (a refreshing
// plan): the prior and proposed values come from the cache, the config is decoded.
func BenchmarkPlanResourceChangeDomainAfterRead(b *testing.B) {
	srv, req := planFixture(b)
	fp := planner(b, srv)
	prior, err := req.PriorState.Unmarshal(fp.objType)
	if err != nil {
		b.Fatal(err)
	}
	benchPlan(b, srv, req, func() {
		resetValueCaches(srv)
		fp.values.put(req.PriorState.MsgPack, prior) // as ReadResource's encode leaves it
	})
}

func benchPlan(b *testing.B, srv tfprotov6.ProviderServer, req *tfprotov6.PlanResourceChangeRequest, before func()) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		before()
		b.StartTimer()
		resp, err := srv.PlanResourceChange(ctx, req)
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

// planner returns the domain's fast planner of a protocol server.
func planner(tb testing.TB, srv tfprotov6.ProviderServer) *fastPlanner {
	ps := srv.(*protocolServer)
	ps.plannersOnce.Do(func() { ps.planners = ps.buildPlanners(context.Background()) })
	fp := ps.planners["libvirt_domain"]
	if fp == nil {
		tb.Fatal("no fast planner for libvirt_domain")
	}
	return fp
}

// resetValueCaches empties the decoded-value caches of all tree resources.
func resetValueCaches(srv tfprotov6.ProviderServer) {
	ps := srv.(*protocolServer)
	ps.plannersOnce.Do(func() { ps.planners = ps.buildPlanners(context.Background()) })
	for _, fp := range ps.planners {
		fp.values.mu.Lock()
		fp.values.values = nil
		fp.values.mu.Unlock()
	}
}

// BenchmarkValidateResourceConfigDomain measures config validation of one domain.
func BenchmarkValidateResourceConfigDomain(b *testing.B) {
	srv, req := planFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		resetValueCaches(srv) // each config is decoded once
		b.StartTimer()
		if _, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "libvirt_domain", Config: req.Config}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetProviderSchema measures the schema response (built once per process).
func BenchmarkGetProviderSchema(b *testing.B) {
	srv := ProtocolServer("bench")()
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
			b.Fatal(err)
		}
	}
}
