package treeresource

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Ending is how a Create or an Update ends (Base.Finish): the operation is
// applied, and the object with ID is read back and stored as state; when
// either fails, what the failed operation left is dealt with and one error
// says what happened.
type Ending struct {
	// Op is "create" or "update", for the messages.
	Op string
	// Plan is the planned value; its type is the state's, and a create
	// whose object may remain is recorded from it as unfinished.
	Plan tftypes.Value
	// ID is the object's id, or "" when Apply returns it.
	ID string
	// Prior are the attributes the live document is reconciled with (the
	// plan's after create or update).
	Prior map[string]tftypes.Value
	// Apply defines (create) or changes (update) the object. It returns the
	// object's id when only libvirt knows it ("" keeps ID). A returned error
	// is reported as "Cannot <op> <noun>" (on Attr when set); Apply may add
	// diagnostics of its own (warnings, errors on an attribute), and any
	// error among them fails the operation as well. Nil: nothing is left to
	// do but read back.
	Apply func(diags *diag.Diagnostics) (id string, err error)
	// Attr is the attribute an error of Apply is reported on (empty: none).
	Attr path.Path
	// Before, for an update, are the state's attributes before it: when
	// Apply fails, what libvirt holds then is stored (reconciled with them),
	// so the next plan shows only what is still to do. Nil keeps the prior
	// state as it was.
	Before map[string]tftypes.Value
	// Undo, for a create, deals with the object the failed create (Apply or
	// the read-back) left: said is the sentence the error ends with (what
	// was removed, or how to remove it by hand; "" when there was nothing
	// to remove), remains whether the object may still exist (it is then
	// recorded as unfinished). Nil for an update.
	Undo func() (said string, remains bool)
	// KeepUnfinished records the object as unfinished (tainted: the next
	// apply re-creates it) when it cannot be read back, instead of Undo.
	KeepUnfinished bool
}

// Finish applies e and reads the object back, storing it in state. When
// the apply fails it adds one error "Cannot <op> <noun>"; when the read
// fails or libvirt no longer has the object, one error "Cannot read <noun>
// after <op>" (a vanished object is said to be gone, naming its import id).
// Either way it stores the unfinished record of a create whose object may
// remain, and returns false.
func (b *Base[T]) Finish(ctx context.Context, e Ending, state *tfsdk.State, diags *diag.Diagnostics) bool {
	if e.Apply != nil && !b.apply(ctx, &e, state, diags) {
		return false
	}
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
	var remains bool
	if e.KeepUnfinished {
		remains = true
	} else {
		var said string
		said, remains = e.undo()
		detail += said
	}
	detail += b.recordUnfinished(e, remains, state)
	diags.AddError(fmt.Sprintf("Cannot read %s after %s", b.noun(), e.Op), detail)
	return false
}

// apply runs e.Apply and reports its failure; it sets e.ID to the id Apply
// returns.
func (b *Base[T]) apply(ctx context.Context, e *Ending, state *tfsdk.State, diags *diag.Diagnostics) bool {
	var own diag.Diagnostics
	id, err := e.Apply(&own)
	if id != "" {
		e.ID = id
	}
	diags.Append(own...)
	if err == nil && !own.HasError() {
		return true
	}
	detail := ""
	if err != nil {
		detail = err.Error()
	}
	said, remains := e.undo()
	detail += said
	detail += b.recordUnfinished(*e, remains, state)
	if e.Before != nil {
		// keep what was applied before the failure: the next plan shows the rest
		if v, found, rerr := b.ReadBack(ctx, e.Plan.Type(), e.ID, e.Before); rerr == nil && found {
			state.Raw = v
		}
	}
	switch {
	case err == nil:
		// Apply said it all; what Undo did is added as its own line
		if detail != "" {
			diags.AddError(fmt.Sprintf("Cannot %s %s", e.Op, b.noun()), strings.TrimPrefix(strings.TrimPrefix(detail, "; "), " "))
		}
	case !e.Attr.Equal(path.Empty()):
		diags.AddAttributeError(e.Attr, fmt.Sprintf("Cannot %s %s", e.Op, b.noun()), detail)
	default:
		diags.AddError(fmt.Sprintf("Cannot %s %s", e.Op, b.noun()), detail)
	}
	return false
}

// undo runs Undo of a create.
func (e Ending) undo() (said string, remains bool) {
	if e.Undo == nil || e.Op != "create" {
		return "", false
	}
	return e.Undo()
}

// recordUnfinished stores a create's object that may remain as unfinished
// (tainted) and says so for the error.
func (b *Base[T]) recordUnfinished(e Ending, remains bool, state *tfsdk.State) string {
	if !remains || e.Op != "create" || e.ID == "" {
		return ""
	}
	unfinished, err := Unfinished(e.Plan, e.ID)
	if err != nil {
		return ""
	}
	state.Raw = unfinished
	return fmt.Sprintf("; %s %s may remain, so it is recorded as tainted: the next apply looks it up and re-creates it", b.noun(), e.ID)
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
