package provider

import (
	"context"
	"fmt"

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

func init() { registerResource("libvirt_network", NewNetworkResource) }

var (
	_ resource.ResourceWithImportState = (*networkResource)(nil)
	_ resource.ResourceWithConfigure   = (*networkResource)(nil)
)

// NewNetworkResource returns the libvirt_network resource.
func NewNetworkResource() resource.Resource { return &networkResource{} }

type networkResource struct {
	client *libvirtconn.Client
}

func (r *networkResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_network"
}

func (r *networkResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = networkSchema()
}

func networkSchema() schema.Schema {
	return schema.Schema{
		Description: "A libvirt virtual network. The attributes mirror the libvirt network XML " +
			"(https://libvirt.org/formatnetwork.html) one to one. The network is defined and started; " +
			"changes to DHCP host reservations and DNS hosts are applied live, other changes redefine and restart it.",
		Attributes: mergeAttributes(xmlschema.Network().Attributes(), map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The network's UUID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"autostart": schema.BoolAttribute{
				Optional:    true,
				Computed:    true,
				Default:     booldefault.StaticBool(false),
				Description: "Start the network when libvirtd starts.",
			},
		}),
	}
}

func (r *networkResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (r *networkResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	plan := objectAttrs(req.Plan.Raw)
	model := xmlschema.Network()
	doc, err := model.FromValues(docValues(model.AttributeTypes(), plan))
	if err != nil {
		addConversionError(&resp.Diagnostics, "Invalid network definition", err)
		return
	}
	xml, err := doc.Marshal()
	if err != nil {
		resp.Diagnostics.AddError("Cannot write network XML", err.Error())
		return
	}
	autostart, _ := boolAttr(plan, "autostart")
	var net libvirt.Network
	err = r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		net, err = l.NetworkDefineXMLFlags(xml, uint32(libvirt.NetworkDefineValidate))
		if err != nil {
			return fmt.Errorf("defining network: %w", err)
		}
		if err := l.NetworkCreate(net); err != nil {
			_ = l.NetworkUndefine(net) // leave nothing behind
			return fmt.Errorf("starting network %q: %w", net.Name, err)
		}
		if autostart {
			if err := l.NetworkSetAutostart(net, 1); err != nil {
				_ = l.NetworkDestroy(net)
				_ = l.NetworkUndefine(net)
				return fmt.Errorf("setting autostart: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot create network", err.Error())
		return
	}
	state, found, err := r.read(ctx, net, plan)
	if err != nil || !found {
		resp.Diagnostics.AddError("Cannot read network after create", fmt.Sprint(err))
		return
	}
	resp.State.Raw = buildObject(req.Plan.Raw.Type(), state.doc, state.own)
}

// networkRead is what read found: the reconciled document and own attributes.
type networkRead struct {
	doc map[string]tftypes.Value
	own map[string]tftypes.Value
}

// read fetches the persistent definition and autostart flag and reconciles
// them with prior (nil on import).
func (r *networkResource) read(ctx context.Context, net libvirt.Network, prior map[string]tftypes.Value) (*networkRead, bool, error) {
	var xml string
	var autostart int32
	err := r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		if xml, err = l.NetworkGetXMLDesc(net, uint32(libvirt.NetworkXMLInactive)); err != nil {
			return err
		}
		autostart, err = l.NetworkGetAutostart(net)
		return err
	})
	if libvirtconn.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var doc libvirtxml.Network
	if err := doc.Unmarshal(xml); err != nil {
		return nil, false, fmt.Errorf("parsing network XML: %w", err)
	}
	model := xmlschema.Network()
	var priorDoc map[string]tftypes.Value
	if prior != nil {
		priorDoc = docValues(model.AttributeTypes(), prior)
	}
	return &networkRead{
		doc: model.Reconcile(priorDoc, model.ToValues(&doc)),
		own: map[string]tftypes.Value{
			"id":        tfString(doc.UUID),
			"autostart": tfBool(autostart == 1),
		},
	}, true, nil
}

func networkRef(id string) (libvirt.Network, error) {
	u, err := libvirtUUID(id)
	if err != nil {
		return libvirt.Network{}, err
	}
	return libvirt.Network{UUID: u}, nil
}

func (r *networkResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	prior := objectAttrs(req.State.Raw)
	id, _ := stringAttr(prior, "id")
	net, err := networkRef(id)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("id"), "Invalid network id", err.Error())
		return
	}
	if importing(prior) {
		prior = nil
	}
	state, found, err := r.read(ctx, net, prior)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read network", err.Error())
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.State.Raw = buildObject(req.State.Raw.Type(), state.doc, state.own)
}

func (r *networkResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	plan := objectAttrs(req.Plan.Raw)
	id, _ := stringAttr(objectAttrs(req.State.Raw), "id")
	net, err := networkRef(id)
	if err != nil {
		resp.Diagnostics.AddError("Invalid network id", err.Error())
		return
	}
	model := xmlschema.Network()
	doc, err := model.FromValues(docValues(model.AttributeTypes(), plan))
	if err != nil {
		addConversionError(&resp.Diagnostics, "Invalid network definition", err)
		return
	}
	doc.UUID = id
	xml, err := doc.Marshal()
	if err != nil {
		resp.Diagnostics.AddError("Cannot write network XML", err.Error())
		return
	}
	autostart, _ := boolAttr(plan, "autostart")
	err = r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		// redefine, then restart so the running network uses the new definition
		if _, err := l.NetworkDefineXMLFlags(xml, uint32(libvirt.NetworkDefineValidate)); err != nil {
			return fmt.Errorf("redefining network: %w", err)
		}
		if active, _ := l.NetworkIsActive(net); active == 1 {
			if err := l.NetworkDestroy(net); err != nil {
				return fmt.Errorf("stopping network for restart: %w", err)
			}
		}
		if err := l.NetworkCreate(net); err != nil {
			return fmt.Errorf("starting network: %w", err)
		}
		var a int32
		if autostart {
			a = 1
		}
		return l.NetworkSetAutostart(net, a)
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot update network", err.Error())
		return
	}
	state, found, err := r.read(ctx, net, plan)
	if err != nil || !found {
		resp.Diagnostics.AddError("Cannot read network after update", fmt.Sprint(err))
		return
	}
	resp.State.Raw = buildObject(req.Plan.Raw.Type(), state.doc, state.own)
}

func (r *networkResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	id, _ := stringAttr(objectAttrs(req.State.Raw), "id")
	net, err := networkRef(id)
	if err != nil {
		resp.Diagnostics.AddError("Invalid network id", err.Error())
		return
	}
	err = r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		if active, err := l.NetworkIsActive(net); err == nil && active == 1 {
			if err := l.NetworkDestroy(net); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		return l.NetworkUndefine(net)
	})
	if err != nil && !libvirtconn.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete network", err.Error())
	}
}

func (r *networkResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !requireClient(r.client, &resp.Diagnostics) {
		return
	}
	var uuid string
	err := r.client.Do(ctx, func(l *libvirt.Libvirt) error {
		var net libvirt.Network
		var err error
		if u, perr := libvirtUUID(req.ID); perr == nil {
			net, err = l.NetworkLookupByUUID(u)
		} else {
			net, err = l.NetworkLookupByName(req.ID)
		}
		if err != nil {
			return err
		}
		uuid = uuidString(net.UUID)
		return nil
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot import network", fmt.Sprintf("no network with UUID or name %q: %v", req.ID, err))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), uuid)...)
}
