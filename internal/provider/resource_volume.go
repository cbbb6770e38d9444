package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/volumecontent"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

var (
	_ resource.ResourceWithImportState = (*volumeResource)(nil)
	_ resource.ResourceWithConfigure   = (*volumeResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*volumeResource)(nil)
)

const volumeCreateTimeout = 30 * time.Minute

// NewVolumeResource returns the libvirt_volume resource.
func NewVolumeResource() resource.Resource {
	r := &volumeResource{}
	r.Base = treeresource.NewBase(treeresource.Spec[libvirtxml.StorageVolume]{
		Routing:  hostroute.Attributes("volume"),
		Name:     "volume",
		Model:    xmlschema.StorageVolume(),
		ImportID: "key or \"pool/name\"",
		Identity: volumeIdentity(),
		Description: "A libvirt storage volume. The attributes mirror the libvirt volume XML " +
			"(https://libvirt.org/formatstorage.html#storage-volume-xml) one to one, plus `pool`, `create` and `path`. " +
			"A volume is either empty (set `capacity`), an overlay on a base image (`backing_store`), or filled from " +
			"`create.content.url`, streamed into the pool without a temporary copy. Growing `capacity` resizes the volume " +
			"in place; a volume that running domains use is grown through QEMU (block resize), so the guests see the new size at once, " +
			"without a restart. Shrinking is refused; any other change replaces the volume. Deleting a volume that other volumes use " +
			"as backing file fails. " +
			"How any libvirt XML is written as attributes: see the guide \"Writing libvirt XML as attributes\".",
		Own: volumecontent.WithAttributes(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The volume's key (its path for file-based pools).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"pool": schema.StringAttribute{
				Required:      true,
				Description:   "Name of the storage pool holding the volume.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"path": schema.StringAttribute{
				Computed:      true,
				Description:   "Path of the volume on the libvirt host (the target path), for use in domain disks.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"timeouts": timeouts.Attributes(context.Background(), timeouts.Opts{Create: true}),
		}),
		// growing applies in place; any other change needs a new volume
		ReplaceOnChange: []string{treeresource.AllDocument},
		InPlace:         []string{"capacity", "capacity_unit"},
	}, r)
	return r
}

type volumeResource struct {
	treeresource.Base[libvirtxml.StorageVolume]
}

// ModifyPlan refuses shrinking and plans a replacement for every change
// Update cannot apply.
func (r *volumeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	config := treeresource.ObjectAttrs(req.Config.Raw)
	// a new volume needs its size from somewhere; an existing one (imported,
	// or moved from another provider) has one
	if !volumecontent.CheckConfig(config, &resp.Diagnostics) {
		return
	}
	if req.State.Raw.IsNull() && config["capacity"].IsNull() && config["create"].IsNull() && config["backing_store"].IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("capacity"), "Missing volume capacity",
			"capacity is required unless create.content.url or create.clone gives the volume its content (and size) "+
				"or backing_store names the image an overlay takes its size from.")
		return
	}
	if req.State.Raw.IsNull() {
		volumecontent.CheckNew(ctx, r.Client(), treeresource.ObjectAttrs(req.Plan.Raw), &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	plan := r.PlanUpdate(req, &resp.RequiresReplace)
	if plan == nil {
		return
	}
	state := treeresource.ObjectAttrs(req.State.Raw)
	volumecontent.PlanChanges(ctx, r.Client(), state, plan, resp.Private, &resp.RequiresReplace, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if want, ok := volumecontent.SizeBytes(plan, "capacity"); ok {
		if have, ok := volumecontent.SizeBytes(state, "capacity"); ok && want < have {
			resp.Diagnostics.AddAttributeError(path.Root("capacity"), "Volume cannot shrink",
				fmt.Sprintf("capacity %d bytes is smaller than the volume's current %d bytes. Shrinking a disk loses data, so it is refused; "+
					"grow it, or replace the volume (e.g. with a new name).", want, have))
			return
		}
	}
	treeresource.SetPlan(resp, plan)
}

func (r *volumeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	var to timeouts.Value
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("timeouts"), &to)...)
	if resp.Diagnostics.HasError() {
		return
	}
	createTimeout, diags := to.Create(ctx, volumeCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, createTimeout)
	defer cancel()

	model := r.Model()
	doc, err := model.FromValues(treeresource.DocValues(model.AttributeTypes(), plan))
	if err != nil {
		treeresource.AddConversionError(&resp.Diagnostics, "Invalid volume definition", err)
		return
	}
	poolName, _ := treeresource.String(plan, "pool")
	volumes := libvirtops.Volumes(r.Client())
	if err := volumes.FindPool(ctx, poolName); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("pool"), "Cannot find storage pool", fmt.Sprintf("pool %q: %v", poolName, err))
		return
	}
	// A volume of this name that is not in state is not taken over: it may
	// be the half-written leftover of an interrupted apply. Knowing that it
	// did not exist before is also what lets a create whose answer the
	// connection lost find out whether it happened.
	if exists, _ := volumes.Exists(ctx, poolName, doc.Name); exists {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Volume already exists",
			fmt.Sprintf("Pool %q already has a volume %q that is not in this state; an earlier apply may have been interrupted while writing it, "+
				"so its content is not trusted. If it is complete and yours, adopt it with an import block (id = \"%s/%s\"); "+
				"otherwise delete it: virsh vol-delete --pool %s %s", poolName, doc.Name, poolName, doc.Name, poolName, doc.Name))
		return
	}
	c := volumecontent.NewCreate(r.Client(), poolName, doc, plan, resp.Private, r.RemovalSaid)
	defer c.Close(&resp.State)
	r.Finish(ctx, c.Ending(ctx, req.Plan.Raw, &resp.Diagnostics), &resp.State, &resp.Diagnostics)
}

