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
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/virtxml/terraform-provider-libvirt/internal/cloudinit"
)

var (
	_ resource.Resource                   = (*cloudinitDiskResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*cloudinitDiskResource)(nil)
	_ resource.ResourceWithValidateConfig = (*cloudinitDiskResource)(nil)
)

// cloudinitWriteOnly are the inputs with a write-only twin (firstboot_writeonly.go).
var cloudinitWriteOnly = []writeOnlyInput{{"user_data"}, {"network_config"}, {"vendor_data"}}

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

	UserDataWO             types.String `tfsdk:"user_data_wo"`
	UserDataWOVersion      types.Int64  `tfsdk:"user_data_wo_version"`
	NetworkConfigWO        types.String `tfsdk:"network_config_wo"`
	NetworkConfigWOVersion types.Int64  `tfsdk:"network_config_wo_version"`
	VendorDataWO           types.String `tfsdk:"vendor_data_wo"`
	VendorDataWOVersion    types.Int64  `tfsdk:"vendor_data_wo_version"`
}

// writeOnly reports whether the image is built from write-only content: a
// version is set (ValidateConfig requires one with each write-only value).
func (m cloudinitDiskModel) writeOnly() bool {
	return !m.UserDataWOVersion.IsNull() || !m.NetworkConfigWOVersion.IsNull() || !m.VendorDataWOVersion.IsNull()
}

// identity is what names an image built from write-only content: the plain
// inputs and the versions.
func (m cloudinitDiskModel) identity() string {
	return identityDigest(
		[2]string{"user_data", m.UserData.ValueString()},
		[2]string{"meta_data", m.MetaData.ValueString()},
		[2]string{"network_config", m.NetworkConfig.ValueString()},
		[2]string{"vendor_data", m.VendorData.ValueString()},
		versionPart("user_data_wo_version", m.UserDataWOVersion),
		versionPart("network_config_wo_version", m.NetworkConfigWOVersion),
		versionPart("vendor_data_wo_version", m.VendorDataWOVersion))
}

// withWriteOnly returns m with the write-only values of the configuration
// in place of the plain inputs they stand for: what the image is built from
// at apply.
func (m cloudinitDiskModel) withWriteOnly(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) cloudinitDiskModel {
	targets := map[string]*types.String{"user_data": &m.UserData, "network_config": &m.NetworkConfig, "vendor_data": &m.VendorData}
	for _, w := range cloudinitWriteOnly {
		if v := w.configValue(ctx, cfg, diags); v != "" {
			*targets[w.plain] = types.StringValue(v)
		}
	}
	return m
}

// nullWriteOnly clears the write-only values before m is stored.
func (m *cloudinitDiskModel) nullWriteOnly() {
	m.UserDataWO, m.NetworkConfigWO, m.VendorDataWO = types.StringNull(), types.StringNull(), types.StringNull()
}

// cloudinitDiskNamePattern keeps the name usable as a file name prefix.
var cloudinitDiskNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func (r *cloudinitDiskResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cloudinit_disk"
}

func (r *cloudinitDiskResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	defer func() {
		what := map[string]string{
			"user_data":      "the content of the `user-data` file",
			"network_config": "the content of the `network-config` file",
			"vendor_data":    "the content of the `vendor-data` file",
		}
		for _, w := range cloudinitWriteOnly {
			for n, a := range w.schema(what[w.plain], "What that means for `path`, `checksum` and a domain using the seed: see above.") {
				resp.Schema.Attributes[n] = a
			}
		}
	}()
	resp.Schema = schema.Schema{
		Description: "Writes a cloud-init NoCloud seed ISO (volume label `cidata`) to a file on the machine running OpenTofu/Terraform. " +
			"Upload it into a storage pool with a `libvirt_volume` whose `create.content.url` is this resource's `path`, and attach that volume as a cdrom. " +
			"The file is named by its content, so any input change replaces the resource (and the volume built from `path`). " +
			"When the file disappears (reboot, cleaned folder), the next refresh writes it again from the inputs in state, byte for byte the same. " +
			"`user_data`, `network_config` and `vendor_data` each have a write-only variant (`user_data_wo` with `user_data_wo_version`, ...) " +
			"that never reaches the plan or the state: " + cloudinitWriteOnlyEffect,
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
				Computed: true,
				Description: "Path of the ISO: `<directory>/<name>-<first 16 hex digits of checksum>.iso`. Known at plan time when all inputs are. " +
					"With a write-only input the 16 digits are those of the SHA-256 of the plain inputs and the `_wo_version`s instead.",
			},
			"checksum": schema.StringAttribute{
				Computed: true,
				Description: "Hex SHA-256 of the ISO. Identical inputs give an identical ISO, so this only changes when an input does. " +
					"With a write-only input it is known only after apply (plan never sees the write-only content).",
			},
			"size": schema.Int64Attribute{
				Computed:    true,
				Description: "Size of the ISO in bytes; with a write-only input known only after apply.",
			},
		},
	}
}

