package treeresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// KeepOrDefaultBool is the plan modifier of provider-level switches such as
// `running` and `autostart` (the attribute is Optional and Computed, without
// a Default): set in the configuration, the configured value; unset on a
// resource being created, def; unset on an existing resource, the value
// the host has now (the refreshed state). An adopted object (imported, or
// moved from another provider) therefore keeps running and keeps its
// autostart flag until the configuration says otherwise.
func KeepOrDefaultBool(def bool) planmodifier.Bool { return keepOrDefaultBool{def: def} }

type keepOrDefaultBool struct{ def bool }

func (m keepOrDefaultBool) Description(context.Context) string {
	return fmt.Sprintf("%t when the resource is created; unset afterwards, the value the host has", m.def)
}

func (m keepOrDefaultBool) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (m keepOrDefaultBool) PlanModifyBool(_ context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	if req.State.Raw.IsNull() || req.StateValue.IsNull() || req.StateValue.IsUnknown() {
		resp.PlanValue = types.BoolValue(m.def)
		return
	}
	resp.PlanValue = req.StateValue
}
