package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
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
		Name:  "network",
		Model: xmlschema.Network(),
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
		doc.UUID = newUUID()
	}
	uuid, err := treeresource.ParseUUID(doc.UUID)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("uuid"), "Invalid network UUID", err.Error())
		return
	}
	net := libvirt.Network{Name: doc.Name, UUID: uuid}
	xml, err := doc.Marshal()
	if err != nil {
		resp.Diagnostics.AddError("Cannot write network XML", err.Error())
		return
	}
	autostart, _ := treeresource.Bool(plan, "autostart")
	running, ok := treeresource.Bool(plan, "running")
	if !ok {
		running = true
	}
	// a network of this name that is not ours: never redefine it
	err = r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		existing, err := l.NetworkLookupByName(doc.Name)
		if err == nil {
			return fmt.Errorf("a network named %q already exists (UUID %s); import it with "+
				"`tofu import <address> %s` to manage it", doc.Name, treeresource.UUIDString(existing.UUID), doc.Name)
		}
		if libvirtconn.IsNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Cannot create network", err.Error())
		return
	}
	err = r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		if _, err := l.NetworkDefineXMLFlags(xml, uint32(libvirt.NetworkDefineValidate)); err != nil {
			return fmt.Errorf("defining network: %w", err)
		}
		active, err := l.NetworkIsActive(net)
		if err != nil {
			return err
		}
		if active != 1 && running {
			if err := l.NetworkCreate(net); err != nil {
				return fmt.Errorf("starting network %q: %w", doc.Name, err)
			}
		}
		if autostart {
			if err := l.NetworkSetAutostart(net, 1); err != nil {
				return fmt.Errorf("setting autostart: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot create network", err.Error()+r.removeAfterFailure(ctx, net))
		return
	}
	state, found, err := r.ReadBack(ctx, req.Plan.Raw.Type(), doc.UUID, plan)
	if err != nil || !found {
		resp.Diagnostics.AddError("Cannot read network after create", fmt.Sprint(err)+r.removeAfterFailure(ctx, net))
		return
	}
	resp.State.Raw = state
}

// removeAfterFailure stops and undefines a network a failed create left
// behind, and says so for the error message.
func (r *networkResource) removeAfterFailure(ctx context.Context, net libvirt.Network) string {
	err := r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		if active, err := l.NetworkIsActive(net); err != nil {
			return err
		} else if active == 1 {
			if err := l.NetworkDestroy(net); err != nil {
				return err
			}
		}
		return l.NetworkUndefine(net)
	})
	switch {
	case err == nil:
		return " (the partly created network was removed)"
	case libvirtconn.IsNotFound(err):
		return ""
	default:
		return fmt.Sprintf(" (removing the partly created network %q failed too: %v; remove it with virsh net-undefine)", net.Name, err)
	}
}

// Fetch reads the persistent definition, and whether the network runs and
// starts with libvirtd.
func (r *networkResource) Fetch(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.Network], error) {
	net, err := networkRef(id)
	if err != nil {
		return nil, err
	}
	var xml string
	var autostart, active int32
	err = c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		if xml, err = l.NetworkGetXMLDesc(net, uint32(libvirt.NetworkXMLInactive)); err != nil {
			return err
		}
		if active, err = l.NetworkIsActive(net); err != nil {
			return err
		}
		autostart, err = l.NetworkGetAutostart(net)
		return err
	})
	if err != nil {
		return nil, err
	}
	var doc libvirtxml.Network
	if err := doc.Unmarshal(xml); err != nil {
		return nil, fmt.Errorf("parsing network XML: %w", err)
	}
	return &treeresource.Fetched[libvirtxml.Network]{Doc: &doc, Own: map[string]tftypes.Value{
		"id":        treeresource.StringValue(doc.UUID),
		"autostart": treeresource.BoolValue(autostart == 1),
		"running":   treeresource.BoolValue(active == 1),
	}}, nil
}

// LookUp resolves a network's UUID or name.
func (r *networkResource) LookUp(l *libvirt.Libvirt, importID string) (string, error) {
	return treeresource.ByUUIDOrName(l, importID,
		func(l *libvirt.Libvirt, u libvirt.UUID) (libvirt.UUID, error) {
			o, err := l.NetworkLookupByUUID(u)
			return o.UUID, err
		},
		func(l *libvirt.Libvirt, name string) (libvirt.UUID, error) {
			o, err := l.NetworkLookupByName(name)
			return o.UUID, err
		})
}

func networkRef(id string) (libvirt.Network, error) {
	u, err := treeresource.ParseUUID(id)
	if err != nil {
		return libvirt.Network{}, err
	}
	return libvirt.Network{UUID: u}, nil
}

func (r *networkResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	prior := treeresource.ObjectAttrs(req.State.Raw)
	id, _ := treeresource.String(prior, "id")
	net, err := networkRef(id)
	if err != nil {
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
	if len(changes.restart) > 0 {
		r.redefineAndRestart(ctx, net, doc, running, &resp.Diagnostics)
	} else if len(changes.live) > 0 {
		r.updateLive(ctx, net, doc, &resp.Diagnostics)
	}
	if !resp.Diagnostics.HasError() {
		r.setRunning(ctx, net, doc.Name, running, &resp.Diagnostics)
	}
	if !resp.Diagnostics.HasError() {
		err = r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
			var a int32
			if autostart {
				a = 1
			}
			return l.NetworkSetAutostart(net, a)
		})
		if err != nil {
			resp.Diagnostics.AddError("Cannot set network autostart", err.Error())
		}
	}
	if resp.Diagnostics.HasError() {
		// keep what was applied before the failure: the next plan shows the rest
		if state, found, rerr := r.ReadBack(ctx, req.State.Raw.Type(), id, prior); rerr == nil && found {
			resp.State.Raw = state
		}
		return
	}
	state, found, err := r.ReadBack(ctx, req.Plan.Raw.Type(), id, plan)
	if err != nil || !found {
		resp.Diagnostics.AddError("Cannot read network after update", fmt.Sprint(err))
		return
	}
	resp.State.Raw = state
}

