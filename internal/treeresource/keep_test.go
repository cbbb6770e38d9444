package treeresource

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestKeepOrDefaultBool(t *testing.T) {
	objType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"running": tftypes.Bool}}
	existing := tfsdk.State{Raw: tftypes.NewValue(objType, map[string]tftypes.Value{"running": tftypes.NewValue(tftypes.Bool, true)})}
	creating := tfsdk.State{Raw: tftypes.NewValue(objType, nil)}
	cases := []struct {
		name          string
		state         tfsdk.State
		config, prior types.Bool
		want          types.Bool
	}{
		{"configured wins", existing, types.BoolValue(false), types.BoolValue(true), types.BoolValue(false)},
		{"unset on create: default", creating, types.BoolNull(), types.BoolNull(), types.BoolValue(true)},
		{"unset on an existing object: the host's value", existing, types.BoolNull(), types.BoolValue(false), types.BoolValue(false)},
		{"unset, state without a value: default", existing, types.BoolNull(), types.BoolNull(), types.BoolValue(true)},
	}
	m := KeepOrDefaultBool(true)
	for _, c := range cases {
		req := planmodifier.BoolRequest{State: c.state, ConfigValue: c.config, StateValue: c.prior, PlanValue: types.BoolUnknown()}
		if !c.config.IsNull() {
			req.PlanValue = c.config
		}
		resp := planmodifier.BoolResponse{PlanValue: req.PlanValue}
		m.PlanModifyBool(context.Background(), req, &resp)
		if !resp.PlanValue.Equal(c.want) {
			t.Errorf("%s: planned %v, want %v", c.name, resp.PlanValue, c.want)
		}
	}
	if d := m.Description(context.Background()); d == "" || m.MarkdownDescription(context.Background()) != d {
		t.Errorf("descriptions %q", d)
	}
}
