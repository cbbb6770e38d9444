// Package actions serves the provider's Terraform actions (Terraform 1.14
// and later): day-2 operations on one domain (reboot, reset, shutdown,
// grow a filesystem, revert to a snapshot). Its one job is reading an
// action's configuration and reporting its progress; the libvirt work is
// internal/libvirtops's, the host an invocation runs on is chosen by
// internal/hostroute, and the provider registers the list (All).
package actions

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// Day-2 operations as Terraform actions (Terraform 1.14 and later): each
// acts on one domain, named by UUID or name, on the provider's uri or one of
// its hosts, reports its steps as progress events, stops when Terraform
// cancels it, and changes nothing in state. The libvirt work is
// internal/libvirtops's; the types here read the configuration and report.

const (
	attrActionDomain = "domain"
	attrActionHost   = hostroute.Attr
)

// domainAction is what the domain actions share: the connection of the
// host the configuration names (internal/hostroute puts it in the
// context), and the attributes naming the domain.
type domainAction struct {
	client *libvirtconn.Client
}

// Configure takes the connection of the action's host.
func (a *domainAction) Configure(ctx context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.client = treeresource.ClientFromContext(ctx, req.ProviderData, &resp.Diagnostics)
}

// domainActionAttributes are the attributes every domain action has, with
// the action's own.
func domainActionAttributes(own map[string]schema.Attribute) map[string]schema.Attribute {
	out := map[string]schema.Attribute{
		attrActionDomain: schema.StringAttribute{
			Required:    true,
			Description: "The domain: its UUID (`libvirt_domain.NAME.id`) or its name.",
		},
		attrActionHost: schema.StringAttribute{
			Optional: true,
			Description: "The host the domain lives on: a key of the provider's `hosts` " +
				"(`libvirt_domain.NAME.host`). Unset: the provider's `uri`.",
		},
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}

// target is the domain an invocation acts on, resolved on its host.
type target struct {
	uuid, name string
	progress   func(string)
}

// resolve finds the domain the configuration names and returns it with a
// progress reporter naming it; false after an error diagnostic.
func (a *domainAction) resolve(ctx context.Context, domain, host types.String, resp *action.InvokeResponse) (target, bool) {
	if !treeresource.RequireClient(a.client, &resp.Diagnostics) {
		return target{}, false
	}
	uuid, name, err := libvirtops.Domains(a.client).Identify(ctx, domain.ValueString())
	if err != nil {
		summary := "Cannot find the domain"
		if libvirtconn.IsNotFound(err) {
			where := "the provider's uri"
			if !host.IsNull() {
				where = fmt.Sprintf("host %q", host.ValueString())
			}
			err = fmt.Errorf("no domain with UUID or name %q on %s", domain.ValueString(), where)
		}
		resp.Diagnostics.AddAttributeError(path.Root(attrActionDomain), summary, err.Error())
		return target{}, false
	}
	return target{uuid: uuid, name: name, progress: func(msg string) {
		if resp.SendProgress != nil {
			resp.SendProgress(action.InvokeProgressEvent{Message: name + ": " + msg})
		}
	}}, true
}

// durationOr reads a validated duration attribute, def when unset.
func durationOr(v types.String, def time.Duration) time.Duration {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	d, err := time.ParseDuration(v.ValueString())
	if err != nil {
		return def
	}
	return d
}
