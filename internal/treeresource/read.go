package treeresource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// read answers ReadResource by calling the resource's Read directly, with
// its private state, and drops the framework's import marker as the
// framework does. The framework's generic path also compares every
// top-level attribute for semantic equality and rewrites the whole value
// for write-only attributes; the tree has neither, and each is a walk over
// the large schema.
func (t *treeType) read(ctx context.Context, providerData any, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	current, err := t.values.decode(req.CurrentState, t.objType)
	if err != nil {
		return nil, err
	}
	resp := &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}
	if current.IsNull() {
		return resp, nil
	}
	ps, err := decodePrivate(req.Private)
	if err != nil {
		return nil, err
	}
	var diags diag.Diagnostics
	r := t.newResource()
	if !configure(ctx, r, providerData, &diags) {
		resp.Diagnostics = toProtoDiagnostics(diags)
		return resp, nil
	}
	state := tfsdk.State{Schema: t.schema, Raw: current}
	rreq := resource.ReadRequest{State: state}
	if req.ClientCapabilities != nil {
		rreq.ClientCapabilities.DeferralAllowed = req.ClientCapabilities.DeferralAllowed
	}
	diags.Append(providerDataFor(ctx, &rreq.Private, ps.provider)...)
	rresp := resource.ReadResponse{State: state, Private: rreq.Private, Diagnostics: diags}
	r.Read(ctx, rreq, &rresp)
	resp.Diagnostics = toProtoDiagnostics(rresp.Diagnostics)

	delete(ps.framework, frameworkImportBeforeRead)
	ps.provider = providerDataKeys(rresp.Private)
	if resp.Private, err = ps.encode(); err != nil {
		return nil, err
	}
	newState, err := t.values.encode(t.objType, rresp.State.Raw)
	if err != nil {
		return nil, err
	}
	resp.NewState = &newState
	// the identity follows the state; a state from before identities
	// existed gains one here
	if err := t.addIdentity(resp.NewState, &resp.NewIdentity); err != nil {
		return nil, err
	}
	return resp, nil
}
