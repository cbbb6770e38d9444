package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

var (
	_ resource.ResourceWithImportState    = (*domainSnapshotResource)(nil)
	_ resource.ResourceWithConfigure      = (*domainSnapshotResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*domainSnapshotResource)(nil)
	_ resource.ResourceWithValidateConfig = (*domainSnapshotResource)(nil)
)

// The snapshot's own attributes, beside the XML tree.
const (
	snapAttrDomain       = "domain"
	snapAttrDiskOnly     = "disk_only"
	snapAttrQuiesce      = "quiesce"
	snapAttrLive         = "live"
	snapAttrAtomic       = "atomic"
	snapAttrState        = "state"
	snapAttrCreationTime = "creation_time"
	snapAttrParent       = "parent"
)

// snapshotCreateFlags reads the create-flag attributes.
func snapshotCreateFlags(plan map[string]tftypes.Value) libvirtops.SnapshotFlags {
	var f libvirtops.SnapshotFlags
	f.DiskOnly, _ = treeresource.Bool(plan, snapAttrDiskOnly)
	f.Quiesce, _ = treeresource.Bool(plan, snapAttrQuiesce)
	f.Live, _ = treeresource.Bool(plan, snapAttrLive)
	f.Atomic, _ = treeresource.Bool(plan, snapAttrAtomic)
	return f
}

// NewDomainSnapshotResource returns the libvirt_domain_snapshot resource.
func NewDomainSnapshotResource() resource.Resource {
	r := &domainSnapshotResource{}
	createFlag := func(desc string) schema.BoolAttribute {
		return schema.BoolAttribute{
			Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()},
			Description: desc + " Used only when the snapshot is created: changing it replaces the snapshot. libvirt does not " +
				"record it, so after an import it is false. Default: false.",
		}
	}
	computedString := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{
			Computed: true, Description: desc,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		}
	}
	r.Base = treeresource.NewBase(treeresource.Spec[libvirtxml.DomainSnapshot]{
		Routing:  hostroute.Attributes("snapshot"),
		Name:     "domain_snapshot",
		Noun:     "snapshot",
		Identity: snapshotIdentity(),
		Model:    xmlschema.DomainSnapshot(),
		Description: "A snapshot of a libvirt domain, taken with virDomainSnapshotCreateXML. The attributes mirror the " +
			"libvirt snapshot XML (https://libvirt.org/formatsnapshot.html); the domain definition libvirt stores inside " +
			"the snapshot is not part of the schema. `domain` is the domain's UUID (`libvirt_domain.<name>.id`).\n\n" +
			"**Kinds.** Without `disks`, libvirt takes an *internal* snapshot inside every qcow2 disk (all disks must be " +
			"qcow2), and of a running domain it also saves the memory state (`memory.snapshot = \"internal\"`). " +
			"An *external* disk-only snapshot (`disk_only = true`, `disks.disks[].snapshot = \"external\"` with " +
			"`source.file.file`) makes libvirt create a qcow2 overlay file per disk and switches the domain's disk to the " +
			"overlay: the original image becomes its read-only backing file. For a running domain, " +
			"`memory = { snapshot = \"external\", file = ... }` with external disks also saves the memory state to a file. " +
			"List every disk of the domain in `disks.disks` when you set it (`snapshot = \"no\"` leaves one out): libvirt " +
			"reports every disk.\n\n" +
			"**Changes.** Only `description` changes in place (the snapshot's metadata is redefined with " +
			"VIR_DOMAIN_SNAPSHOT_CREATE_REDEFINE; the current snapshot stays current). Any other change, and a change of " +
			"`domain` or of a create flag, replaces the snapshot.\n\n" +
			"**The domain's disks after an external snapshot.** libvirt rewrites the domain's disk `source` to the overlay " +
			"file. A `libvirt_domain` whose configuration names the original image then plans to change the disk back, " +
			"which would detach the domain from its overlay: add `lifecycle { ignore_changes = [devices] }` to a domain " +
			"that takes external snapshots (see the example).\n\n" +
			"**Delete.** Deleting an internal snapshot removes it from the qcow2 images. For an external snapshot, " +
			"libvirt 9.0 merges the overlay back into its backing file and removes the overlay when the domain's disk " +
			"is a plain file (`source.file`); when libvirt refuses (a disk given as a pool volume, `source.volume`, is " +
			"refused by libvirt 9.0), only the snapshot's metadata is deleted, with a warning: the overlay and memory " +
			"files stay and the domain keeps using the overlay, whose backing file is the original image, so the domain " +
			"stays consistent and starts as before. Remove those files yourself once the domain no longer uses them. " +
			"libvirt never deletes an external memory state file (`memory.file`), also not after a merge: a warning names it. " +
			"Destroying the `libvirt_domain` removes the metadata of all its snapshots.\n\n" +
			"**Revert.** There is no revert resource: revert with the action `libvirt_domain_snapshot_revert` " +
			"(Terraform 1.14 and later) or, with OpenTofu, `virsh snapshot-revert <domain> <snapshot>` " +
			"(libvirt 9.0 reverts internal snapshots and refuses external ones). A revert changes no snapshot resource. " +
			"The domain resource reads the restored domain at the next refresh: reverted to a snapshot taken while it " +
			"ran, the domain runs again and `running = true` plans nothing; where the restored domain differs from its " +
			"configuration (`running`, or a definition changed after the snapshot was taken, which the revert restores), " +
			"the next plan changes it back.\n\n" +
			"Import with `<domain UUID or name>/<snapshot name>`.",
		ImportID: "`<domain UUID or name>/<snapshot name>`",
		Own: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "`<domain UUID>/<snapshot name>`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			snapAttrDomain: schema.StringAttribute{
				Required:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Description:   "UUID of the domain to snapshot (`libvirt_domain.<name>.id`). Changing it replaces the snapshot.",
			},
			snapAttrDiskOnly: createFlag("Take a disk-only snapshot, without the memory state " +
				"(VIR_DOMAIN_SNAPSHOT_CREATE_DISK_ONLY); needed for external disk snapshots without `memory`."),
			snapAttrQuiesce: createFlag("Freeze the guest's file systems during the snapshot " +
				"(VIR_DOMAIN_SNAPSHOT_CREATE_QUIESCE); needs a running domain with the QEMU guest agent and `disk_only`."),
			snapAttrLive: createFlag("Keep the domain running while its memory is saved " +
				"(VIR_DOMAIN_SNAPSHOT_CREATE_LIVE; external memory snapshots of a running domain only)."),
			snapAttrAtomic: createFlag("Either every disk is snapshotted or none is " +
				"(VIR_DOMAIN_SNAPSHOT_CREATE_ATOMIC)."),
			snapAttrState:        computedString("The domain's state when the snapshot was taken (`shutoff`, `running`, `disk-snapshot`...), as libvirt records it."),
			snapAttrCreationTime: computedString("When the snapshot was taken (RFC 3339, UTC)."),
			snapAttrParent: schema.StringAttribute{
				Computed: true,
				Description: "Name of the parent snapshot (the domain's current snapshot when this one was taken); empty for " +
					"a root snapshot. It changes when the parent is deleted (libvirt re-parents the children).",
			},
		},
		// only the description can be redefined without retaking the snapshot
		ReplaceOnChange: []string{treeresource.AllDocument},
		InPlace:         []string{"description"},
	}, r)
	return r
}

