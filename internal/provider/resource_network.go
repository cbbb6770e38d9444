package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
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
	_ resource.ResourceWithImportState    = (*networkResource)(nil)
	_ resource.ResourceWithConfigure      = (*networkResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*networkResource)(nil)
	_ resource.ResourceWithValidateConfig = (*networkResource)(nil)
)

// NewNetworkResource returns the libvirt_network resource.
func NewNetworkResource() resource.Resource {
	r := &networkResource{}
	r.Base = treeresource.NewBase(treeresource.Spec[libvirtxml.Network]{
		Routing:  hostroute.Attributes("network"),
		Name:     "network",
		Identity: uuidIdentity("network"),
		Model:    xmlschema.Network(),
		Description: "A libvirt virtual network. The attributes mirror the libvirt network XML " +
			"(https://libvirt.org/formatnetwork.html) one to one. The network is defined and started; " +
			"changes to DHCP host reservations (`ips[].dhcp.hosts`) and DNS hosts (`dns.host`) are applied live " +
			"without a restart; other changes redefine and restart the network, and the plan warns about it; " +
			"changing `name` or `uuid` replaces it. A redefinition starts from the definition libvirt holds then, so what the " +
			"configuration does not mention (a DHCP host added with `virsh net-update`) is kept. " +
			"Destroying a network that running domains use fails and names them. " +
			"How any libvirt XML is written as attributes: see the guide \"Writing libvirt XML as attributes\".",
		Own: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The network's UUID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"autostart": schema.BoolAttribute{
				Optional:      true,
				Computed:      true,
				PlanModifiers: []planmodifier.Bool{treeresource.KeepOrDefaultBool(false)},
				Description: "Start the network when libvirtd starts. Default: false for a network this configuration creates; " +
					"when unset on an existing network (imported, or moved from another provider), its flag is kept.",
			},
			"running": schema.BoolAttribute{
				Optional:      true,
				Computed:      true,
				PlanModifiers: []planmodifier.Bool{treeresource.KeepOrDefaultBool(true)},
				Description: "Whether the network is started. `false` keeps it defined but stopped; stopping a network " +
					"that running domains use fails and names them. With `true`, a network stopped outside this configuration " +
					"shows as a change back to `true`. Default: true for a network this configuration creates; when unset on an " +
					"existing network, it keeps the state it has.",
			},
		},
		// libvirt cannot rename a network or change its UUID
		ReplaceOnChange: []string{"name", "uuid"},
	}, r)
	return r
}

type networkResource struct {
	treeresource.Base[libvirtxml.Network]
}

func (r *networkResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	model := r.Model()
	doc, err := model.FromValues(treeresource.DocValues(model.AttributeTypes(), plan))
	if err != nil {
		treeresource.AddConversionError(&resp.Diagnostics, "Invalid network definition", err)
		return
	}
	// Choose the UUID here: defining the same document twice is then
	// harmless, and client.Do runs the operation again when the connection
	// broke halfway. Cleanup after a failure removes exactly this network.
	if doc.UUID == "" {
		doc.UUID = libvirtops.NewUUID()
	}
	if _, err := libvirtops.ParseUUID(doc.UUID); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("uuid"), "Invalid network UUID", err.Error())
		return
	}
	autostart, _ := treeresource.Bool(plan, "autostart")
	running, ok := treeresource.Bool(plan, "running")
	if !ok {
		running = true
	}
	// a network of this name that is not ours: never redefine it
	existing, err := libvirtops.Networks(r.Client()).NameTaken(ctx, doc.Name)
	if err == nil && existing != "" {
		err = fmt.Errorf("a network named %q already exists (UUID %s) and is not in this state; %s to manage it",
			doc.Name, existing, treeresource.ImportAdvice(doc.Name))
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Cannot create network", err.Error())
		return
	}
	r.Finish(ctx, treeresource.Ending{Op: "create", Plan: req.Plan.Raw, ID: doc.UUID, Prior: plan,
		Apply: func(*diag.Diagnostics) (string, error) {
			return "", libvirtops.Networks(r.Client()).Create(ctx, doc, running, autostart)
		},
		Undo: func() (string, bool) {
			return r.RemovalSaid(libvirtops.Networks(r.Client()).Remove(ctx, doc.UUID), doc.Name, "virsh net-undefine"), false
		}}, &resp.State, &resp.Diagnostics)
}

