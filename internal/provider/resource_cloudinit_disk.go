package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/virtxml/terraform-provider-libvirt/internal/cloudinit"
)

var (
	_ resource.Resource               = (*cloudinitDiskResource)(nil)
	_ resource.ResourceWithModifyPlan = (*cloudinitDiskResource)(nil)
)

// NewCloudinitDiskResource returns the libvirt_cloudinit_disk resource.
func NewCloudinitDiskResource() resource.Resource { return &cloudinitDiskResource{} }

// cloudinitDiskResource writes a NoCloud seed ISO on the machine running the
// provider. It needs no libvirt connection: a libvirt_volume uploads the file.
type cloudinitDiskResource struct{}

type cloudinitDiskModel struct {
	ID            types.String `tfsdk:"id"`
	Name          types.String `tfsdk:"name"`
	UserData      types.String `tfsdk:"user_data"`
	MetaData      types.String `tfsdk:"meta_data"`
	NetworkConfig types.String `tfsdk:"network_config"`
	VendorData    types.String `tfsdk:"vendor_data"`
	Directory     types.String `tfsdk:"directory"`
	Path          types.String `tfsdk:"path"`
	Checksum      types.String `tfsdk:"checksum"`
	Size          types.Int64  `tfsdk:"size"`
}

// cloudinitDiskNamePattern keeps the name usable as a file name prefix.
var cloudinitDiskNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func (r *cloudinitDiskResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cloudinit_disk"
}

func (r *cloudinitDiskResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		Description: "Writes a cloud-init NoCloud seed ISO (volume label `cidata`) to a file on the machine running OpenTofu/Terraform. " +
			"Upload it into a storage pool with a `libvirt_volume` whose `create.content.url` is this resource's `path`, and attach that volume as a cdrom. " +
			"The file is named by its content, so any input change replaces the resource (and the volume built from `path`). " +
			"When the file disappears (reboot, cleaned folder), the next refresh writes it again from the inputs in state, byte for byte the same.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "Same as `path`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "Prefix of the ISO file name; unique per `directory`. Letters, digits, `.`, `_` and `-`, starting with a letter or digit.",
				PlanModifiers: replace,
				Validators: []validator.String{
					stringvalidator.RegexMatches(cloudinitDiskNamePattern, "must start with a letter or digit and contain only letters, digits, '.', '_' and '-'"),
					stringvalidator.LengthAtMost(200),
				},
			},
			"user_data": schema.StringAttribute{
				Optional:      true,
				Sensitive:     true,
				Description:   "Content of the `user-data` file (for example `#cloud-config` YAML). The file is always written, empty when unset.",
				PlanModifiers: replace,
			},
			"meta_data": schema.StringAttribute{
				Optional:      true,
				Description:   "Content of the `meta-data` file (for example `instance-id` and `local-hostname`). The file is always written, empty when unset.",
				PlanModifiers: replace,
			},
			"network_config": schema.StringAttribute{
				Optional:      true,
				Description:   "Content of the `network-config` file (network config version 1 or 2). Omitted from the ISO when unset or empty.",
				PlanModifiers: replace,
			},
			"vendor_data": schema.StringAttribute{
				Optional:      true,
				Sensitive:     true,
				Description:   "Content of the `vendor-data` file (cloud-config like `user_data`, so it may hold passwords and keys: sensitive). Omitted from the ISO when unset or empty.",
				PlanModifiers: replace,
			},
			"directory": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Description: "Absolute directory the ISO is written to, on the machine running the provider (not the libvirt host when `uri` is remote). " +
					"Defaults to `/var/lib/libvirt/images/cloudinit` when running as root, else `$XDG_DATA_HOME/terraform-provider-libvirt/cloudinit` " +
					"(`~/.local/share/...` when XDG_DATA_HOME is unset): a persistent place, so that files survive reboots.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{absolutePathValidator{}},
			},
			"path": schema.StringAttribute{
				Computed:    true,
				Description: "Path of the ISO: `<directory>/<name>-<first 16 hex digits of checksum>.iso`. Known at plan time when all inputs are.",
			},
			"checksum": schema.StringAttribute{
				Computed:    true,
				Description: "Hex SHA-256 of the ISO. Identical inputs give an identical ISO, so this only changes when an input does.",
			},
			"size": schema.Int64Attribute{
				Computed:    true,
				Description: "Size of the ISO in bytes.",
			},
		},
	}
}

