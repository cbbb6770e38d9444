package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// Moving a domain between hosts (docs/adr/0002-several-hosts.md): a change of
// libvirt_domain's host is an in-place update. A running domain migrates live
// (libvirt's migration protocol version 3, driven by the provider over its
// connections to both hosts, as virsh does without --p2p); a stopped one is
// defined on the new host and undefined on the old one. Either way the UUID
// stays. The plan refuses a move when the new host lacks what the domain
// uses: a disk not in one of its storage pools under the same path, a
// network it does not have, a name or UUID it already uses for another
// domain; and domains with snapshots, a managed-save image or host devices.

func domainHostAttribute() schema.Attribute {
	return schema.StringAttribute{
		Optional: true,
		Description: "The host the domain lives on: a key of the provider's `hosts`. Unset: the provider's `uri`. " +
			"Changing it moves the domain in place, keeping its UUID: a running domain migrates live (it keeps running; " +
			"the old host keeps no definition), a stopped one is defined on the new host and undefined on the old one. " +
			"The plan refuses the move, naming what is missing, unless the new host has every disk in one of its storage " +
			"pools under the same path (a pool over shared storage defined on both hosts) or on network storage, every " +
			"libvirt network the interfaces use, and no other domain of the same name or UUID; domains with snapshots, a " +
			"managed-save image or PCI/USB host devices do not move. A failed migration leaves the domain running on the " +
			"old host and the state unchanged.",
	}
}

// Configure keeps the provider's hosts beside the request host's connection:
// a move needs both hosts.
func (r *domainResource) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.Base.Configure(ctx, req, resp)
	r.hosts, _ = req.ProviderData.(*hostroute.Set)
}

// MovesBetweenHosts: a domain moves to another host in place (live
// migration or a definition moved), it is not replaced.
func (r *domainResource) MovesBetweenHosts() {}

var _ hostroute.Movable = (*domainResource)(nil)

// move is a planned change of host.
type move struct {
	from, to hostroute.Ref
	src, dst *libvirtconn.Client // nil while unknown at plan
}

// ends are the two hosts of the move for libvirtops.
func (m *move) ends() libvirtops.MoveEnds {
	return libvirtops.MoveEnds{Src: m.src, Dst: m.dst, From: m.from.Label(), To: m.to.Label()}
}

// plannedMove returns the move between state and plan, nil when the host
// stays (the same name, or names of the same connection).
func (r *domainResource) plannedMove(state, plan map[string]tftypes.Value) (*move, error) {
	if r.hosts == nil {
		return nil, nil
	}
	from, to := hostroute.RefOf(state), hostroute.RefOf(plan)
	if r.hosts.SameHost(from, to) {
		return nil, nil
	}
	m := &move{from: from, to: to}
	var err error
	if m.src, err = r.hosts.Client(from); err != nil {
		return nil, err
	}
	if m.dst, err = r.hosts.Client(to); err != nil {
		return nil, err
	}
	return m, nil
}

// planMove plans a change of host: it checks that the domain can move (an
// error naming what is missing on the new host when not) and leaves the
// console URLs unknown (the new host chooses the ports). It returns true
// when the domain moves; ModifyPlan then plans nothing else.
func (r *domainResource) planMove(ctx context.Context, resp *resource.ModifyPlanResponse, plan, state map[string]tftypes.Value) bool {
	m, err := r.plannedMove(state, plan)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root(hostroute.Attr), "Unknown host", err.Error())
		return true
	}
	if m == nil {
		return false
	}
	plan[attrConsoleURLs] = tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, tftypes.UnknownValue)
	treeresource.SetPlan(resp, plan)
	if m.src == nil || m.dst == nil {
		return true // checked at apply, once both hosts are known
	}
	id, _ := treeresource.String(state, "id")
	problems, err := libvirtops.CheckMove(ctx, m.ends(), id)
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(path.Root(hostroute.Attr), "Cannot check the move of the domain", err.Error())
	case len(problems) > 0:
		resp.Diagnostics.AddAttributeError(path.Root(hostroute.Attr), "The domain cannot move to "+m.to.Label(), moveRefusal(m, problems))
	}
	return true
}

func moveRefusal(m *move, problems []string) string {
	return fmt.Sprintf("The domain cannot move from %s to %s:\n  - %s\n"+
		"A domain moves only when the new host sees its disks under the same paths (a storage pool over shared "+
		"storage defined on both hosts, or network storage) and has the networks it uses.",
		m.from.Label(), m.to.Label(), strings.Join(problems, "\n  - "))
}

// applyMove moves the domain before the rest of Update runs on its new host.
// false means it failed; resp then holds the error and the prior state (the
// domain is where it was).
func (r *domainResource) applyMove(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) bool {
	state, plan := treeresource.ObjectAttrs(req.State.Raw), treeresource.ObjectAttrs(req.Plan.Raw)
	m, err := r.plannedMove(state, plan)
	if err == nil && m != nil && (m.src == nil || m.dst == nil) {
		err = errors.New("the uri of a host is still unknown")
	}
	fail := func(summary, detail string) bool {
		resp.Diagnostics.AddError(summary, detail)
		resp.State.Raw = req.State.Raw
		return false
	}
	if err != nil {
		return fail("Cannot move domain", err.Error())
	}
	if m == nil {
		return true
	}
	id, _ := treeresource.String(state, "id")
	problems, err := libvirtops.CheckMove(ctx, m.ends(), id)
	if err != nil {
		return fail("Cannot move domain", err.Error())
	}
	if len(problems) > 0 {
		return fail("The domain cannot move to "+m.to.Label(), moveRefusal(m, problems))
	}
	started := time.Now()
	how, moved, err := libvirtops.MoveDomain(ctx, m.ends(), id, r.hosts.MigrateUnsafe(m.to))
	if err != nil {
		detail := fmt.Sprintf("moving the domain from %s to %s: %v", m.from.Label(), m.to.Label(), err)
		if !moved {
			return fail("Cannot move domain", detail)
		}
		// it lives on the new host now: the state says so
		resp.Diagnostics.AddError("Domain moved incompletely", detail)
		state[hostroute.Attr] = plan[hostroute.Attr]
		resp.State.Raw = tftypes.NewValue(req.State.Raw.Type(), state)
		return false
	}
	tflog.Info(ctx, "domain moved", map[string]any{"from": m.from.Label(), "to": m.to.Label(), "how": how,
		"seconds": time.Since(started).Seconds()})
	return true
}
