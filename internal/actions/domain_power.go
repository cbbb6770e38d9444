package actions

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// The power actions: libvirt_domain_reboot, libvirt_domain_reset and
// libvirt_domain_shutdown.

var (
	_ action.ActionWithConfigure = (*domainRebootAction)(nil)
	_ action.ActionWithConfigure = (*domainResetAction)(nil)
	_ action.ActionWithConfigure = (*domainShutdownAction)(nil)
)

type domainRebootAction struct{ domainAction }

func NewDomainRebootAction() action.Action { return &domainRebootAction{} }

type domainRebootModel struct {
	Domain types.String `tfsdk:"domain"`
	Host   types.String `tfsdk:"host"`
	Method types.String `tfsdk:"method"`
}

func (a *domainRebootAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_domain_reboot"
}

func (a *domainRebootAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Asks the guest of a running domain to reboot (virsh reboot). The guest's operating system " +
			"restarts itself; the action returns once libvirt delivered the request. The domain's definition and " +
			"Terraform's state do not change.",
		Attributes: domainActionAttributes(map[string]schema.Attribute{
			"method": schema.StringAttribute{
				Optional: true,
				Description: "How the request reaches the guest: `acpi` (the virtual power button) or `agent` (the QEMU " +
					"guest agent). Unset: libvirt's choice (ACPI, else the agent).",
				Validators: []validator.String{stringvalidator.OneOf(libvirtops.RebootMethods()...)},
			},
		}),
	}
}

func (a *domainRebootAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m domainRebootModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, ok := a.resolve(ctx, m.Domain, m.Host, resp)
	if !ok {
		return
	}
	method := libvirtops.RebootMethod(m.Method.ValueString())
	if err := libvirtops.Domains(a.client).Reboot(ctx, t.uuid, method); err != nil {
		resp.Diagnostics.AddError("Cannot reboot domain "+t.name, err.Error())
		return
	}
	if method == libvirtops.RebootDefault {
		t.progress("reboot requested")
	} else {
		t.progress("reboot requested (" + string(method) + ")")
	}
}

type domainResetAction struct{ domainAction }

func NewDomainResetAction() action.Action { return &domainResetAction{} }

type domainResetModel struct {
	Domain types.String `tfsdk:"domain"`
	Host   types.String `tfsdk:"host"`
}

func (a *domainResetAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_domain_reset"
}

func (a *domainResetAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Resets a running domain at once, as the reset button of a physical machine (virsh reset): the " +
			"guest is not asked and loses what it did not write to disk. The domain's definition and Terraform's " +
			"state do not change.",
		Attributes: domainActionAttributes(nil),
	}
}

func (a *domainResetAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m domainResetModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, ok := a.resolve(ctx, m.Domain, m.Host, resp)
	if !ok {
		return
	}
	if err := libvirtops.Domains(a.client).Reset(ctx, t.uuid); err != nil {
		resp.Diagnostics.AddError("Cannot reset domain "+t.name, err.Error())
		return
	}
	t.progress("reset")
}

type domainShutdownAction struct{ domainAction }

func NewDomainShutdownAction() action.Action { return &domainShutdownAction{} }

type domainShutdownModel struct {
	Domain  types.String `tfsdk:"domain"`
	Host    types.String `tfsdk:"host"`
	Timeout types.String `tfsdk:"timeout"`
}

func (a *domainShutdownAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_domain_shutdown"
}

func (a *domainShutdownAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Shuts a domain down as deleting a `libvirt_domain` does: a graceful shutdown request (ACPI or " +
			"the guest agent), then forced off when the guest has not stopped within `timeout`. A domain that is " +
			"already shut off is left alone. Terraform's state does not change: a `libvirt_domain` with " +
			"`running = true` plans a start at the next apply.",
		Attributes: domainActionAttributes(map[string]schema.Attribute{
			"timeout": schema.StringAttribute{
				Optional: true,
				Description: "How long to wait for the graceful shutdown before forcing the domain off, as a Go duration " +
					"(\"90s\", \"5m\"). \"0s\" forces it off at once. A domain that cannot receive the request (paused, " +
					"or with neither `features.acpi` nor a guest agent channel) is forced off without waiting. Default: \"" +
					libvirtops.DefaultShutdownTimeout + "\", as the domain's `shutdown_timeout`.",
				Validators: []validator.String{treeresource.DurationValidator{AllowZero: true}},
			},
		}),
	}
}

func (a *domainShutdownAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m domainShutdownModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, ok := a.resolve(ctx, m.Domain, m.Host, resp)
	if !ok {
		return
	}
	def, _ := time.ParseDuration(libvirtops.DefaultShutdownTimeout)
	outcome, err := libvirtops.Domains(a.client).Shutdown(ctx, t.uuid, durationOr(m.Timeout, def), false, t.progress)
	if err != nil {
		resp.Diagnostics.AddError("Cannot shut down domain "+t.name, err.Error())
		return
	}
	switch outcome {
	case libvirtops.StopWasOff:
		t.progress("already shut off")
	case libvirtops.StopGraceful:
		t.progress("shut down")
	case libvirtops.StopForced:
		t.progress("forced off")
	}
}