type domainSnapshotResource struct {
	treeresource.Base[libvirtxml.DomainSnapshot]
}

// snapshotID is the resource id: the domain's UUID and the snapshot name.
var snapshotID = libvirtops.SnapshotID

// ModifyPlan plans a replacement for every document change but the
// description, which Update redefines.
func (r *domainSnapshotResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan := r.PlanUpdate(req, &resp.RequiresReplace)
	if plan == nil {
		return // create or destroy
	}
	treeresource.SetPlan(resp, plan)
}

// ValidateConfig checks what libvirt would only refuse at apply: the domain
// reference and the snapshot modes.
func (r *domainSnapshotResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	cfg := treeresource.ObjectAttrs(req.Config.Raw)
	if d, ok := treeresource.String(cfg, snapAttrDomain); ok {
		if _, err := libvirtops.ParseUUID(d); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root(snapAttrDomain), "Invalid domain",
				fmt.Sprintf("domain = %q is not a UUID: set the domain's UUID, libvirt_domain.<name>.id", d))
		}
	}
	if n, ok := treeresource.String(cfg, "name"); ok && (n == "" || strings.Contains(n, "/")) {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Invalid snapshot name",
			fmt.Sprintf("name = %q: a snapshot name must be non-empty and must not contain \"/\"", n))
	}
	if m, ok := cfg["memory"]; ok && m.IsKnown() && !m.IsNull() {
		mem := treeresource.ObjectAttrs(m)
		s, known := treeresource.String(mem, "snapshot")
		if known && !oneOf(s, "no", "internal", "external") {
			resp.Diagnostics.AddAttributeError(path.Root("memory").AtName("snapshot"), "Invalid memory snapshot mode",
				fmt.Sprintf("memory.snapshot = %q: allowed are \"no\", \"internal\" and \"external\"", s))
		}
		file, hasFile := treeresource.String(mem, "file")
		if known && s == "external" && (!hasFile || file == "") && !unknown(mem["file"]) {
			resp.Diagnostics.AddAttributeError(path.Root("memory").AtName("file"), "Missing memory file",
				"memory.snapshot = \"external\" needs memory.file, the absolute path of the file libvirt saves the memory state to")
		}
		if known && s != "" && s != "no" {
			if diskOnly, _ := treeresource.Bool(cfg, snapAttrDiskOnly); diskOnly {
				resp.Diagnostics.AddAttributeError(path.Root(snapAttrDiskOnly), "Conflicting snapshot modes",
					fmt.Sprintf("disk_only = true takes no memory state, but memory.snapshot = %q: set memory.snapshot = \"no\" or disk_only = false", s))
			}
		}
	}
	disks := treeresource.ObjectAttrs(cfg["disks"])
	var list []tftypes.Value
	if v, ok := disks["disks"]; ok && v.IsKnown() && !v.IsNull() {
		_ = v.As(&list)
	}
	for i, d := range list {
		attrs := treeresource.ObjectAttrs(d)
		s, known := treeresource.String(attrs, "snapshot")
		p := path.Root("disks").AtName("disks").AtListIndex(i)
		if known && !oneOf(s, "no", "internal", "external", "manual") {
			resp.Diagnostics.AddAttributeError(p.AtName("snapshot"), "Invalid disk snapshot mode",
				fmt.Sprintf("disks.disks[%d].snapshot = %q: allowed are \"no\", \"internal\", \"external\" and \"manual\"", i, s))
		}
		if n, ok := treeresource.String(attrs, "name"); !ok && !unknown(attrs["name"]) || ok && n == "" {
			resp.Diagnostics.AddAttributeError(p.AtName("name"), "Missing disk name",
				fmt.Sprintf("disks.disks[%d].name is required: the disk's target device (\"vda\") or source path", i))
		}
	}
}

