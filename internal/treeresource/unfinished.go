package treeresource

import (
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Unfinished is the state a Create returns with its error when the object
// may exist but the create could not finish or find out (the connection
// broke): the plan, with id set to the object's identity and unknown values
// null. OpenTofu records it as tainted, so the next apply refreshes it (Read
// drops it when it does not exist) and replaces it, instead of meeting an
// object of the same name that no state knows.
func Unfinished(plan tftypes.Value, id string) (tftypes.Value, error) {
	return tftypes.Transform(plan, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if len(p.Steps()) == 1 && p.Steps()[0] == tftypes.AttributeName("id") {
			return StringValue(id), nil
		}
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
}
