package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
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
	_ resource.ResourceWithImportState    = (*poolResource)(nil)
	_ resource.ResourceWithConfigure      = (*poolResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*poolResource)(nil)
	_ resource.ResourceWithValidateConfig = (*poolResource)(nil)
)

// NewPoolResource returns the libvirt_pool resource.
func NewPoolResource() resource.Resource {
	r := &poolResource{}
	spec := treeresource.Spec[libvirtxml.StoragePool]{
		Routing:  hostroute.Attributes("pool"),
		Name:     "pool",
		Identity: uuidIdentity("pool"),
		Model:    xmlschema.StoragePool(),
		Description: "A libvirt storage pool. The attributes mirror the libvirt storage pool XML " +
			"(https://libvirt.org/formatstorage.html) one to one; `name` and `type` are required. " +
			"The pool is defined, built when its type needs it (`dir`, `fs` and `netfs` create their target directory; " +
			"other types such as `logical` are passed to libvirt unchanged and never formatted) and started; `create` and `destroy` " +
			"(dmacvicar/libvirt 0.9.x's shape) can change these steps. " +
			"Only `autostart` and `delete_volumes` change in place: any change to the pool document replaces the pool. " +
			"Deleting a pool that still holds volumes fails unless `delete_volumes` is true. " +
			"A Ceph `rbd` pool names the Ceph pool in `source.name`, the monitors in `source.host` and the cephx user and key in " +
			"`source.auth` (`type = \"ceph\"`, the `secret` a `libvirt_secret` of usage type `ceph`); the host needs libvirt's rbd " +
			"storage driver. Its volumes take content through a staging pool (`libvirt_volume`'s `create.content.staging_pool`); " +
			"see the guide \"Ceph RBD: pools, images and VM disks\". " +
			"How any libvirt XML is written as attributes: see the guide \"Writing libvirt XML as attributes\".",
		Own: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The pool's UUID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"autostart": schema.BoolAttribute{
				Optional:      true,
				Computed:      true,
				PlanModifiers: []planmodifier.Bool{treeresource.KeepOrDefaultBool(false)},
				Description: "Start the pool when libvirtd starts. Default: false for a pool this configuration creates; when unset on " +
					"an existing pool (imported, or moved from dmacvicar/libvirt, which turned autostart on), its flag is kept.",
			},
			"delete_volumes": schema.BoolAttribute{
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
				Description: "When true, destroying the pool first deletes every volume in it, including volumes not managed by this configuration. " +
					"When false (the default), destroying a pool that still holds volumes fails and lists them.",
			},
		},
		// libvirt applies no pool change in place
		ReplaceOnChange: []string{treeresource.AllDocument},
	}
	for name, a := range poolCompatAttributes() {
		spec.Own[name] = a
	}
	r.Base = treeresource.NewBase(spec, r)
	return r
}

type poolResource struct {
	treeresource.Base[libvirtxml.StoragePool]
}

// ModifyPlan plans a replacement for every change of the document: libvirt
// applies no pool change in place.
func (r *poolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	plan := r.PlanUpdate(req, &resp.RequiresReplace)
	if plan == nil {
		plan = treeresource.ObjectAttrs(req.Plan.Raw)
	}
	planCompatAutostart(treeresource.ObjectAttrs(req.Config.Raw), plan)
	treeresource.SetPlan(resp, plan)
}

// poolBuildTypes need their target directory created before they start;
// building them without flags never formats anything.
var poolBuildTypes = map[string]bool{"dir": true, "fs": true, "netfs": true}