// cloudinitWriteOnlyEffect says what a write-only input means for the image
// and for what uses it.
const cloudinitWriteOnlyEffect = "The ISO is built at apply from the write-only values; its `path` is known at plan (it is named after the plain " +
	"inputs and the `_wo_version`s), its `checksum` and `size` only after apply. Changing a `_wo_version` replaces the resource " +
	"like a change of a plain input: a new ISO at a new `path`, so a `libvirt_volume` uploaded from `path` is replaced too, and a " +
	"domain using that volume keeps its definition (same volume name and pool) and reads the new seed at its next boot " +
	"(cloud-init applies user data again only for a new `instance-id` in `meta_data`). When the ISO file disappears, the " +
	"state cannot write it again (it holds no write-only value): refresh clears `checksum`, and the next apply writes the file " +
	"again from the configuration, at the same `path`."

// ValidateConfig refuses a plain input beside its write-only twin, and a
// write-only value without its version (or the reverse).
func (r *cloudinitDiskResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	for _, w := range cloudinitWriteOnly {
		w.validate(ctx, req.Config, &resp.Diagnostics)
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
	if plan.writeOnly() {
		var state cloudinitDiskModel
		if !req.State.Raw.IsNull() {
			resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		}
		planWriteOnlyImage(&plan, state)
		resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
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
	disk := buildForApply(ctx, plan, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	disk.write(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	disk.setComputed(&plan)
	plan.nullWriteOnly()
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
	if state.writeOnly() {
		readWriteOnlyImage(ctx, &state, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
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

// readWriteOnlyImage checks an image built from write-only content. State
// cannot write it again (it holds no write-only value): a lost or altered
// file clears checksum, which the next plan shows as an update that writes
// it again from the configuration.
func readWriteOnlyImage(ctx context.Context, state *cloudinitDiskModel, diags *diag.Diagnostics) {
	onDisk, err := cloudinit.FileChecksum(state.Path.ValueString())
	switch {
	case err == nil && onDisk == state.Checksum.ValueString():
	case err == nil || errors.Is(err, os.ErrNotExist):
		tflog.Info(ctx, "cloud-init ISO from write-only content missing or altered; the next apply writes it again", map[string]any{"path": state.Path.ValueString()})
		state.Checksum, state.Size = types.StringNull(), types.Int64Null()
	default:
		diags.AddAttributeError(path.Root("path"), "Cannot read cloud-init ISO", err.Error())
	}
}

// Update is reached only when the computed image changed without an input
// changing (a provider upgrade that lays the ISO out differently, or an ISO
// from write-only content that was lost): write the new file, then drop the
// old one.
func (r *cloudinitDiskResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state cloudinitDiskModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	disk := buildForApply(ctx, plan, req.Config, &resp.Diagnostics)
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
	plan.nullWriteOnly()
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
	return !m.UserDataWOVersion.IsUnknown() && !m.NetworkConfigWOVersion.IsUnknown() && !m.VendorDataWOVersion.IsUnknown()
}

// planWriteOnlyImage plans an image built from write-only content: its path
// from the identity; checksum and size from state when the same image is
// there intact (Read clears checksum when the file is lost), else unknown
// until apply builds it.
func planWriteOnlyImage(plan *cloudinitDiskModel, state cloudinitDiskModel) {
	p := filepath.Join(plan.Directory.ValueString(), cloudinit.FileName(plan.Name.ValueString(), plan.identity()))
	plan.ID, plan.Path = types.StringValue(p), types.StringValue(p)
	if state.Path.ValueString() == p && !state.Checksum.IsNull() && !state.Checksum.IsUnknown() {
		plan.Checksum, plan.Size = state.Checksum, state.Size
		return
	}
	plan.Checksum, plan.Size = types.StringUnknown(), types.Int64Unknown()
}

// buildForApply builds the image a plan describes, from the configuration's
// write-only values where the plan has versions; the path is the planned one.
func buildForApply(ctx context.Context, plan cloudinitDiskModel, cfg tfsdk.Config, diags *diag.Diagnostics) cloudinitDisk {
	if !plan.writeOnly() {
		return buildCloudinitDisk(plan, diags)
	}
	disk := buildCloudinitDisk(plan.withWriteOnly(ctx, cfg, diags), diags)
	if diags.HasError() {
		return disk
	}
	disk.path = filepath.Join(plan.Directory.ValueString(), cloudinit.FileName(plan.Name.ValueString(), plan.identity()))
	return disk
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
