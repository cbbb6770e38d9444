package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

func init() { registerResource("libvirt_pool", NewPoolResource) }

var (
	_ resource.ResourceWithImportState = (*poolResource)(nil)
	_ resource.ResourceWithConfigure   = (*poolResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*poolResource)(nil)
)

// NewPoolResource returns the libvirt_pool resource.
func NewPoolResource() resource.Resource { return &poolResource{} }

type poolResource struct {
	client *libvirtconn.Client
}

func (r *poolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pool"
}

func (r *poolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A libvirt storage pool. The attributes mirror the libvirt storage pool XML " +
			"(https://libvirt.org/formatstorage.html) one to one; `name` and `type` are required. " +
			"The pool is defined, built when its type needs it (`dir`, `fs` and `netfs` create their target directory; " +
			"other types such as `logical` are passed to libvirt unchanged and never formatted) and started. " +
			"Only `autostart` and `delete_volumes` change in place: any change to the pool document replaces the pool. " +
			"Deleting a pool that still holds volumes fails unless `delete_volumes` is true. " +
			"How any libvirt XML is written as attributes: see the guide \"Writing libvirt XML as attributes\".",
		Attributes: mergeAttributes(xmlschema.StoragePool().Attributes(), map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The pool's UUID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"autostart": schema.BoolAttribute{
				Optional:    true,
				Computed:    true,
				Default:     booldefault.StaticBool(false),
				Description: "Start the pool when libvirtd starts.",
			},
			"delete_volumes": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				Description: "When true, destroying the pool first deletes every volume in it, including volumes not managed by this configuration. " +
					"When false (the default), destroying a pool that still holds volumes fails and lists them.",
			},
		}),
	}
}

func (r *poolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

// poolDocNames are the document's top-level attributes, sorted.
func poolDocNames() []string {
	var names []string
	for name := range xmlschema.StoragePool().AttributeTypes() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// poolVolatile are reported by libvirt and may change between reads: they
// stay unknown in an update plan.
var poolVolatile = map[string]bool{
	"allocation": true, "allocation_unit": true, "capacity": true, "capacity_unit": true,
	"available": true, "available_unit": true,
}

// ModifyPlan checks required document attributes and plans a replacement for
// every change of the document: libvirt applies no pool change in place.
func (r *poolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	plan := objectAttrs(req.Plan.Raw)
	config := objectAttrs(req.Config.Raw)
	for _, name := range []string{"name", "type"} {
		if v := config[name]; v.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Missing pool "+name,
				fmt.Sprintf("%s is required: the pool's %s (type: dir, fs, netfs, logical, disk, iscsi, iscsi-direct, scsi, mpath, rbd, gluster, zfs, vstorage).", name, name))
		}
	}
	if resp.Diagnostics.HasError() || req.State.Raw.IsNull() || plan == nil {
		return
	}
	state := objectAttrs(req.State.Raw)
	names := poolDocNames()
	var compare []string
	for _, name := range names {
		if poolVolatile[name] {
			continue
		}
		plan[name] = keepStateForUnknown(plan[name], state[name], config[name])
		compare = append(compare, name)
	}
	replaceChanged(plan, state, compare, &resp.RequiresReplace)
	resp.Plan.Raw = tftypes.NewValue(req.Plan.Raw.Type(), plan)
}

// poolBuildTypes need their target directory created before they start;
// building them without flags never formats anything.
var poolBuildTypes = map[string]bool{"dir": true, "fs": true, "netfs": true}

