package actions

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

var _ action.ActionWithConfigure = (*domainSnapshotRevertAction)(nil)

// domainSnapshotRevertAction is libvirt_domain_snapshot_revert.
type domainSnapshotRevertAction struct{ domainAction }

func NewDomainSnapshotRevertAction() action.Action { return &domainSnapshotRevertAction{} }

type domainSnapshotRevertModel struct {
	Domain   types.String `tfsdk:"domain"`
	Host     types.String `tfsdk:"host"`
	Snapshot types.String `tfsdk:"snapshot"`
	State    types.String `tfsdk:"state"`
}

func (a *domainSnapshotRevertAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_domain_snapshot_revert"
}

func (a *domainSnapshotRevertAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Reverts a domain to one of its snapshots (virsh snapshot-revert): its disks, and for a snapshot " +
			"taken while it ran its memory, return to that moment; what was written since is lost. Internal " +
			"snapshots (kept inside qcow2 images, `libvirt_domain_snapshot`'s default) revert on every libvirt; " +
			"external ones need libvirt 9.9 or later, and older daemons get an error saying so before anything " +
			"changes. Terraform's state does not change.",
		Attributes: domainActionAttributes(map[string]schema.Attribute{
			"snapshot": schema.StringAttribute{
				Required:    true,
				Description: "The snapshot's name (`libvirt_domain_snapshot.NAME.name`).",
				Validators:  []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"state": schema.StringAttribute{
				Optional: true,
				Description: "The domain's run state after the revert: `running` or `paused`. Unset: as it was when the " +
					"snapshot was taken (a snapshot of a shut-off domain leaves it shut off).",
				Validators: []validator.String{stringvalidator.OneOf(string(libvirtops.RevertRunning), string(libvirtops.RevertPaused))},
			},
		}),
	}
}

func (a *domainSnapshotRevertAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m domainSnapshotRevertModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, ok := a.resolve(ctx, m.Domain, m.Host, resp)
	if !ok {
		return
	}
	name := m.Snapshot.ValueString()
	t.progress("reverting to snapshot " + name)
	err := libvirtops.Snapshots(a.client).Revert(ctx, t.uuid, name, libvirtops.RevertState(m.State.ValueString()))
	switch {
	case errors.Is(err, libvirtops.ErrExternalRevert):
		resp.Diagnostics.AddAttributeError(path.Root("snapshot"), "Cannot revert to an external snapshot", err.Error())
		return
	case libvirtconn.IsNotFound(err):
		resp.Diagnostics.AddAttributeError(path.Root("snapshot"), "No such snapshot",
			"domain "+t.name+" has no snapshot called \""+name+"\": "+err.Error())
		return
	case err != nil:
		resp.Diagnostics.AddError("Cannot revert domain "+t.name+" to snapshot "+name, err.Error())
		return
	}
	state, err := libvirtops.Domains(a.client).State(ctx, t.uuid)
	if err != nil {
		t.progress("reverted to snapshot " + name)
		return
	}
	t.progress("reverted to snapshot " + name + "; the domain is " + state)
}