func oneOf(s string, allowed ...string) bool {
	for _, a := range allowed {
		if s == a {
			return true
		}
	}
	return false
}

func unknown(v tftypes.Value) bool { return v.Type() != nil && !v.IsKnown() }

func (r *domainSnapshotResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	model := r.Model()
	doc, err := model.FromValues(treeresource.DocValues(model.AttributeTypes(), plan))
	if err != nil {
		treeresource.AddConversionError(&resp.Diagnostics, "Invalid snapshot definition", err)
		return
	}
	domainID, _ := treeresource.String(plan, snapAttrDomain)
	if _, err := libvirtops.ParseUUID(domainID); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root(snapAttrDomain), "Invalid domain", err.Error())
		return
	}
	if _, err := doc.Marshal(); err != nil {
		resp.Diagnostics.AddError("Cannot write snapshot XML", err.Error())
		return
	}
	snapshots := libvirtops.Snapshots(r.Client())
	// a snapshot of this name that is not ours: never touch it
	exists, err := snapshots.Exists(ctx, domainID, doc.Name)
	if err == nil && exists {
		err = fmt.Errorf("domain %s already has a snapshot named %q; import it with id %q, or delete it: "+
			"virsh snapshot-delete %s %s", domainID, doc.Name, snapshotID(domainID, doc.Name), domainID, doc.Name)
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Cannot create snapshot", err.Error())
		return
	}
	id := snapshotID(domainID, doc.Name)
	r.Finish(ctx, treeresource.Ending{Op: "create", Plan: req.Plan.Raw, ID: id, Prior: plan, Apply: func(*diag.Diagnostics) (string, error) {
		if err := snapshots.Create(ctx, domainID, doc, snapshotCreateFlags(plan)); err != nil {
			return "", fmt.Errorf("snapshot %q of domain %s: %w", doc.Name, domainID, err)
		}
		return "", nil
	}, Undo: func() (string, bool) {
		// libvirt removes what a failed snapshot create made (overlays included)
		if exists, err := snapshots.Exists(ctx, domainID, doc.Name); err == nil && !exists {
			return "", false
		}
		var diags diag.Diagnostics
		r.deleteSnapshot(ctx, id, &diags)
		if diags.HasError() {
			return fmt.Sprintf("; deleting the snapshot failed too: %v; delete it with virsh snapshot-delete %s %s", diags, domainID, doc.Name), false
		}
		return " (the snapshot was deleted again)", false
	}}, &resp.State, &resp.Diagnostics)
}