func (r *poolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	plan := objectAttrs(req.Plan.Raw)
	model := xmlschema.StoragePool()
	doc, err := model.FromValues(docValues(model.AttributeTypes(), plan))
	if err != nil {
		addConversionError(&resp.Diagnostics, "Invalid pool definition", err)
		return
	}
	xml, err := doc.Marshal()
	if err != nil {
		resp.Diagnostics.AddError("Cannot write pool XML", err.Error())
		return
	}
	autostart, _ := boolAttr(plan, "autostart")
	var pool libvirt.StoragePool
	err = r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		pool, err = l.StoragePoolDefineXML(xml, uint32(libvirt.StoragePoolDefineValidate))
		if err != nil {
			return fmt.Errorf("defining pool: %w", err)
		}
		built := false
		undo := func(step string, err error) error {
			// leave nothing behind: the directory we made, the definition
			if built {
				_ = l.StoragePoolDelete(pool, libvirt.StoragePoolDeleteNormal)
			}
			_ = l.StoragePoolUndefine(pool)
			return fmt.Errorf("%s pool %q: %w", step, pool.Name, err)
		}
		if poolBuildTypes[doc.Type] {
			if err := l.StoragePoolBuild(pool, libvirt.StoragePoolBuildNew); err != nil {
				return undo("building", err)
			}
			built = true
		}
		if err := l.StoragePoolCreate(pool, 0); err != nil {
			return undo("starting", err)
		}
		if autostart {
			if err := l.StoragePoolSetAutostart(pool, 1); err != nil {
				_ = l.StoragePoolDestroy(pool)
				return undo("setting autostart of", err)
			}
		}
		return nil
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot create pool", err.Error())
		return
	}
	state, found, err := r.read(ctx, pool, plan)
	if err != nil || !found {
		resp.Diagnostics.AddError("Cannot read pool after create", fmt.Sprint(err))
		return
	}
	resp.State.Raw = state.object(req.Plan.Raw.Type())
}

// read fetches the pool document and autostart flag and reconciles them with
// prior (nil on import: then only what a configuration typically sets is kept).
func (r *poolResource) read(ctx context.Context, pool libvirt.StoragePool, prior map[string]tftypes.Value) (*treeRead, bool, error) {
	var xml string
	var autostart int32
	err := r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		if xml, err = l.StoragePoolGetXMLDesc(pool, 0); err != nil {
			return err
		}
		autostart, err = l.StoragePoolGetAutostart(pool)
		return err
	})
	if libvirtconn.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var doc libvirtxml.StoragePool
	if err := doc.Unmarshal(xml); err != nil {
		return nil, false, fmt.Errorf("parsing pool XML: %w", err)
	}
	model := xmlschema.StoragePool()
	var priorDoc map[string]tftypes.Value
	if prior != nil {
		priorDoc = docValues(model.AttributeTypes(), prior)
	} else {
		pruneImportedPool(&doc)
	}
	own := map[string]tftypes.Value{
		"id":        tfString(doc.UUID),
		"autostart": tfBool(autostart == 1),
	}
	if prior != nil && !prior["delete_volumes"].IsNull() {
		own["delete_volumes"] = prior["delete_volumes"]
	} else {
		own["delete_volumes"] = tfBool(false)
	}
	return &treeRead{doc: model.Reconcile(priorDoc, model.ToValues(&doc)), own: own}, true, nil
}

// pruneImportedPool keeps what a configuration sets: libvirt reports target
// permissions and an empty <source/> for every pool, which a configuration
// rarely lists; keeping them would plan a replacement right after import.
func pruneImportedPool(doc *libvirtxml.StoragePool) {
	if doc.Target != nil {
		doc.Target = &libvirtxml.StoragePoolTarget{Path: doc.Target.Path, Encryption: doc.Target.Encryption}
	}
	if s := doc.Source; s != nil && s.Host == nil && s.Device == nil && s.Dir == nil && s.Adapter == nil &&
		s.Name == "" && s.Format == nil && s.Auth == nil && s.Initiator == nil && s.Vendor == nil && s.Product == nil && s.Protocol == nil {
		doc.Source = nil
	}
}

func poolRef(id string) (libvirt.StoragePool, error) {
	u, err := libvirtUUID(id)
	if err != nil {
		return libvirt.StoragePool{}, err
	}
	return libvirt.StoragePool{UUID: u}, nil
}

func (r *poolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	prior := objectAttrs(req.State.Raw)
	id, _ := stringAttr(prior, "id")
	pool, err := poolRef(id)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Invalid pool id", err.Error())
		return
	}
	if importing(prior) {
		prior = nil
	}
	state, found, err := r.read(ctx, pool, prior)
	storeRead(ctx, resp, "pool", state, found, err)
}