// Fetch reads the persistent definition, and whether the network runs and
// starts with libvirtd.
func (r *networkResource) Fetch(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.Network], error) {
	return fetchNetwork(ctx, c, id)
}

// fetchNetwork is Fetch without a resource: the data source of the same name reads with it too.
func fetchNetwork(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.Network], error) {
	n, err := libvirtops.Networks(c).Fetch(ctx, id)
	if err != nil {
		return nil, err
	}
	return &treeresource.Fetched[libvirtxml.Network]{Doc: n.Doc, Own: map[string]tftypes.Value{
		"id":        treeresource.StringValue(n.Doc.UUID),
		"autostart": treeresource.BoolValue(n.Autostart),
		"running":   treeresource.BoolValue(n.Running),
	}}, nil
}

// LookUp resolves a network's UUID or name.
func (r *networkResource) LookUp(ctx context.Context, c *libvirtconn.Client, importID string) (string, error) {
	return libvirtops.Networks(c).LookUp(ctx, importID)
}

func (r *networkResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	prior := treeresource.ObjectAttrs(req.State.Raw)
	id, _ := treeresource.String(prior, "id")
	if _, err := libvirtops.ParseUUID(id); err != nil {
		resp.Diagnostics.AddError("Invalid network id", err.Error())
		return
	}
	model := r.Model()
	planDoc := treeresource.DocValues(model.AttributeTypes(), plan)
	stateDoc := treeresource.DocValues(model.AttributeTypes(), prior)
	// the plan is applied to the definition libvirt holds now: what the plan
	// does not change (a DHCP host added with net-update) stays
	current, err := r.Fetch(ctx, r.Client(), id)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read network before update", err.Error())
		return
	}
	doc, err := model.FromValues(model.Patch(stateDoc, planDoc, model.ToValues(current.Doc)))
	if err != nil {
		treeresource.AddConversionError(&resp.Diagnostics, "Invalid network definition", err)
		return
	}
	doc.UUID = id
	changes := diffNetwork(stateDoc, planDoc)
	autostart, _ := treeresource.Bool(plan, "autostart")
	running, ok := treeresource.Bool(plan, "running")
	if !ok {
		running = true
	}
	r.Finish(ctx, treeresource.Ending{Op: "update", Plan: req.Plan.Raw, ID: id, Prior: plan, Before: prior,
		Apply: func(diags *diag.Diagnostics) (string, error) {
			if len(changes.restart) > 0 {
				r.redefineAndRestart(ctx, doc, running, diags)
			} else if len(changes.live) > 0 {
				r.updateLive(ctx, doc, diags)
			}
			if !diags.HasError() {
				r.setRunning(ctx, id, doc.Name, running, diags)
			}
			if diags.HasError() {
				return "", nil
			}
			if err := libvirtops.Networks(r.Client()).SetAutostart(ctx, id, autostart); err != nil {
				return "", fmt.Errorf("setting autostart: %w", err)
			}
			return "", nil
		}}, &resp.State, &resp.Diagnostics)
}

// redefineAndRestart replaces the persistent definition and restarts the
// network so it runs with it. Guests on it lose connectivity meanwhile; the
// plan warned about that (ModifyPlan).
func (r *networkResource) redefineAndRestart(ctx context.Context, doc *libvirtxml.Network, start bool, diags *diag.Diagnostics) {
	detached, err := libvirtops.Networks(r.Client()).RedefineAndRestart(ctx, doc, start)
	if err != nil {
		diags.AddError("Cannot update network", err.Error())
		return
	}
	if len(detached) > 0 {
		diags.AddWarning("Guests cut off by the network restart",
			fmt.Sprintf("Network %q was restarted; the interfaces of these running domains are no longer on its bridge "+
				"(libvirt does not reattach them): %s. Restart them to reconnect.", doc.Name, strings.Join(detached, ", ")))
	}
}

