package treeresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Ending is how a Create or an Update ends (Base.Finish): the object with
// ID is read back and stored as state, or, when that fails, what the failed
// operation left is dealt with and one error says what happened.
type Ending struct {
	// Op is "create" or "update", for the messages.
	Op string
	// Plan is the planned value; its type is the state's, and a create
	// whose object may remain is recorded from it as unfinished.
	Plan tftypes.Value
	ID   string
	// Prior are the attributes the live document is reconciled with (the
	// plan's after create or update).
	Prior map[string]tftypes.Value
	// Undo, for a create, removes the object the failed create made: said
	// is the sentence the error ends with (what was removed, or how to
	// remove it by hand; "" when there was nothing to remove), remains
	// whether the object may still exist. Nil for an update, and for a
	// create whose object stays and is recorded as unfinished.
	Undo func() (said string, remains bool)
	// KeepUnfinished records the object as unfinished (tainted: the next
	// apply re-creates it) when it cannot be read back, instead of Undo.
	KeepUnfinished bool
}

// Finish reads the object back after e.Op and stores it in state. When the
// read fails or libvirt no longer has the object it adds one error (a
// vanished object is said to be gone, naming its import id), stores the
// unfinished record when the object may remain, and returns false.
func (b *Base[T]) Finish(ctx context.Context, e Ending, state *tfsdk.State, diags *diag.Diagnostics) bool {
	v, found, err := b.ReadBack(ctx, e.Plan.Type(), e.ID, e.Prior)
	if err == nil && found {
		state.Raw = v
		return true
	}
	var detail string
	if err != nil {
		detail = fmt.Sprintf("reading %s %s: %v", b.noun(), e.ID, err)
	} else {
		detail = fmt.Sprintf("libvirt no longer has %s %s: it vanished right after the %s (removed outside this configuration?). "+
			"Nothing is recorded for it; apply again to create it, or, if it is back, adopt it with an import block (id = %q).",
			b.noun(), e.ID, e.Op, e.ID)
	}
	remains := e.KeepUnfinished
	if e.Undo != nil {
		said, stays := e.Undo()
		detail += said
		remains = stays
	}
	if remains && e.Op == "create" {
		if unfinished, uerr := Unfinished(e.Plan, e.ID); uerr == nil {
			state.Raw = unfinished
			detail += fmt.Sprintf("; %s %s is recorded as tainted: the next apply re-creates it", b.noun(), e.ID)
		}
	}
	diags.AddError(fmt.Sprintf("Cannot read %s after %s", b.noun(), e.Op), detail)
	return false
}

// ImportAdvice is the one way messages tell how to adopt an existing
// object instead of creating it: an import block, or `tofu import`.
func ImportAdvice(id string) string {
	return fmt.Sprintf("adopt it with an import block (id = %q) or `tofu import <address> %s`", id, id)
}

// RemovalSaid words, for the error of a failed create, how removing the
// object it left went: err is the removal's error; name names the object
// and byHand is the command that removes it when the provider could not.
func (b *Base[T]) RemovalSaid(err error, name, byHand string) string {
	switch {
	case err == nil:
		return fmt.Sprintf(" (the partly created %s was removed)", b.noun())
	case libvirtconn.IsNotFound(err):
		return ""
	default:
		return fmt.Sprintf(" (removing the partly created %s %q failed too: %v; remove it with %s)", b.noun(), name, err, byHand)
	}
}