// Update applies autostart; delete_volumes only lives in state. ModifyPlan
// replaces the pool for any document change.
func (r *poolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	plan := objectAttrs(req.Plan.Raw)
	id, _ := stringAttr(objectAttrs(req.State.Raw), "id")
	pool, err := poolRef(id)
	if err != nil {
		resp.Diagnostics.AddError("Invalid pool id", err.Error())
		return
	}
	autostart, _ := boolAttr(plan, "autostart")
	err = r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		var a int32
		if autostart {
			a = 1
		}
		return l.StoragePoolSetAutostart(pool, a)
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot update pool", err.Error())
		return
	}
	state, found, err := r.read(ctx, pool, plan)
	if err != nil || !found {
		resp.Diagnostics.AddError("Cannot read pool after update", fmt.Sprint(err))
		return
	}
	resp.State.Raw = state.object(req.Plan.Raw.Type())
}

func (r *poolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	st := objectAttrs(req.State.Raw)
	id, _ := stringAttr(st, "id")
	deleteVolumes, _ := boolAttr(st, "delete_volumes")
	pool, err := poolRef(id)
	if err != nil {
		resp.Diagnostics.AddError("Invalid pool id", err.Error())
		return
	}
	err = r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		p, err := l.StoragePoolLookupByUUID(pool.UUID)
		if err != nil {
			return err
		}
		pool = p
		unlock := storageLocks.Lock(poolLockKey(r.client.URI(), pool.Name))
		defer unlock()
		active, err := l.StoragePoolIsActive(pool)
		if err != nil {
			return err
		}
		if active == 1 {
			vols, _, err := l.StoragePoolListAllVolumes(pool, 1, 0)
			if err != nil {
				return fmt.Errorf("listing volumes of pool %q: %w", pool.Name, err)
			}
			if len(vols) > 0 && !deleteVolumes {
				names := make([]string, len(vols))
				for i, v := range vols {
					names[i] = v.Name
				}
				sort.Strings(names)
				return fmt.Errorf("pool %q still holds %d volume(s): %s. Delete them first, or set delete_volumes = true "+
					"on the pool (apply that change, then destroy) to delete them with the pool", pool.Name, len(vols), strings.Join(names, ", "))
			}
			for _, v := range vols {
				if err := l.StorageVolDelete(v, 0); err != nil && !libvirtconn.IsNotFound(err) {
					return fmt.Errorf("deleting volume %q of pool %q: %w", v.Name, pool.Name, err)
				}
			}
			if err := l.StoragePoolDestroy(pool); err != nil {
				return fmt.Errorf("stopping pool %q: %w", pool.Name, err)
			}
		}
		var doc libvirtxml.StoragePool
		if xml, err := l.StoragePoolGetXMLDesc(pool, libvirt.StorageXMLInactive); err == nil && doc.Unmarshal(xml) == nil && poolBuildTypes[doc.Type] {
			// remove the (now empty) target directory that building created
			if err := l.StoragePoolDelete(pool, libvirt.StoragePoolDeleteNormal); err != nil {
				resp.Diagnostics.AddWarning("Pool directory left in place",
					fmt.Sprintf("Removing the target directory of pool %q failed: %v", pool.Name, err))
			}
		}
		return l.StoragePoolUndefine(pool)
	})
	if err != nil && !libvirtconn.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete pool", err.Error())
	}
}

func (r *poolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByUUIDOrName(ctx, r.client, "storage pool", req, resp,
		func(l *libvirt.Libvirt, u libvirt.UUID) (libvirt.UUID, error) {
			o, err := l.StoragePoolLookupByUUID(u)
			return o.UUID, err
		},
		func(l *libvirt.Libvirt, name string) (libvirt.UUID, error) {
			o, err := l.StoragePoolLookupByName(name)
			return o.UUID, err
		})
}

func (r *poolResource) documentModel() documentModel { return xmlschema.StoragePool() }
