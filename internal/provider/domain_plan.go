package provider

import (
	"context"
	"fmt"
	"math/big"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// minMemoryKiB is the size under which a memory value without a unit is
// almost certainly a MiB value read as KiB (libvirt's default unit).
const minMemoryKiB = 64 * 1024

// ModifyPlan works on the whole plan once (no per-attribute modifiers in the
// document tree: they would cost a pass over the large value each). It warns
// about the KiB trap, forces replacement where libvirt cannot change a
// domain, and says when a change waits for the next boot.
func (r *domainResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	if plan == nil {
		return
	}
	warnSmallMemory(plan, &resp.Diagnostics)
	if !req.Plan.Raw.Equal(req.State.Raw) {
		r.warnDuplicateMACs(ctx, treeresource.ObjectAttrs(req.Config.Raw), treeresource.ObjectAttrs(req.State.Raw), &resp.Diagnostics)
	}
	if req.State.Raw.IsNull() || req.Plan.Raw.Equal(req.State.Raw) {
		return
	}
	state := treeresource.ObjectAttrs(req.State.Raw)

	// libvirt cannot change a domain's type (Spec.ReplaceOnChange) or
	// architecture in place.
	if p := r.PlanUpdate(req, &resp.RequiresReplace); p != nil {
		plan = p
		treeresource.SetPlan(resp, plan)
	}
	// A null architecture is libvirt's choice (the host's), not a change:
	// state holds libvirt's value after an import, and replacing a guest
	// because the configuration leaves the default unwritten would destroy it.
	if arch := treeresource.Nested(plan["os"], "type_arch"); !arch.IsNull() && changed(arch, treeresource.Nested(state["os"], "type_arch")) {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("os").AtName("type_arch"))
	}
	if len(resp.RequiresReplace) > 0 || r.planMove(ctx, resp, plan, state) {
		return
	}

	running, _ := treeresource.Bool(state, attrRunning)
	stayRunning, _ := treeresource.Bool(plan, attrRunning)
	if !running || !stayRunning {
		if !running && !stayRunning {
			keepConsoleURLs(resp, plan, state) // stopped before and after: none
		}
		return
	}
	var diags diag.Diagnostics
	newDoc := domainFromPlan(plan, &diags)
	oldDoc := domainFromPlan(state, &diags)
	if diags.HasError() || newDoc == nil || oldDoc == nil {
		return // reported again, with paths, at apply
	}
	name, _ := treeresource.String(plan, "name")
	if oldDoc.Name != newDoc.Name {
		resp.Diagnostics.AddAttributeWarning(path.Root("name"), "Renaming restarts the domain",
			fmt.Sprintf("libvirt renames only stopped domains: %q will be shut down, renamed to %q and started again.", oldDoc.Name, name))
	}
	// a new console password (its write-only version changed) is in
	// neither document: it is a graphics change of its own, for the next boot
	passwordChanged := xmlschema.Domain().WriteOnlyVersionsChanged(plan, state)
	needsRestart := libvirtops.NeedsRestart(oldDoc, newDoc) || passwordChanged
	restart, _ := treeresource.Bool(plan, attrRestartOnChange)
	if oldDoc.Name == newDoc.Name && (!needsRestart || !restart) && sameGraphics(oldDoc, newDoc) {
		// no restart and the same consoles: the live ports stay
		keepConsoleURLs(resp, plan, state)
	}
	if !needsRestart {
		return
	}
	if restart {
		resp.Diagnostics.AddWarning("The domain will be restarted",
			fmt.Sprintf("Domain %q is running and this change only takes effect at its next boot; restart_on_change = true, so apply shuts it down gracefully and starts it again.", name))
		return
	}
	resp.Diagnostics.AddWarning("Change takes effect at the next boot",
		fmt.Sprintf("Domain %q is running; this change is written to its persistent definition and takes effect when it next boots. Set restart_on_change = true to restart it during apply.", name))
}

// warnSmallMemory warns when memory has no unit and so is read as KiB, and is
// too small to boot anything (the ADR's silent under-allocation trap).
func warnSmallMemory(plan map[string]tftypes.Value, diags *diag.Diagnostics) {
	mem := plan["memory"]
	unit := plan["memory_unit"]
	if mem.IsNull() || !mem.IsKnown() || !unit.IsNull() {
		return
	}
	var f big.Float
	if mem.As(&f) != nil {
		return
	}
	v, _ := f.Int64()
	if v >= minMemoryKiB {
		return
	}
	diags.AddAttributeWarning(path.Root("memory"), "memory is in KiB",
		fmt.Sprintf("memory = %d without memory_unit is %d KiB (%.1f MiB) in libvirt, under 64 MiB. If you meant MiB, set memory_unit = \"MiB\".", v, v, float64(v)/1024))
}

func changed(a, b tftypes.Value) bool {
	if a.IsNull() && b.IsNull() {
		return false
	}
	if !a.IsKnown() || !b.IsKnown() {
		return false
	}
	return !a.Equal(b)
}

// keepConsoleURLs plans the console URLs the state has: the update neither
// starts, stops nor restarts the domain, nor changes its graphics, so the
// live ports (autoport) stay what they are.
func keepConsoleURLs(resp *resource.ModifyPlanResponse, plan, state map[string]tftypes.Value) {
	if v, ok := state[attrConsoleURLs]; ok && v.IsKnown() && !v.IsNull() {
		plan[attrConsoleURLs] = v
		treeresource.SetPlan(resp, plan)
	}
}

// sameGraphics reports whether two definitions have the same graphical consoles.
func sameGraphics(a, b *libvirtxml.Domain) bool {
	var ga, gb []libvirtxml.DomainGraphic
	if a.Devices != nil {
		ga = a.Devices.Graphics
	}
	if b.Devices != nil {
		gb = b.Devices.Graphics
	}
	return reflect.DeepEqual(ga, gb)
}
