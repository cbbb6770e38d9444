package provider

import (
	"context"
	"net"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// domainFromPlan converts the document attributes of plan (or state) into a
// libvirtxml document.
func domainFromPlan(attrs map[string]tftypes.Value, diags *diag.Diagnostics) *libvirtxml.Domain {
	model := xmlschema.Domain()
	doc, err := model.FromValues(treeresource.DocValues(model.AttributeTypes(), attrs))
	if err != nil {
		treeresource.AddConversionError(diags, "Invalid domain definition", err)
		return nil
	}
	return doc
}

// Fetch reads the domain (libvirtops.Domain.Fetch) and the console URLs of
// a running one.
func (r *domainResource) Fetch(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.Domain], error) {
	return fetchDomain(ctx, c, id)
}

// fetchDomain is Fetch without a resource: the data source of the same name reads with it too.
func fetchDomain(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.Domain], error) {
	d, err := libvirtops.Domains(c).Fetch(ctx, id)
	if err != nil {
		return nil, err
	}
	urls := []tftypes.Value{}
	if d.Active {
		if u := consoleURLs(d.Live, c.Host()); u != nil {
			urls = u
		}
	}
	return &treeresource.Fetched[libvirtxml.Domain]{Doc: d.Doc, Own: map[string]tftypes.Value{
		"id":            treeresource.StringValue(d.Live.UUID),
		attrRunning:     treeresource.BoolValue(d.Active),
		attrAutostart:   treeresource.BoolValue(d.Autostart),
		attrConsoleURLs: tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, urls),
	}}, nil
}

// consoleURLs lists the graphical consoles of a running domain.
func consoleURLs(live *libvirtxml.Domain, host string) []tftypes.Value {
	if live.Devices == nil {
		return nil
	}
	if host == "" {
		host = "localhost"
	}
	var out []tftypes.Value
	for _, g := range live.Devices.Graphics {
		switch {
		case g.VNC != nil && g.VNC.Port > 0:
			out = append(out, treeresource.StringValue("vnc://"+net.JoinHostPort(host, strconv.Itoa(g.VNC.Port))))
		case g.Spice != nil && g.Spice.Port > 0:
			out = append(out, treeresource.StringValue("spice://"+net.JoinHostPort(host, strconv.Itoa(g.Spice.Port))))
		}
	}
	return out
}
