package actions

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

var _ action.ActionWithConfigure = (*domainFsGrowAction)(nil)

// absPathRegexp matches an absolute path.
var absPathRegexp = regexp.MustCompile(`^/`)

// defaultFsGrowTimeout bounds the whole in-guest procedure.
const defaultFsGrowTimeout = "10m"

// domainFsGrowAction is libvirt_domain_fs_grow.
type domainFsGrowAction struct{ domainAction }

func NewDomainFsGrowAction() action.Action { return &domainFsGrowAction{} }

type domainFsGrowModel struct {
	Domain  types.String `tfsdk:"domain"`
	Host    types.String `tfsdk:"host"`
	Path    types.String `tfsdk:"path"`
	Timeout types.String `tfsdk:"timeout"`
}

func (a *domainFsGrowAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_domain_fs_grow"
}

func (a *domainFsGrowAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Grows a filesystem in a running guest to fill its disk, after the disk grew (a larger " +
			"`capacity` on a `libvirt_volume` a running domain uses resizes it live). Through the QEMU guest agent " +
			"(guest-exec), in the guest: `findmnt` finds the filesystem holding `path`; when it is on a partition, " +
			"`growpart` (cloud-guest-utils) grows the partition to the end of its disk, or, where growpart is not " +
			"installed, `sfdisk` and `partx`; then `resize2fs` (ext2/3/4), `xfs_growfs` (xfs) or `btrfs filesystem " +
			"resize max` (btrfs) grows the filesystem. A filesystem on a whole disk (no partition table) skips the " +
			"partition step. The error says when the agent does not answer or a tool is missing, and which package " +
			"has it. LVM, RAID and encrypted devices are not grown. Terraform's state does not change.",
		Attributes: domainActionAttributes(map[string]schema.Attribute{
			"path": schema.StringAttribute{
				Optional:    true,
				Description: "A path in the guest: the filesystem holding it grows. Default: \"/\".",
				Validators:  []validator.String{stringvalidator.RegexMatches(absPathRegexp, "must be an absolute path in the guest")},
			},
			"timeout": schema.StringAttribute{
				Optional:    true,
				Description: "How long the whole procedure may take, as a Go duration. Default: \"" + defaultFsGrowTimeout + "\".",
				Validators:  []validator.String{treeresource.DurationValidator{}},
			},
		}),
	}
}

func (a *domainFsGrowAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m domainFsGrowModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	t, ok := a.resolve(ctx, m.Domain, m.Host, resp)
	if !ok {
		return
	}
	def, _ := time.ParseDuration(defaultFsGrowTimeout)
	timeout := durationOr(m.Timeout, def)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fsPath := "/"
	if !m.Path.IsNull() {
		fsPath = m.Path.ValueString()
	}
	got, err := libvirtops.Domains(a.client).GrowFilesystem(ctx, t.uuid, fsPath, t.progress)
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		resp.Diagnostics.AddError("Growing the filesystem of domain "+t.name+" took too long",
			fmt.Sprintf("not done within timeout %v: %v", timeout, err))
	case errors.Is(err, libvirtops.ErrAgentUnavailable):
		resp.Diagnostics.AddError("The guest agent of domain "+t.name+" does not answer", err.Error())
	case errors.Is(err, libvirtops.ErrCommandMissing):
		resp.Diagnostics.AddError("A tool is missing in the guest of domain "+t.name, err.Error())
	case err != nil:
		resp.Diagnostics.AddError("Cannot grow the filesystem holding "+fsPath+" in domain "+t.name, err.Error())
	case got.SizeAfter <= got.SizeBefore:
		resp.Diagnostics.AddWarning("The filesystem did not grow",
			fmt.Sprintf("The filesystem on %s (holding %s) in domain %s has the size it had: its disk has no space "+
				"after it. Grow the disk first: a larger capacity on the libvirt_volume (resized live while the domain runs).",
				got.Device, fsPath, t.name))
	}
}
