package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
)

// planFixture is a trivial domain's config/prior state as the protocol carries them.
func planFixture(b *testing.B) (*hostroute.Server, *tfprotov6.PlanResourceChangeRequest) {
	srv := ProtocolServer("bench")().(*hostroute.Server)
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
	benchPlan(b, srv, req, func() { srv.ForgetValues() })
}

// BenchmarkPlanResourceChangeDomainAfterRead is the same plan when the prior
// state is what this provider process returned from ReadResource (a refreshing
// plan): the prior and proposed values come from the cache, the config is decoded.
func BenchmarkPlanResourceChangeDomainAfterRead(b *testing.B) {
	srv, req := planFixture(b)
	benchPlan(b, srv, req, func() {
		srv.ForgetValues()
		if err := srv.RememberValue("libvirt_domain", req.PriorState); err != nil { // as ReadResource's encode leaves it
			b.Fatal(err)
		}
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

// BenchmarkValidateResourceConfigDomain measures config validation of one domain.
func BenchmarkValidateResourceConfigDomain(b *testing.B) {
	srv, req := planFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv.ForgetValues() // each config is decoded once
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
