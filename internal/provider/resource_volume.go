package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

func init() { registerResource("libvirt_volume", NewVolumeResource) }

var (
	_ resource.ResourceWithImportState = (*volumeResource)(nil)
	_ resource.ResourceWithConfigure   = (*volumeResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*volumeResource)(nil)
)

// NewVolumeResource returns the libvirt_volume resource.
func NewVolumeResource() resource.Resource { return &volumeResource{} }

type volumeResource struct {
	client *libvirtconn.Client
}

const volumeCreateTimeout = 30 * time.Minute

func (r *volumeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_volume"
}

func (r *volumeResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A libvirt storage volume. The attributes mirror the libvirt volume XML " +
			"(https://libvirt.org/formatstorage.html#storage-volume-xml) one to one, plus `pool`, `create` and `path`. " +
			"A volume is either empty (set `capacity`), an overlay on a base image (`backing_store`), or filled from " +
			"`create.content.url`, streamed into the pool without a temporary copy. Growing `capacity` resizes the volume " +
			"in place; shrinking is refused; any other change replaces the volume. Deleting a volume that other volumes use " +
			"as backing file fails. " +
			"How any libvirt XML is written as attributes: see the guide \"Writing libvirt XML as attributes\".",
		Attributes: mergeAttributes(xmlschema.StorageVolume().Attributes(), map[string]schema.Attribute{
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
			"create": schema.SingleNestedAttribute{
				Optional: true,
				Description: "Fill the volume when it is created. A change replaces the volume. After an import, adding it only " +
					"records the source in state.",
				Attributes: map[string]schema.Attribute{
					"content": schema.SingleNestedAttribute{
						Required:    true,
						Description: "Content to upload.",
						Attributes: map[string]schema.Attribute{
							"url": schema.StringAttribute{
								Required: true,
								Description: "Where the content comes from: `http://` or `https://` URL, `file://` URL or a local path " +
									"(on the machine running OpenTofu, e.g. `libvirt_cloudinit_disk.x.path`). It is streamed into the " +
									"volume with flat memory use; a server need not send Content-Length. A qcow2 image keeps its format " +
									"(`target.format.type` is set to `qcow2` unless given) and gives the volume its virtual size unless " +
									"`capacity` is larger (then the volume is grown after the upload). A failed download or upload " +
									"leaves no volume behind.",
							},
						},
					},
				},
			},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true}),
		}),
	}
}

func (r *volumeResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// volumeVolatile are reported by libvirt and change with use: they stay
// unknown in an update plan.
var volumeVolatile = map[string]bool{"allocation": true, "allocation_unit": true}

// volumeInPlace are the document attributes Update applies (growing).
var volumeInPlace = map[string]bool{"capacity": true, "capacity_unit": true}

// ModifyPlan checks what a volume needs, refuses shrinking, and plans a
// replacement for every change Update cannot apply.
func (r *volumeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	plan := objectAttrs(req.Plan.Raw)
	config := objectAttrs(req.Config.Raw)
	if config["name"].IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Missing volume name", "name is required: the volume's file name in its pool.")
	}
	if config["capacity"].IsNull() && config["create"].IsNull() && config["backing_store"].IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("capacity"), "Missing volume capacity",
			"capacity is required unless create.content.url gives the volume its content (and size) "+
				"or backing_store names the image an overlay takes its size from.")
	}
	if resp.Diagnostics.HasError() || req.State.Raw.IsNull() || plan == nil {
		return
	}
	state := objectAttrs(req.State.Raw)
	var compare []string
	for name := range xmlschema.StorageVolume().AttributeTypes() {
		if volumeVolatile[name] {
			continue
		}
		plan[name] = keepStateForUnknown(plan[name], state[name], config[name])
		if !volumeInPlace[name] {
			compare = append(compare, name)
		}
	}
	sort.Strings(compare)
	replaceChanged(plan, state, compare, &resp.RequiresReplace)
	// create: replacing content needs a new volume; recording it for an
	// imported volume (state has none) does not
	if sc := state["create"]; !sc.IsNull() && !plan["create"].Equal(sc) {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("create"))
	}
	if want, ok := sizeBytes(plan, "capacity"); ok {
		if have, ok := sizeBytes(state, "capacity"); ok && want < have {
			resp.Diagnostics.AddAttributeError(path.Root("capacity"), "Volume cannot shrink",
				fmt.Sprintf("capacity %d bytes is smaller than the volume's current %d bytes. Shrinking a disk loses data, so it is refused; "+
					"grow it, or replace the volume (e.g. with a new name).", want, have))
			return
		}
	}
	resp.Plan.Raw = tftypes.NewValue(req.Plan.Raw.Type(), plan)
}