// ModifyPlan computes path, checksum and size during plan, so that a
// libvirt_volume using path sees the final value, and a rebuilt identical
// image never shows as a change.
func (r *cloudinitDiskResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var plan cloudinitDiskModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.Directory = plannedDirectory(ctx, req, plan.Directory, defaultCloudinitDirectory, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !cloudinitInputsKnown(plan) {
		return
	}
	disk := buildCloudinitDisk(plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !req.State.Raw.IsNull() {
		var state cloudinitDiskModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		disk.keepPathOf(state)
	}
	disk.setComputed(&plan)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// keepPathOf keeps the file of an unchanged image where state has it: a
// state from dmacvicar/libvirt 0.9 (no checksum) names its ISO in that
// provider's temporary directory, and a volume uploaded from that path must
// not be replaced because the file would now be named differently.
func (d *cloudinitDisk) keepPathOf(state cloudinitDiskModel) {
	p := state.Path.ValueString()
	if p == "" || !filepath.IsAbs(p) {
		return
	}
	if state.Checksum.IsNull() || state.Checksum.ValueString() == d.checksum {
		d.path = p
	}
}

func (r *cloudinitDiskResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan cloudinitDiskModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// ModifyPlan resolved the default directory.
	disk := buildCloudinitDisk(plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	disk.write(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	disk.setComputed(&plan)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

// Read writes the ISO again when it is missing or altered: its content is a
// function of the inputs in state, so the rebuilt file has the same path and
// checksum and nothing downstream changes.
func (r *cloudinitDiskResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state cloudinitDiskModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	disk := buildCloudinitDisk(state, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	disk.keepPathOf(state)
	if state.Directory.IsNull() { // a state from dmacvicar/libvirt 0.9
		state.Directory = types.StringValue(filepath.Dir(disk.path))
	}
	onDisk, err := cloudinit.FileChecksum(disk.path)
	switch {
	case err == nil && onDisk == disk.checksum:
		// Present and intact: the common case on every plan.
	case err == nil || errors.Is(err, os.ErrNotExist):
		tflog.Info(ctx, "cloud-init ISO missing or altered; writing it again from state", map[string]any{"path": disk.path})
		disk.write(ctx, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	default:
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Cannot read cloud-init ISO", err.Error())
		return
	}
	disk.setComputed(&state)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// Update is reached only when the computed image changed without an input
// changing (a provider upgrade that lays the ISO out differently): write the
// new file, then drop the old one.
func (r *cloudinitDiskResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state cloudinitDiskModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	disk := buildCloudinitDisk(plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	disk.write(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if old := state.Path.ValueString(); old != "" && old != disk.path {
		if err := cloudinit.RemoveFile(old); err != nil {
			resp.Diagnostics.AddWarning("Old cloud-init ISO left behind", err.Error())
		}
	}
	disk.setComputed(&plan)
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
}

func (r *cloudinitDiskResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state cloudinitDiskModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := cloudinit.RemoveFile(state.Path.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Cannot remove cloud-init ISO", err.Error())
	}
}

// cloudinitDisk is the image for one set of inputs and where it belongs.
type cloudinitDisk struct {
	image    []byte
	checksum string
	path     string
}

func cloudinitInputsKnown(m cloudinitDiskModel) bool {
	for _, v := range []types.String{m.Name, m.UserData, m.MetaData, m.NetworkConfig, m.VendorData, m.Directory} {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

func buildCloudinitDisk(m cloudinitDiskModel, diags *diag.Diagnostics) cloudinitDisk {
	image, err := cloudinit.Build(cloudinit.Config{
		UserData:      m.UserData.ValueString(),
		MetaData:      m.MetaData.ValueString(),
		NetworkConfig: m.NetworkConfig.ValueString(),
		VendorData:    m.VendorData.ValueString(),
	})
	if err != nil {
		diags.AddError("Cannot build cloud-init ISO", err.Error())
		return cloudinitDisk{}
	}
	sum := cloudinit.Checksum(image)
	return cloudinitDisk{
		image:    image,
		checksum: sum,
		path:     filepath.Join(m.Directory.ValueString(), cloudinit.FileName(m.Name.ValueString(), sum)),
	}
}

func (d cloudinitDisk) write(ctx context.Context, diags *diag.Diagnostics) {
	if err := cloudinit.WriteFile(d.path, d.image); err != nil {
		diags.AddAttributeError(path.Root("directory"), "Cannot write cloud-init ISO", err.Error())
		return
	}
	tflog.Debug(ctx, "wrote cloud-init ISO", map[string]any{"path": d.path, "checksum": d.checksum})
}

func (d cloudinitDisk) setComputed(m *cloudinitDiskModel) {
	m.ID = types.StringValue(d.path)
	m.Path = types.StringValue(d.path)
	m.Checksum = types.StringValue(d.checksum)
	m.Size = types.Int64Value(int64(len(d.image)))
}

// defaultCloudinitDirectory is a persistent per-user location: root shares
// libvirt's image directory, other users their XDG data directory.
func defaultCloudinitDirectory(diags *diag.Diagnostics) string {
	if os.Geteuid() == 0 {
		return "/var/lib/libvirt/images/cloudinit"
	}
	if x := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "terraform-provider-libvirt", "cloudinit")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		diags.AddAttributeError(path.Root("directory"), "No default directory for cloud-init ISOs",
			fmt.Sprintf("Set directory: neither XDG_DATA_HOME nor the home directory is known (%v).", err))
		return ""
	}
	return filepath.Join(home, ".local", "share", "terraform-provider-libvirt", "cloudinit")
}

// absolutePathValidator rejects relative paths, which would resolve against
// whatever directory OpenTofu happens to run in.
type absolutePathValidator struct{}

func (absolutePathValidator) Description(context.Context) string { return "must be an absolute path" }
func (v absolutePathValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (absolutePathValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if !filepath.IsAbs(req.ConfigValue.ValueString()) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid directory",
			fmt.Sprintf("%s must be an absolute path, got %q.", req.Path, req.ConfigValue.ValueString()))
	}
}

// plannedDirectory is the directory a file written at apply (first-boot
// file, cloud-init disk) plans: the planned value, or the default when it is
// unknown because the configuration does not set it, so that path is known
// at plan.
func plannedDirectory(ctx context.Context, req resource.ModifyPlanRequest, planned types.String,
	defaultDirectory func(*diag.Diagnostics) string, diags *diag.Diagnostics) types.String {
	if !planned.IsUnknown() {
		return planned
	}
	var configured types.String
	diags.Append(req.Config.GetAttribute(ctx, path.Root("directory"), &configured)...)
	if diags.HasError() || !configured.IsNull() {
		return planned
	}
	return types.StringValue(defaultDirectory(diags))
}
