package treeresource

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// upgrade answers UpgradeResourceState for a state at the current schema
// version: the stored JSON read with the (cached) object type, attributes
// the schema no longer has dropped, as the framework does; the framework
// rebuilds the type from the schema on every call. ok is false when the
// JSON does not fit: the framework then explains.
func (t *treeType) upgrade(req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, bool) {
	v, err := req.RawState.UnmarshalWithOpts(t.objType, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		return nil, false
	}
	dv, err := t.values.encode(t.objType, v)
	if err != nil {
		return nil, false
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}, true
}