// Fetch reads the volume with this key; the pool and path it reports are
// own attributes.
func (r *volumeResource) Fetch(ctx context.Context, c *libvirtconn.Client, key string) (*treeresource.Fetched[libvirtxml.StorageVolume], error) {
	return fetchVolume(ctx, c, key)
}

// fetchVolume is Fetch without a resource: the data source of the same name reads with it too.
func fetchVolume(ctx context.Context, c *libvirtconn.Client, key string) (*treeresource.Fetched[libvirtxml.StorageVolume], error) {
	v, err := libvirtops.Volumes(c).Fetch(ctx, key)
	if err != nil {
		return nil, err
	}
	return &treeresource.Fetched[libvirtxml.StorageVolume]{Doc: v.Doc, Own: map[string]tftypes.Value{
		"id":   treeresource.StringValue(v.Key),
		"pool": treeresource.StringValue(v.Pool),
		"path": treeresource.StringValue(v.Path),
	}}, nil
}

// FixUp keeps a user's format "raw" (see keepRawFormat).
func (r *volumeResource) FixUp(prior map[string]tftypes.Value, doc *libvirtxml.StorageVolume) {
	keepRawFormat(prior, doc)
}

// PruneImported keeps what a configuration sets (name, sizes, format,
// backing store) and the target path libvirt chose: libvirt also reports
// permissions, timestamps and qcow2
// details, which a configuration rarely lists; keeping them would plan a
// replacement right after import.
func (r *volumeResource) PruneImported(doc *libvirtxml.StorageVolume) {
	if t := doc.Target; t != nil {
		// the path is libvirt's choice (computed): kept, as after a create
		doc.Target = &libvirtxml.StorageVolumeTarget{Path: t.Path, Format: t.Format}
	}
	if b := doc.BackingStore; b != nil {
		doc.BackingStore = &libvirtxml.StorageVolumeBackingStore{Path: b.Path, Format: b.Format}
	}
	doc.Type = ""
}

// Read refreshes the volume and, with verify_content, checks that it still
// holds what was written.
func (r *volumeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.Base.Read(ctx, req, resp)
	if resp.Diagnostics.HasError() || resp.State.Raw.IsNull() {
		return
	}
	volumecontent.VerifyRecorded(ctx, r.Client(), req.Private, resp)
}

// Update grows the volume; ModifyPlan replaces it for anything else.
func (r *volumeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	prior := treeresource.ObjectAttrs(req.State.Raw)
	key, _ := treeresource.String(prior, "id")
	compared := volumecontent.VerifyBeforeRecording(ctx, r.Client(), prior, plan, req.Private, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	want, wantOK := volumecontent.SizeBytes(plan, "capacity")
	have, _ := volumecontent.SizeBytes(prior, "capacity")
	if wantOK && want < have {
		resp.Diagnostics.AddAttributeError(path.Root("capacity"), "Volume cannot shrink",
			fmt.Sprintf("capacity %d bytes is smaller than the volume's current %d bytes", want, have))
		return
	}
	if !r.Finish(ctx, treeresource.Ending{Op: "update", Plan: req.Plan.Raw, ID: key, Prior: plan, Attr: path.Root("capacity"),
		Apply: func(*diag.Diagnostics) (string, error) {
			if !wantOK || want == have {
				return "", nil
			}
			volPath, _ := treeresource.String(prior, "path")
			live, err := libvirtops.Volumes(r.Client()).Grow(ctx, key, volPath, want)
			if len(live) > 0 {
				tflog.Info(ctx, "volume grown live in running domains", map[string]any{"volume": key, "disks": live, "bytes": want})
			}
			if err != nil {
				return "", fmt.Errorf("growing %s to %d bytes: %w", key, want, err)
			}
			return "", nil
		}}, &resp.State, &resp.Diagnostics) {
		return
	}
	compared.Record(ctx, &resp.State.Raw, resp.Private, &resp.Diagnostics)
}

func (r *volumeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	key, _ := treeresource.String(treeresource.ObjectAttrs(req.State.Raw), "id")
	err := libvirtops.Volumes(r.Client()).Delete(ctx, key)
	if err != nil && !libvirtconn.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete volume", err.Error())
	}
}

// LookUp accepts the volume key (its path for file pools) or "pool/name".
func (r *volumeResource) LookUp(ctx context.Context, c *libvirtconn.Client, importID string) (string, error) {
	return libvirtops.Volumes(c).LookUp(ctx, importID)
}

// keepRawFormat keeps a user's format "raw" when libvirt reports the content
// it probed instead (a dir pool reports an uploaded ISO image as "iso"): for
// libvirt both mean the bytes are used as they are.
func keepRawFormat(prior map[string]tftypes.Value, doc *libvirtxml.StorageVolume) {
	if doc.Target == nil || doc.Target.Format == nil || doc.Target.Format.Type != "iso" {
		return
	}
	format := treeresource.Nested(treeresource.Nested(prior["target"], "format"), "type")
	var s string
	if format.IsKnown() && !format.IsNull() && format.As(&s) == nil && s == "raw" {
		doc.Target.Format.Type = "raw"
	}
}