// setRunning starts or stops the network as planned. Stopping it under
// running domains would cut them off: refused, naming them (as Delete does).
func (r *networkResource) setRunning(ctx context.Context, id, name string, running bool, diags *diag.Diagnostics) {
	users, err := libvirtops.Networks(r.Client()).SetRunning(ctx, id, running)
	switch {
	case len(users) > 0:
		diags.AddAttributeError(path.Root("running"), "Network is in use",
			fmt.Sprintf("Running domains have interfaces on network %q: %s. Stop them first; stopping the network would cut them off.",
				name, strings.Join(users, ", ")))
	case err != nil && running:
		diags.AddError("Cannot start network", err.Error())
	case err != nil:
		diags.AddError("Cannot stop network", err.Error())
	}
}

// updateLive applies DHCP host and DNS host changes with virNetworkUpdate:
// the running network (dnsmasq) and its definition change, nothing restarts.
func (r *networkResource) updateLive(ctx context.Context, doc *libvirtxml.Network, diags *diag.Diagnostics) {
	if err := libvirtops.Networks(r.Client()).UpdateLive(ctx, doc); err != nil {
		diags.AddError("Cannot update network live", err.Error())
	}
}

func (r *networkResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	id, _ := treeresource.String(treeresource.ObjectAttrs(req.State.Raw), "id")
	if _, err := libvirtops.ParseUUID(id); err != nil {
		resp.Diagnostics.AddError("Invalid network id", err.Error())
		return
	}
	users, err := libvirtops.Networks(r.Client()).Delete(ctx, id)
	if len(users) > 0 {
		resp.Diagnostics.AddError("Network is in use",
			fmt.Sprintf("Running domains have interfaces on this network: %s. Stop them or move their interfaces "+
				"to another network first; destroying the network would cut them off.", strings.Join(users, ", ")))
		return
	}
	if err != nil && !libvirtconn.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete network", err.Error())
	}
}

// ModifyPlan makes the plan say what an update does: DHCP host and DNS host
// changes apply live; any other change restarts the network (a warning names
// the attributes); a new name or UUID replaces it. It works on the raw values
// in one pass: attribute-level plan modifiers over the document tree would
// cost far more (internal/xmlschema keeps them out of the tree).
func (r *networkResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan := r.PlanUpdate(req, &resp.RequiresReplace)
	if plan == nil {
		return // create or destroy
	}
	state := treeresource.ObjectAttrs(req.State.Raw)
	types := r.Model().AttributeTypes()
	changes := diffNetwork(treeresource.DocValues(types, state), treeresource.DocValues(types, plan))
	wasRunning, _ := treeresource.Bool(state, "running")
	staysRunning, known := treeresource.Bool(plan, "running")
	if len(resp.RequiresReplace) == 0 && len(changes.restart) > 0 && wasRunning && (staysRunning || !known) {
		name, _ := treeresource.String(state, "name")
		resp.Diagnostics.AddAttributeWarning(path.Root(strings.SplitN(strings.SplitN(changes.restart[0], ".", 2)[0], "[", 2)[0]),
			"Network restart",
			fmt.Sprintf("libvirt_network %q: changing %s restarts the network; running guests on it lose connectivity. "+
				"libvirt does not reattach their interfaces to the recreated bridge: restart those guests (or "+
				"re-plug their interfaces) afterwards. Changes to ips[].dhcp.hosts and dns.host alone apply live "+
				"without a restart.",
				name, joinNetworkPaths(changes.restart, 8)))
	}
	treeresource.SetPlan(resp, plan)
}

// ValidateConfig refuses DHCP reservations or DNS hosts that collide, naming
// the attribute: libvirt accepts some of them at define time and then serves
// one address to two guests.
func (r *networkResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	for _, c := range networkHostConflicts(treeresource.ObjectAttrs(req.Config.Raw)) {
		resp.Diagnostics.AddAttributeError(treeresource.TopLevel(c.path), "Conflicting network host entries", c.detail) // detail names the path
	}
}