func (r *volumeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	plan := objectAttrs(req.Plan.Raw)
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

	model := xmlschema.StorageVolume()
	doc, err := model.FromValues(docValues(model.AttributeTypes(), plan))
	if err != nil {
		addConversionError(&resp.Diagnostics, "Invalid volume definition", err)
		return
	}
	poolName, _ := stringAttr(plan, "pool")
	url := contentURL(plan)
	lockKey := poolLockKey(r.client.URI(), poolName)

	// Look the pool up through Do, which re-dials a broken connection; the
	// create and upload then use that connection directly: they must not be
	// repeated blindly on a new one.
	var l *libvirt.Libvirt
	var pool libvirt.StoragePool
	err = r.client.Do(ctx, func(conn *libvirt.Libvirt) error {
		var err error
		l = conn
		pool, err = conn.StoragePoolLookupByName(poolName)
		return err
	})
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("pool"), "Cannot find storage pool", fmt.Sprintf("pool %q: %v", poolName, err))
		return
	}
	var vol libvirt.StorageVol
	if url != "" {
		src, err := storage.Open(ctx, url)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("create"), "Cannot read volume content", "create.content.url: "+err.Error())
			return
		}
		defer src.Close()
		capacity, _ := sizeBytes(plan, "capacity")
		vol, err = storage.CreateVolume(ctx, l, &storageLocks, storage.VolumeRequest{
			Pool: pool, LockKey: lockKey, Def: doc, Capacity: capacity,
		}, src)
		if err != nil {
			resp.Diagnostics.AddError("Cannot create volume from content", err.Error())
			return
		}
	} else {
		xml, err := doc.Marshal()
		if err != nil {
			resp.Diagnostics.AddError("Cannot write volume XML", err.Error())
			return
		}
		unlock := storageLocks.Lock(lockKey)
		vol, err = l.StorageVolCreateXML(pool, xml, 0)
		unlock()
		if err != nil {
			resp.Diagnostics.AddError("Cannot create volume", fmt.Sprintf("creating volume %q in pool %q: %v", doc.Name, poolName, err))
			return
		}
	}
	state, found, err := r.read(ctx, vol.Key, plan)
	if err != nil || !found {
		// not in state means nobody would delete it: remove it now
		derr := r.client.Do(ctx, func(l *libvirt.Libvirt) error {
			unlock := storageLocks.Lock(lockKey)
			defer unlock()
			return l.StorageVolDelete(vol, 0)
		})
		msg := fmt.Sprintf("volume %s: %v", vol.Key, err)
		if derr != nil && !libvirtconn.IsNotFound(derr) {
			msg += fmt.Sprintf("; deleting it again also failed, remove it by hand: %v", derr)
		}
		resp.Diagnostics.AddError("Cannot read volume after create", msg)
		return
	}
	resp.State.Raw = state.object(req.Plan.Raw.Type())
}

// contentURL returns create.content.url, "" when not set.
func contentURL(attrs map[string]tftypes.Value) string {
	create := objectAttrs(attrs["create"])
	content := objectAttrs(create["content"])
	url, _ := stringAttr(content, "url")
	return url
}

