package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

// libvirt_ignition and libvirt_combustion are the same resource with a
// different file kind: a first-boot configuration written verbatim to a
// content-named file on the machine running the provider, like
// libvirt_cloudinit_disk writes its ISO.

var (
	_ resource.Resource                   = (*firstbootFileResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*firstbootFileResource)(nil)
	_ resource.ResourceWithValidateConfig = (*firstbootFileResource)(nil)
)

// firstbootContentWriteOnly is content's write-only twin (firstboot_writeonly.go).
var firstbootContentWriteOnly = writeOnlyInput{"content"}

// firstbootWriteOnlyEffect says what content_wo means for the file and for
// what uses it.
const firstbootWriteOnlyEffect = "The file is written at apply from `content_wo`; its `path` and `id` are known at plan (named after " +
	"`name` and `content_wo_version`), its `size` only after apply. Changing `content_wo_version` replaces the resource like a change " +
	"of `content`: a new file at a new `path`, so a domain whose fw_cfg entry names `path` is updated to the new file (QEMU reads " +
	"it at the domain's next start) and a `libvirt_volume` uploaded from `path` is replaced. When the file disappears, the state " +
	"cannot write it again (it holds no write-only value): refresh clears `size`, and the next apply writes the file again from " +
	"the configuration, at the same `path`."

// firstbootKind describes one kind of first-boot file.
type firstbootKind struct {
	typeSuffix  string // after "libvirt_"
	label       string // for messages: "Ignition config"
	extension   string // of the file name, with the dot
	defaultDir  string // last element of the default directory
	description string
	contentDesc string
	pathDesc    string
	// problem says what is wrong with a content, or "" when nothing is; it
	// is checked at plan and again at create, for content unknown at plan.
	problem func(content string) string
	// allowed says what content must be, for diagnostics.
	allowed string
}

// NewIgnitionResource returns the libvirt_ignition resource.
func NewIgnitionResource() resource.Resource {
	return &firstbootFileResource{kind: firstbootKind{
		typeSuffix: "ignition",
		label:      "Ignition config",
		extension:  ".ign",
		defaultDir: "ignition",
		description: "Writes an [Ignition](https://coreos.github.io/ignition/) configuration (Fedora CoreOS, Flatcar, RHCOS) verbatim to a file " +
			"on the machine running OpenTofu/Terraform, for the guest to read on its first boot. " +
			"Hand it to the guest through QEMU's fw_cfg: a `libvirt_domain` with `sys_info = [{ fw_cfg = { entry = [{ name = \"opt/com.coreos/config\", file = <path> }] } }]` " +
			"(libvirt gives QEMU access to the file while the domain runs). With a remote `uri` upload it with a `libvirt_volume` " +
			"(`create.content.url = path`) and point the entry at the volume's `path`. " +
			"The file is named by its content, so a change of `content`, `name` or `directory` replaces the resource. " +
			"When the file disappears, the next refresh writes it again from `content` in state.",
		contentDesc: "Ignition configuration content (JSON), for example `data.ignition_config.x.rendered` or a Butane transpilation. " +
			"Must be a JSON object with `ignition.version` (a string), which every Ignition spec requires; anything else is rejected at plan time. " +
			"Written byte for byte. Hidden in plans (0.9.7 showed it): Ignition configs carry password hashes and keys.",
		pathDesc: "Full path to the generated ignition file: `<directory>/<name>-<id>.ign`. Known at plan time when `content` is.",
		problem:  ignitionProblem,
		allowed:  `an Ignition config: a JSON object with a string ignition.version (for example {"ignition":{"version":"3.4.0"}})`,
	}}
}

// NewCombustionResource returns the libvirt_combustion resource.
func NewCombustionResource() resource.Resource {
	return &firstbootFileResource{kind: firstbootKind{
		typeSuffix: "combustion",
		label:      "Combustion script",
		extension:  ".sh",
		defaultDir: "combustion",
		description: "Writes a [Combustion](https://github.com/openSUSE/combustion) first-boot script (openSUSE MicroOS, Leap Micro, SLE Micro, Elemental) " +
			"verbatim to a file on the machine running OpenTofu/Terraform. Like dmacvicar/libvirt 0.9.7 it writes the script only, not a config drive. " +
			"Hand it to the guest through QEMU's fw_cfg, which Combustion reads before any config drive: a `libvirt_domain` with " +
			"`sys_info = [{ fw_cfg = { entry = [{ name = \"opt/org.opensuse.combustion/script\", file = <path> }] } }]`. " +
			"A config drive (a filesystem labelled `combustion` holding `combustion/script`) must be built outside this provider. " +
			"The file is named by its content, so a change of `content`, `name` or `directory` replaces the resource. " +
			"When the file disappears, the next refresh writes it again from `content` in state.",
		contentDesc: "Combustion script content (shell script), run as root in the new system on first boot. Must not be empty; a first line " +
			"`# combustion: network` asks Combustion to bring the network up first. Written byte for byte. Hidden in plans (0.9.7 showed it): scripts set passwords and keys.",
		pathDesc: "Full path to the generated combustion script file: `<directory>/<name>-<id>.sh`. Known at plan time when `content` is.",
		problem:  combustionProblem,
		allowed:  "a non-empty shell script",
	}}
}

