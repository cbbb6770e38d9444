package treeresource

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// SchemaVersion is the schema version of every tree resource. Version 2
// has dmacvicar/libvirt 0.9.7's names and shapes everywhere: acronym
// plurals split as 0.9 splits them (io_thread_i_ds, dns.sr_vs; version 1 had
// io_thread_ids, srvs), a choice member of text only is that text (an RNG
// backend's random = "/dev/urandom", an object in version 1), a CDATA value
// is an object (metadata_cache.max_size = { value, unit }, flattened in
// version 1). Version 1 followed libvirt's words and dmacvicar/libvirt 0.9's
// shapes (vhost_user, dbus; an element without content and a yes/no
// attribute are bools); version 0 was provider 0.1.x. dmacvicar/libvirt
// 0.9.x writes version 0 too, with its own names and shapes: one upgrader
// reads them all.
const SchemaVersion = 2

// UpgradeState upgrades a state of an earlier version (this provider 0.1.x,
// or dmacvicar/libvirt 0.9.x after `tofu state replace-provider`: version 0;
// this provider before version 2: version 1).
func (b *Base[T]) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: {StateUpgrader: b.upgradeFromEarlier}, 1: {StateUpgrader: b.upgradeFromEarlier}}
}

func (b *Base[T]) upgradeFromEarlier(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	if req.RawState == nil {
		resp.Diagnostics.AddError("Cannot upgrade "+b.spec.Name+" state", "the state has no JSON")
		return
	}
	var old map[string]any
	if err := json.Unmarshal(req.RawState.JSON, &old); err != nil {
		resp.Diagnostics.AddError("Cannot upgrade "+b.spec.Name+" state", err.Error())
		return
	}
	doc := b.spec.Model.UpgradeJSON(old)
	for name := range b.spec.Own {
		if v, ok := old[name]; ok && v != nil {
			doc[name] = v
		}
	}
	// dmacvicar/libvirt 0.9's domain `id` is not a resource id but libvirt's
	// runtime domain number (`virsh domid`): a JSON number while the domain
	// runs, absent while it is stopped. The id here is the UUID; a number
	// kept as the id would be read as the string "3" and fail every read.
	if _, isString := doc["id"].(string); !isString {
		delete(doc, "id")
		if doc["uuid"] != nil {
			doc["id"] = doc["uuid"]
		}
	}
	js, err := json.Marshal(doc)
	if err != nil {
		resp.Diagnostics.AddError("Cannot upgrade "+b.spec.Name+" state", err.Error())
		return
	}
	typ := b.SchemaDefinition().Type().TerraformType(ctx)
	v, err := tftypes.ValueFromJSONWithOpts(js, typ, tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true})
	if err != nil {
		resp.Diagnostics.AddError("Cannot upgrade "+b.spec.Name+" state", err.Error())
		return
	}
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		resp.Diagnostics.AddError("Cannot upgrade "+b.spec.Name+" state", err.Error())
		return
	}
	resp.DynamicValue = &dv
}