// read fetches the volume by key and reconciles it with prior (nil on import).
func (r *volumeResource) read(ctx context.Context, key string, prior map[string]tftypes.Value) (*treeRead, bool, error) {
	var xml string
	var vol libvirt.StorageVol
	err := r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		if vol, err = l.StorageVolLookupByKey(key); err != nil {
			return err
		}
		xml, err = l.StorageVolGetXMLDesc(vol, 0)
		return err
	})
	if libvirtconn.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var doc libvirtxml.StorageVolume
	if err := doc.Unmarshal(xml); err != nil {
		return nil, false, fmt.Errorf("parsing volume XML: %w", err)
	}
	model := xmlschema.StorageVolume()
	types := model.AttributeTypes()
	var priorDoc map[string]tftypes.Value
	if prior != nil {
		priorDoc = docValues(types, prior)
		keepRawFormat(priorDoc, &doc)
	} else {
		pruneImportedVolume(&doc)
	}
	volPath := ""
	if doc.Target != nil {
		volPath = doc.Target.Path
	}
	if volPath == "" {
		volPath = vol.Key
	}
	own := map[string]tftypes.Value{
		"id":   tfString(vol.Key),
		"pool": tfString(vol.Pool),
		"path": tfString(volPath),
	}
	objType := func(name string) tftypes.Type {
		return volumeOwnTypes[name]
	}
	for _, name := range []string{"create", "timeouts"} {
		if v, ok := prior[name]; ok {
			own[name] = v
		} else {
			own[name] = tftypes.NewValue(objType(name), nil)
		}
	}
	return &treeRead{doc: model.Reconcile(priorDoc, model.ToValues(&doc)), own: own}, true, nil
}

// volumeOwnTypes are the tftypes of the object-valued own attributes.
var volumeOwnTypes = map[string]tftypes.Type{
	"create": tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"content": tftypes.Object{AttributeTypes: map[string]tftypes.Type{"url": tftypes.String}},
	}},
	"timeouts": tftypes.Object{AttributeTypes: map[string]tftypes.Type{"create": tftypes.String}},
}

// pruneImportedVolume keeps what a configuration sets (name, sizes, format,
// backing store): libvirt also reports permissions, timestamps and qcow2
// details, which a configuration rarely lists; keeping them would plan a
// replacement right after import.
func pruneImportedVolume(doc *libvirtxml.StorageVolume) {
	if t := doc.Target; t != nil {
		doc.Target = nil
		if t.Format != nil {
			doc.Target = &libvirtxml.StorageVolumeTarget{Format: t.Format}
		}
	}
	if b := doc.BackingStore; b != nil {
		doc.BackingStore = &libvirtxml.StorageVolumeBackingStore{Path: b.Path, Format: b.Format}
	}
	doc.Type = ""
}

func (r *volumeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	prior := objectAttrs(req.State.Raw)
	key, _ := stringAttr(prior, "id")
	if importing(prior) {
		prior = nil
	}
	state, found, err := r.read(ctx, key, prior)
	storeRead(ctx, resp, "volume", state, found, err)
}

// Update grows the volume; ModifyPlan replaces it for anything else.
func (r *volumeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	plan := objectAttrs(req.Plan.Raw)
	prior := objectAttrs(req.State.Raw)
	key, _ := stringAttr(prior, "id")
	want, wantOK := sizeBytes(plan, "capacity")
	have, _ := sizeBytes(prior, "capacity")
	if wantOK && want > have {
		err := r.client.Do(ctx, func(l *libvirt.Libvirt) error {
			vol, err := l.StorageVolLookupByKey(key)
			if err != nil {
				return err
			}
			unlock := storageLocks.Lock(poolLockKey(r.client.URI(), vol.Pool))
			defer unlock()
			return l.StorageVolResize(vol, want, 0)
		})
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("capacity"), "Cannot grow volume", fmt.Sprintf("resizing %s to %d bytes: %v", key, want, err))
			return
		}
	} else if wantOK && want < have {
		resp.Diagnostics.AddAttributeError(path.Root("capacity"), "Volume cannot shrink",
			fmt.Sprintf("capacity %d bytes is smaller than the volume's current %d bytes", want, have))
		return
	}
	state, found, err := r.read(ctx, key, plan)
	if err != nil || !found {
		resp.Diagnostics.AddError("Cannot read volume after update", fmt.Sprintf("volume %s: %v", key, err))
		return
	}
	resp.State.Raw = state.object(req.Plan.Raw.Type())
}