// firstbootFileResource needs no libvirt connection: it only writes a file.
type firstbootFileResource struct {
	kind firstbootKind
}

type firstbootFileModel struct {
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	Content   types.String `tfsdk:"content"`
	Directory types.String `tfsdk:"directory"`
	Path      types.String `tfsdk:"path"`
	Size      types.Int64  `tfsdk:"size"`

	ContentWO        types.String `tfsdk:"content_wo"`
	ContentWOVersion types.Int64  `tfsdk:"content_wo_version"`
}

func (r *firstbootFileResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.kind.typeSuffix
}

func (r *firstbootFileResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	k := r.kind
	defer func() {
		for n, a := range firstbootContentWriteOnly.schema(k.label+" content, checked like `content`",
			"What that means for `id`, `path`, `size` and what uses the file: see above.") {
			if s, ok := a.(schema.StringAttribute); ok {
				s.Validators = []validator.String{firstbootContentValidator{k}}
				a = s
			}
			resp.Schema.Attributes[n] = a
		}
	}()
	resp.Schema = schema.Schema{
		Description: k.description + " `content` has a write-only variant, `content_wo` with `content_wo_version`, that never reaches " +
			"the plan or the state: " + firstbootWriteOnlyEffect,
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed: true,
				Description: "Resource identifier (checksum of content): the first 16 hex digits of the SHA-256 of `content`, as in dmacvicar/libvirt 0.9.7. " +
					"With `content_wo`, those of the SHA-256 of `name` and `content_wo_version` (plan never sees the write-only content).",
			},
			"name": schema.StringAttribute{
				Required:      true,
				Description:   "Name for this " + k.typeSuffix + " resource: prefix of the file name, unique per `directory`. Letters, digits, `.`, `_` and `-`, starting with a letter or digit.",
				PlanModifiers: replace,
				Validators: []validator.String{
					stringvalidator.RegexMatches(cloudinitDiskNamePattern, "must start with a letter or digit and contain only letters, digits, '.', '_' and '-'"),
					stringvalidator.LengthAtMost(200),
				},
			},
			"content": schema.StringAttribute{
				Optional:      true,
				Sensitive:     true,
				Description:   k.contentDesc + " Set this or `content_wo`.",
				PlanModifiers: replace,
				Validators:    []validator.String{firstbootContentValidator{k}},
			},
			"directory": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Description: "Absolute directory the file is written to, on the machine running the provider (not in dmacvicar/libvirt 0.9.7, which used a temporary directory). " +
					"Defaults to `/var/lib/libvirt/images/" + k.defaultDir + "` when running as root, else `$XDG_DATA_HOME/terraform-provider-libvirt/" + k.defaultDir + "` " +
					"(`~/.local/share/...` when XDG_DATA_HOME is unset): a persistent place, so that a domain reading the file at every start still finds it after a reboot.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{absolutePathValidator{}},
			},
			"path": schema.StringAttribute{
				Computed:    true,
				Description: k.pathDesc,
			},
			"size": schema.Int64Attribute{
				Computed:    true,
				Description: "Size of the file in bytes.",
			},
		},
	}
}

// ValidateConfig requires one of content and content_wo, and content_wo
// with its version.
func (r *firstbootFileResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	firstbootContentWriteOnly.validate(ctx, req.Config, &resp.Diagnostics)
	var content, wo types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("content"), &content)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("content_wo"), &wo)...)
	if !resp.Diagnostics.HasError() && content.IsNull() && wo.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("content"), "Missing "+r.kind.label,
			"Set content (stored in state) or content_wo with content_wo_version (write-only, never stored).")
	}
}