// Fetch reads the snapshot's XML; the embedded domain definitions are
// dropped (not in the schema).
func (r *domainSnapshotResource) Fetch(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.DomainSnapshot], error) {
	domainUUID, _, err := libvirtops.ParseSnapshotID(id)
	if err != nil {
		return nil, err
	}
	doc, err := libvirtops.Snapshots(c).Fetch(ctx, id)
	if err != nil {
		return nil, err
	}
	created := ""
	if secs, err := strconv.ParseInt(doc.CreationTime, 10, 64); err == nil {
		created = time.Unix(secs, 0).UTC().Format(time.RFC3339)
	}
	parent := ""
	if doc.Parent != nil {
		parent = doc.Parent.Name
	}
	own := map[string]tftypes.Value{
		"id":                 treeresource.StringValue(snapshotID(domainUUID, doc.Name)),
		snapAttrDomain:       treeresource.StringValue(domainUUID),
		snapAttrState:        treeresource.StringValue(doc.State),
		snapAttrCreationTime: treeresource.StringValue(created),
		snapAttrParent:       treeresource.StringValue(parent),
	}
	snapshotOutputOnly(doc)
	return &treeresource.Fetched[libvirtxml.DomainSnapshot]{Doc: doc, Own: own}, nil
}

// snapshotOutputOnly drops what libvirt writes beside the configuration:
// the embedded definitions, and the empty file source libvirtxml invents
// for a disk without one (an internal snapshot's <disk name snapshot/>).
func snapshotOutputOnly(doc *libvirtxml.DomainSnapshot) {
	doc.Domain, doc.InactiveDomain, doc.Cookie, doc.Active = nil, nil, nil, nil
	doc.State, doc.CreationTime, doc.Parent = "", "", nil
	if doc.Disks == nil {
		return
	}
	for i := range doc.Disks.Disks {
		s := doc.Disks.Disks[i].Source
		if s != nil && s.Block == nil && (s.File == nil || s.File.File == "") {
			doc.Disks.Disks[i].Source = nil
		}
	}
}

// LookUp resolves `<domain UUID or name>/<snapshot name>`.
func (r *domainSnapshotResource) LookUp(ctx context.Context, c *libvirtconn.Client, importID string) (string, error) {
	return libvirtops.Snapshots(c).LookUp(ctx, importID)
}

// Update redefines the snapshot's metadata with the new description;
// ModifyPlan replaces the snapshot for any other change.
func (r *domainSnapshotResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	id, _ := treeresource.String(treeresource.ObjectAttrs(req.State.Raw), "id")
	if _, _, err := libvirtops.ParseSnapshotID(id); err != nil {
		resp.Diagnostics.AddError("Invalid snapshot id", err.Error())
		return
	}
	description, _ := treeresource.String(plan, "description")
	r.Finish(ctx, treeresource.Ending{Op: "update", Plan: req.Plan.Raw, ID: id, Prior: plan, Attr: path.Root("description"),
		Apply: func(*diag.Diagnostics) (string, error) {
			return "", libvirtops.Snapshots(r.Client()).SetDescription(ctx, id, description)
		}}, &resp.State, &resp.Diagnostics)
}

func (r *domainSnapshotResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	id, _ := treeresource.String(treeresource.ObjectAttrs(req.State.Raw), "id")
	r.deleteSnapshot(ctx, id, &resp.Diagnostics)
}

// deleteSnapshot deletes the snapshot and its data. When libvirt refuses
// to delete the data of an external snapshot, only the metadata is deleted
// and a warning names the files left: the domain keeps its overlays, whose
// backing files are the original images, so it stays usable.
func (r *domainSnapshotResource) deleteSnapshot(ctx context.Context, id string, diags *diag.Diagnostics) {
	domUUID, name, err := libvirtops.ParseSnapshotID(id)
	if err != nil {
		diags.AddError("Invalid snapshot id", err.Error())
		return
	}
	deleted, err := libvirtops.Snapshots(r.Client()).Delete(ctx, id)
	memoryKept, refused, left := deleted.MemoryKept, deleted.Refused, deleted.Left
	if err != nil && !libvirtconn.IsNotFound(err) {
		diags.AddError("Cannot delete snapshot", fmt.Sprintf("snapshot %q of domain %s: %v", name, domUUID, err))
		return
	}
	if memoryKept != "" {
		diags.AddWarning("External snapshot: memory file kept",
			fmt.Sprintf("Snapshot %q of domain %s was deleted and its disk overlays merged back, but libvirt does not delete "+
				"the memory state file %s: remove it yourself.", name, domUUID, memoryKept))
	}
	if refused != nil {
		diags.AddWarning("External snapshot: metadata deleted, files kept",
			fmt.Sprintf("libvirt refused to merge external snapshot %q of domain %s back (%v); its metadata was deleted and "+
				"these files were kept: %s. The domain keeps using its overlay files, backed by the original images. "+
				"Remove the files once the domain no longer uses them.",
				name, domUUID, refused, strings.Join(left, ", ")))
	}
}