func (r *volumeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	key, _ := stringAttr(objectAttrs(req.State.Raw), "id")
	err := r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		vol, err := l.StorageVolLookupByKey(key)
		if err != nil {
			return err
		}
		xml, err := l.StorageVolGetXMLDesc(vol, 0)
		if err != nil {
			return err
		}
		var doc libvirtxml.StorageVolume
		if err := doc.Unmarshal(xml); err != nil {
			return fmt.Errorf("parsing volume XML: %w", err)
		}
		volPath := key
		if doc.Target != nil && doc.Target.Path != "" {
			volPath = doc.Target.Path
		}
		// libvirt deletes a base image that overlays still use: refuse here
		users, err := backingUsers(l, volPath)
		if err != nil {
			return err
		}
		if len(users) > 0 {
			return fmt.Errorf("volume %s is the backing file of %s; delete those volumes first", volPath, strings.Join(users, ", "))
		}
		unlock := storageLocks.Lock(poolLockKey(r.client.URI(), vol.Pool))
		defer unlock()
		return l.StorageVolDelete(vol, 0)
	})
	if err != nil && !libvirtconn.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete volume", err.Error())
	}
}

// backingUsers lists the volumes, in every active pool, whose backing store
// is path.
func backingUsers(l *libvirt.Libvirt, volPath string) ([]string, error) {
	pools, _, err := l.ConnectListAllStoragePools(1, libvirt.ConnectListStoragePoolsActive)
	if err != nil {
		return nil, fmt.Errorf("listing pools to check for overlays: %w", err)
	}
	var users []string
	for _, p := range pools {
		vols, _, err := l.StoragePoolListAllVolumes(p, 1, 0)
		if err != nil {
			continue // pool stopped meanwhile
		}
		for _, v := range vols {
			if v.Key == volPath {
				continue
			}
			xml, err := l.StorageVolGetXMLDesc(v, 0)
			if err != nil {
				continue // deleted meanwhile
			}
			if !strings.Contains(xml, "<backingStore>") {
				continue
			}
			var doc libvirtxml.StorageVolume
			if doc.Unmarshal(xml) == nil && doc.BackingStore != nil && doc.BackingStore.Path == volPath {
				users = append(users, v.Key)
			}
		}
	}
	sort.Strings(users)
	return users, nil
}

// ImportState accepts the volume key (its path for file pools) or "pool/name".
func (r *volumeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	var key string
	err := r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		vol, err := l.StorageVolLookupByKey(req.ID)
		if err == nil {
			key = vol.Key
			return nil
		}
		poolName, name, ok := strings.Cut(req.ID, "/")
		if !ok || poolName == "" || name == "" || strings.Contains(name, "/") {
			return err
		}
		pool, perr := l.StoragePoolLookupByName(poolName)
		if perr != nil {
			return perr
		}
		vol, err = l.StorageVolLookupByName(pool, name)
		if err != nil {
			return err
		}
		key = vol.Key
		return nil
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot import volume",
			fmt.Sprintf("no volume with key %q and no \"pool/name\" match: %v", req.ID, err))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), key)...)
}

func (r *volumeResource) documentModel() documentModel { return xmlschema.StorageVolume() }

// keepRawFormat keeps a user's format "raw" when libvirt reports the content
// it probed instead (a dir pool reports an uploaded ISO image as "iso"): for
// libvirt both mean the bytes are used as they are.
func keepRawFormat(prior map[string]tftypes.Value, doc *libvirtxml.StorageVolume) {
	if doc.Target == nil || doc.Target.Format == nil || doc.Target.Format.Type != "iso" {
		return
	}
	format := nestedAttr(nestedAttr(prior["target"], "format"), "type")
	var s string
	if format.IsKnown() && !format.IsNull() && format.As(&s) == nil && s == "raw" {
		doc.Target.Format.Type = "raw"
	}
}