// redefineAndRestart replaces the persistent definition and restarts the
// network so it runs with it. Guests on it lose connectivity meanwhile; the
// plan warned about that (ModifyPlan).
func (r *networkResource) redefineAndRestart(ctx context.Context, net libvirt.Network, doc *libvirtxml.Network, start bool, diags *diag.Diagnostics) {
	xml, err := doc.Marshal()
	if err != nil {
		diags.AddError("Cannot write network XML", err.Error())
		return
	}
	var detached []string
	err = r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		active, _ := l.NetworkIsActive(net)
		if active == 1 {
			// the guests whose interfaces the restart leaves off the bridge
			if x, err := l.NetworkGetXMLDesc(net, 0); err == nil {
				var cur libvirtxml.Network
				if cur.Unmarshal(x) == nil && cur.Bridge != nil {
					detached, _ = domainsUsingNetwork(l, cur.Name, cur.Bridge.Name)
				}
			}
		}
		if active == 1 && !start && len(detached) > 0 {
			return fmt.Errorf("network %q is in use: running domains have interfaces on it: %s; stop them first, "+
				"stopping the network would cut them off", doc.Name, strings.Join(detached, ", "))
		}
		if _, err := l.NetworkDefineXMLFlags(xml, uint32(libvirt.NetworkDefineValidate)); err != nil {
			return fmt.Errorf("redefining network: %w", err)
		}
		if active == 1 {
			if err := l.NetworkDestroy(net); err != nil {
				return fmt.Errorf("stopping network for restart: %w", err)
			}
		}
		if !start {
			return nil
		}
		if err := l.NetworkCreate(net); err != nil {
			return fmt.Errorf("starting network with the new definition: %w", err)
		}
		return nil
	})
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
func (r *networkResource) setRunning(ctx context.Context, net libvirt.Network, name string, running bool, diags *diag.Diagnostics) {
	var users []string
	err := r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		active, err := l.NetworkIsActive(net)
		if err != nil {
			return err
		}
		switch {
		case running && active != 1:
			return l.NetworkCreate(net)
		case !running && active == 1:
			x, err := l.NetworkGetXMLDesc(net, 0)
			if err != nil {
				return err
			}
			var cur libvirtxml.Network
			if err := cur.Unmarshal(x); err != nil {
				return fmt.Errorf("parsing network XML: %w", err)
			}
			bridge := ""
			if cur.Bridge != nil {
				bridge = cur.Bridge.Name
			}
			if users, err = domainsUsingNetwork(l, cur.Name, bridge); err != nil || len(users) > 0 {
				return err
			}
			return l.NetworkDestroy(net)
		}
		return nil
	})
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
func (r *networkResource) updateLive(ctx context.Context, net libvirt.Network, new *libvirtxml.Network, diags *diag.Diagnostics) {
	err := r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		// the operations are computed from libvirt's current hosts, not from
		// the state: a run that client.Do repeats after a broken connection
		// only does what is still missing
		x, err := l.NetworkGetXMLDesc(net, 0)
		if err != nil {
			return err
		}
		var live libvirtxml.Network
		if err := live.Unmarshal(x); err != nil {
			return fmt.Errorf("parsing network XML: %w", err)
		}
		ops, err := networkLiveOps(&live, new)
		if err != nil {
			return err
		}
		flags := networkUpdateFlags
		if active, err := l.NetworkIsActive(net); err != nil {
			return err
		} else if active != 1 {
			flags = libvirt.NetworkUpdateAffectConfig // stopped out of band: the next start uses it
		}
		for _, op := range ops {
			if err := applyNetworkUpdate(l, net, &live, op, flags); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		diags.AddError("Cannot update network live", err.Error())
	}
}

func (r *networkResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	id, _ := treeresource.String(treeresource.ObjectAttrs(req.State.Raw), "id")
	net, err := networkRef(id)
	if err != nil {
		resp.Diagnostics.AddError("Invalid network id", err.Error())
		return
	}
	var users []string
	err = r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		users = nil
		active, err := l.NetworkIsActive(net)
		if err != nil {
			return err
		}
		if active == 1 {
			x, err := l.NetworkGetXMLDesc(net, 0)
			if err != nil {
				return err
			}
			var doc libvirtxml.Network
			if err := doc.Unmarshal(x); err != nil {
				return fmt.Errorf("parsing network XML: %w", err)
			}
			bridge := ""
			if doc.Bridge != nil {
				bridge = doc.Bridge.Name
			}
			if users, err = domainsUsingNetwork(l, doc.Name, bridge); err != nil {
				return err
			}
			if len(users) > 0 {
				return nil
			}
			if err := l.NetworkDestroy(net); err != nil {
				return err
			}
		}
		return l.NetworkUndefine(net)
	})
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