// ModifyPlan computes id, path and size during plan, so that a domain or
// volume using path sees the final value.
func (r *firstbootFileResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var plan firstbootFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.Directory = plannedDirectory(ctx, req, plan.Directory, r.defaultDirectory, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Name.IsUnknown() || plan.Content.IsUnknown() || plan.Directory.IsUnknown() || plan.ContentWOVersion.IsUnknown() {
		return
	}
	if !plan.ContentWOVersion.IsNull() {
		r.planWriteOnly(ctx, req, &plan, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
		return
	}
	f := r.file(plan)
	if !req.State.Raw.IsNull() {
		var state firstbootFileModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		f.keepPathOf(state)
	}
	f.setComputed(&plan)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// planWriteOnly plans a file written from content_wo: id and path from the
// identity (name and version); size from state when the same file is there
// (Read clears size when it is lost), else unknown until apply writes it.
func (r *firstbootFileResource) planWriteOnly(ctx context.Context, req resource.ModifyPlanRequest, plan *firstbootFileModel, diags *diag.Diagnostics) {
	id, p := r.writeOnlyIdentity(*plan)
	plan.ID, plan.Path = types.StringValue(id), types.StringValue(p)
	plan.Size = types.Int64Unknown()
	if req.State.Raw.IsNull() {
		return
	}
	var state firstbootFileModel
	diags.Append(req.State.Get(ctx, &state)...)
	if state.Path.ValueString() == p && !state.Size.IsNull() && !state.Size.IsUnknown() {
		plan.Size = state.Size
	}
}

// writeOnlyIdentity returns the id and path of a file written from
// content_wo: named after the name and the version, never the content.
func (r *firstbootFileResource) writeOnlyIdentity(m firstbootFileModel) (id, p string) {
	id = identityDigest([2]string{"name", m.Name.ValueString()}, versionPart("content_wo_version", m.ContentWOVersion))[:16]
	return id, filepath.Join(m.Directory.ValueString(), m.Name.ValueString()+"-"+id+r.kind.extension)
}

// fileForApply is the file a plan describes, from the configuration's
// content_wo when the plan has its version; the path is the planned one.
func (r *firstbootFileResource) fileForApply(ctx context.Context, plan firstbootFileModel, cfg tfsdk.Config, diags *diag.Diagnostics) (firstbootFile, bool) {
	at, content := path.Root("content"), plan.Content.ValueString()
	if !plan.ContentWOVersion.IsNull() {
		at, content = path.Root("content_wo"), firstbootContentWriteOnly.configValue(ctx, cfg, diags)
	}
	// content that was unknown at plan was not validated then
	if problem := r.kind.problem(content); problem != "" {
		diags.Append(r.kind.invalid(at, problem))
		return firstbootFile{}, false
	}
	if plan.ContentWOVersion.IsNull() {
		return r.file(plan), true
	}
	_, p := r.writeOnlyIdentity(plan)
	return firstbootFile{content: []byte(content), checksum: cloudinit.Checksum([]byte(content)), path: p}, true
}

// setState stores a written file: for content_wo the identity's id and no content.
func (r *firstbootFileResource) setState(ctx context.Context, f firstbootFile, m firstbootFileModel, state *tfsdk.State, diags *diag.Diagnostics) {
	f.setComputed(&m)
	if !m.ContentWOVersion.IsNull() {
		id, _ := r.writeOnlyIdentity(m)
		m.ID = types.StringValue(id)
	}
	m.ContentWO = types.StringNull()
	diags.Append(state.Set(ctx, m)...)
}

func (r *firstbootFileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan firstbootFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// ModifyPlan resolved the default directory.
	f, ok := r.fileForApply(ctx, plan, req.Config, &resp.Diagnostics)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	f.write(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	r.setState(ctx, f, plan, &resp.State, &resp.Diagnostics)
}

// Read writes the file again when it is missing or altered: it is a function
// of the state, so path and id stay the same and nothing downstream changes.
func (r *firstbootFileResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state firstbootFileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !state.ContentWOVersion.IsNull() {
		r.readWriteOnly(ctx, &state)
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		return
	}
	f := r.file(state)
	f.keepPathOf(state)
	if state.Directory.IsNull() { // a state from dmacvicar/libvirt 0.9
		state.Directory = types.StringValue(filepath.Dir(f.path))
	}
	onDisk, err := cloudinit.FileChecksum(f.path)
	switch {
	case err == nil && onDisk == f.checksum:
		// Present and intact: the common case on every plan.
	case err == nil || errors.Is(err, os.ErrNotExist):
		tflog.Info(ctx, r.kind.label+" file missing or altered; writing it again from state", map[string]any{"path": f.path})
		f.write(ctx, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	default:
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Cannot read "+r.kind.label+" file", err.Error())
		return
	}
	f.setComputed(&state)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// readWriteOnly checks a file written from content_wo. State cannot write
// it again (it holds no content): a lost file, or one of another size,
// clears size, which the next plan shows as an update that writes it again
// from the configuration.
func (r *firstbootFileResource) readWriteOnly(ctx context.Context, state *firstbootFileModel) {
	info, err := os.Stat(state.Path.ValueString())
	if err == nil && info.Mode().IsRegular() && info.Size() == state.Size.ValueInt64() {
		return
	}
	tflog.Info(ctx, r.kind.label+" file from content_wo missing or altered; the next apply writes it again", map[string]any{"path": state.Path.ValueString()})
	state.Size = types.Int64Null()
}

// Update is reached only when a computed value changed without an input
// changing (a provider upgrade that names files differently, or a file from
// content_wo that was lost): write the new file, then drop the old one.
func (r *firstbootFileResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state firstbootFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	f, ok := r.fileForApply(ctx, plan, req.Config, &resp.Diagnostics)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	f.write(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if old := state.Path.ValueString(); old != "" && old != f.path {
		if err := cloudinit.RemoveFile(old); err != nil {
			resp.Diagnostics.AddWarning("Old "+r.kind.label+" file left behind", err.Error())
		}
	}
	r.setState(ctx, f, plan, &resp.State, &resp.Diagnostics)
}

// Delete removes the file; one already gone is not an error.
func (r *firstbootFileResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state firstbootFileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := cloudinit.RemoveFile(state.Path.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("path"), "Cannot remove "+r.kind.label+" file", err.Error())
	}
}

// firstbootFile is the file for one content and where it belongs.
type firstbootFile struct {
	content  []byte
	checksum string // hex SHA-256 of content
	path     string
}

func (r *firstbootFileResource) file(m firstbootFileModel) firstbootFile {
	content := []byte(m.Content.ValueString())
	sum := cloudinit.Checksum(content)
	return firstbootFile{
		content:  content,
		checksum: sum,
		path:     filepath.Join(m.Directory.ValueString(), m.Name.ValueString()+"-"+sum[:16]+r.kind.extension),
	}
}

// keepPathOf keeps the file where state has it when the content is
// unchanged: a state from dmacvicar/libvirt 0.9.7 names its file in that
// provider's temporary directory, and a domain or volume using that path must
// not be replaced only because this provider names files differently.
func (f *firstbootFile) keepPathOf(state firstbootFileModel) {
	p := state.Path.ValueString()
	if p == "" || !filepath.IsAbs(p) {
		return
	}
	if state.ID.ValueString() == f.checksum[:16] {
		f.path = p
	}
}

func (f firstbootFile) write(ctx context.Context, diags *diag.Diagnostics) {
	// WriteFile is atomic and leaves nothing behind on failure; mode 0600 is
	// enough for QEMU because libvirt labels fw_cfg files while the domain runs.
	if err := cloudinit.WriteFile(f.path, f.content); err != nil {
		diags.AddAttributeError(path.Root("directory"), "Cannot write file", err.Error())
		return
	}
	tflog.Debug(ctx, "wrote first-boot file", map[string]any{"path": f.path, "checksum": f.checksum})
}

func (f firstbootFile) setComputed(m *firstbootFileModel) {
	m.ID = types.StringValue(f.checksum[:16])
	m.Path = types.StringValue(f.path)
	m.Size = types.Int64Value(int64(len(f.content)))
}

// defaultDirectory is a persistent per-user location, beside the
// cloud-init ISOs.
func (r *firstbootFileResource) defaultDirectory(diags *diag.Diagnostics) string {
	d := defaultCloudinitDirectory(diags)
	if d == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(d), r.kind.defaultDir)
}

// firstbootContentValidator rejects content the guest would only fail on
// at its first boot, where it is far harder to see.
type firstbootContentValidator struct{ kind firstbootKind }

func (v firstbootContentValidator) Description(context.Context) string {
	return "must be " + v.kind.allowed
}

func (v firstbootContentValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v firstbootContentValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if problem := v.kind.problem(req.ConfigValue.ValueString()); problem != "" {
		resp.Diagnostics.Append(v.kind.invalid(req.Path, problem))
	}
}

func (k firstbootKind) invalid(p path.Path, problem string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(p, "Invalid "+k.label,
		fmt.Sprintf("%s must be %s; %s.", p, k.allowed, problem))
}

// combustionProblem only refuses an empty script: Combustion runs whatever
// the file holds.
func combustionProblem(content string) string {
	if strings.TrimSpace(content) == "" {
		return "it is empty"
	}
	return ""
}

// ignitionProblem says what is wrong with content, or "" when nothing is.
func ignitionProblem(content string) string {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &top); err != nil {
		if strings.TrimSpace(content) == "" {
			return "it is empty"
		}
		return "it is not a JSON object: " + err.Error()
	}
	raw, ok := top["ignition"]
	if !ok {
		return "it has no \"ignition\" member"
	}
	var ign struct {
		Version *string `json:"version"`
	}
	if err := json.Unmarshal(raw, &ign); err != nil {
		return "\"ignition\" is not an object with a string version: " + err.Error()
	}
	if ign.Version == nil || *ign.Version == "" {
		return "ignition.version is missing or empty"
	}
	return ""
}