func (r *poolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	model := r.Model()
	doc, err := model.FromValues(treeresource.DocValues(model.AttributeTypes(), plan))
	if err != nil {
		treeresource.AddConversionError(&resp.Diagnostics, "Invalid pool definition", err)
		return
	}
	// The UUID is chosen here: when the connection breaks and Do runs the
	// steps again, defining the same name and UUID again is harmless.
	if doc.UUID == "" {
		doc.UUID = libvirtops.NewUUID()
	}
	if _, err := doc.Marshal(); err != nil {
		resp.Diagnostics.AddError("Cannot write pool XML", err.Error())
		return
	}
	// a pool of this name that is not ours: never redefine it
	existing, err := libvirtops.Pools(r.Client()).NameTaken(ctx, doc.Name)
	if err == nil && existing != "" {
		err = fmt.Errorf("a pool named %q already exists (UUID %s) and is not in this state; %s, "+
			"or remove it: virsh pool-destroy %s; virsh pool-undefine %s", doc.Name, existing, treeresource.ImportAdvice(doc.Name), doc.Name, doc.Name)
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Cannot create pool", err.Error())
		return
	}
	autostart, _ := treeresource.Bool(plan, "autostart")
	steps := readPoolSteps(plan, doc.Type)
	// the create removes what it made when a step fails
	r.Finish(ctx, treeresource.Ending{Op: "create", Plan: req.Plan.Raw, Prior: plan,
		Apply: func(*diag.Diagnostics) (string, error) {
			return libvirtops.Pools(r.Client()).Create(ctx, doc, steps, autostart)
		}}, &resp.State, &resp.Diagnostics)
}

// Fetch reads the pool document and its autostart flag.
func (r *poolResource) Fetch(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.StoragePool], error) {
	return fetchPool(ctx, c, id)
}

// fetchPool is Fetch without a resource: the data source of the same name reads with it too.
func fetchPool(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.StoragePool], error) {
	p, err := libvirtops.Pools(c).Fetch(ctx, id)
	if err != nil {
		return nil, err
	}
	return &treeresource.Fetched[libvirtxml.StoragePool]{Doc: p.Doc, Own: map[string]tftypes.Value{
		"id":        treeresource.StringValue(p.Doc.UUID),
		"autostart": treeresource.BoolValue(p.Autostart),
	}}, nil
}

// LookUp resolves a pool's UUID or name.
func (r *poolResource) LookUp(ctx context.Context, c *libvirtconn.Client, importID string) (string, error) {
	return libvirtops.Pools(c).LookUp(ctx, importID)
}

// PruneImported keeps what a configuration sets: libvirt reports target
// permissions and an empty <source/> for every pool, which a configuration
// rarely lists; keeping them would plan a replacement right after import.
func (r *poolResource) PruneImported(doc *libvirtxml.StoragePool) {
	if doc.Target != nil {
		doc.Target = &libvirtxml.StoragePoolTarget{Path: doc.Target.Path, Encryption: doc.Target.Encryption}
	}
	if s := doc.Source; s != nil && s.Host == nil && s.Device == nil && s.Dir == nil && s.Adapter == nil &&
		s.Name == "" && s.Format == nil && s.Auth == nil && s.Initiator == nil && s.Vendor == nil && s.Product == nil && s.Protocol == nil {
		doc.Source = nil
	}
}

// Update applies autostart; delete_volumes only lives in state. ModifyPlan
// replaces the pool for any document change.
func (r *poolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	id, _ := treeresource.String(treeresource.ObjectAttrs(req.State.Raw), "id")
	if _, err := libvirtops.ParseUUID(id); err != nil {
		resp.Diagnostics.AddError("Invalid pool id", err.Error())
		return
	}
	autostart, _ := treeresource.Bool(plan, "autostart")
	r.Finish(ctx, treeresource.Ending{Op: "update", Plan: req.Plan.Raw, ID: id, Prior: plan,
		Apply: func(*diag.Diagnostics) (string, error) {
			return "", libvirtops.Pools(r.Client()).SetAutostart(ctx, id, autostart)
		}}, &resp.State, &resp.Diagnostics)
}

func (r *poolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	st := treeresource.ObjectAttrs(req.State.Raw)
	id, _ := treeresource.String(st, "id")
	deleteVolumes, _ := treeresource.Bool(st, "delete_volumes")
	if _, err := libvirtops.ParseUUID(id); err != nil {
		resp.Diagnostics.AddError("Invalid pool id", err.Error())
		return
	}
	storageLeft, err := libvirtops.Pools(r.Client()).Delete(ctx, id, deleteVolumes, func(poolType string) bool {
		return readPoolSteps(st, poolType).DeleteStorage
	})
	if storageLeft != nil {
		resp.Diagnostics.AddWarning("Pool directory left in place", storageLeft.Error())
	}
	if err != nil && !libvirtconn.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete pool", err.Error())
	}
}
