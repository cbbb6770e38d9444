package treeresource

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// finishFixture is a fake resource whose object is gone (fetch says not
// found, as libvirt does for an object removed right after the create) or
// unreadable (fetchErr), and a plan of its type.
func finishFixture(t *testing.T, fetchErr error) (*fakeResource, tftypes.Value) {
	t.Helper()
	r := newFakeResource(func(id string) (*Fetched[libvirtxml.StoragePool], error) {
		if fetchErr != nil {
			return nil, fetchErr
		}
		return nil, fmt.Errorf("no pool %s: %w", id, libvirtconn.ErrNotFound)
	})().(*fakeResource)
	typ := r.SchemaDefinition().Type().TerraformType(context.Background()).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	vals["name"] = StringValue("p")
	vals["id"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	return r, tftypes.NewValue(typ, vals)
}

// An object that vanished between the define and the read-back: the error
// says so and names the import id; it never reads "<nil>" (issue 24: twelve
// copies of this ending printed fmt.Sprint(nil)).
func TestFinishVanishedObjectNamesImportID(t *testing.T) {
	for _, op := range []string{"create", "update"} {
		r, plan := finishFixture(t, nil)
		var diags diag.Diagnostics
		state := tfsdk.State{Raw: tftypes.NewValue(plan.Type(), nil)}
		if r.Finish(context.Background(), Ending{Op: op, Plan: plan, ID: fakeUUID}, &state, &diags) {
			t.Fatalf("%s: Finish reported success for a vanished object", op)
		}
		if len(diags) != 1 {
			t.Fatalf("%s: %d diagnostics, want 1: %v", op, len(diags), diags)
		}
		d := diags[0]
		if want := "Cannot read fake after " + op; d.Summary() != want {
			t.Errorf("%s: summary %q, want %q", op, d.Summary(), want)
		}
		if strings.Contains(d.Detail(), "<nil>") {
			t.Errorf("%s: detail shows <nil>: %s", op, d.Detail())
		}
		for _, want := range []string{"no longer has fake " + fakeUUID, "after the " + op, `import block (id = "` + fakeUUID + `")`} {
			if !strings.Contains(d.Detail(), want) {
				t.Errorf("%s: detail %q lacks %q", op, d.Detail(), want)
			}
		}
		if !state.Raw.IsNull() {
			t.Errorf("%s: a vanished object was stored: %v", op, state.Raw)
		}
	}
}

// A read-back that fails shows libvirt's error; Undo's words follow it; a
// create whose object may remain is recorded as unfinished under its id.
func TestFinishFailedReadUndoAndUnfinished(t *testing.T) {
	r, plan := finishFixture(t, errors.New("connection reset"))
	var diags diag.Diagnostics
	state := tfsdk.State{Raw: tftypes.NewValue(plan.Type(), nil)}
	undone := false
	ok := r.Finish(context.Background(), Ending{Op: "create", Plan: plan, ID: fakeUUID, Undo: func() (string, bool) {
		undone = true
		return " (removing it failed too: boom)", true
	}}, &state, &diags)
	if ok || !undone {
		t.Fatalf("ok %v, undo ran %v: want a failure that ran Undo", ok, undone)
	}
	detail := diags[0].Detail()
	for _, want := range []string{"connection reset", "removing it failed too: boom", "recorded as tainted"} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail %q lacks %q", detail, want)
		}
	}
	if id, _ := String(ObjectAttrs(state.Raw), "id"); id != fakeUUID {
		t.Errorf("unfinished state has id %q, want %q", id, fakeUUID)
	}

	// removed cleanly: nothing is stored
	state = tfsdk.State{Raw: tftypes.NewValue(plan.Type(), nil)}
	diags = nil
	r.Finish(context.Background(), Ending{Op: "create", Plan: plan, ID: fakeUUID, Undo: func() (string, bool) { return r.RemovalSaid(nil, "p", "virsh x"), false }}, &state, &diags)
	if !state.Raw.IsNull() || !strings.Contains(diags[0].Detail(), "(the partly created fake was removed)") {
		t.Errorf("clean removal: state %v, detail %q", state.Raw, diags[0].Detail())
	}
}

// A failed create: one error "Cannot create <noun>" with the operation's
// error and Undo's words; nothing is read back; an object that may remain is
// recorded as unfinished under the id Apply returned.
func TestFinishFailedApply(t *testing.T) {
	r, plan := finishFixture(t, errors.New("read back although the apply failed"))
	var diags diag.Diagnostics
	state := tfsdk.State{Raw: tftypes.NewValue(plan.Type(), nil)}
	ok := r.Finish(context.Background(), Ending{Op: "create", Plan: plan,
		Apply: func(*diag.Diagnostics) (string, error) { return fakeUUID, errors.New("defining pool: refused") },
		Undo:  func() (string, bool) { return " (removing it failed too: boom)", true },
	}, &state, &diags)
	if ok || len(diags) != 1 {
		t.Fatalf("ok %v, diagnostics %v: want one error", ok, diags)
	}
	if got, want := diags[0].Summary(), "Cannot create fake"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	detail := diags[0].Detail()
	for _, want := range []string{"defining pool: refused", "removing it failed too: boom", "fake " + fakeUUID + " may remain", "recorded as tainted"} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail %q lacks %q", detail, want)
		}
	}
	if strings.Contains(detail, "read back") {
		t.Errorf("the object was read back after a failed apply: %q", detail)
	}
	if id, _ := String(ObjectAttrs(state.Raw), "id"); id != fakeUUID {
		t.Errorf("unfinished state has id %q, want %q", id, fakeUUID)
	}
}

// A failed update reports on Attr, keeps Apply's own diagnostics, runs no
// Undo, and with Before stores what libvirt holds after the failure.
func TestFinishFailedUpdateKeepsWhatWasApplied(t *testing.T) {
	r, plan := finishFixture(t, nil)
	r.fetch = func(id string) (*Fetched[libvirtxml.StoragePool], error) {
		return &Fetched[libvirtxml.StoragePool]{Doc: &libvirtxml.StoragePool{Type: "dir", Name: "half-applied", UUID: id},
			Own: map[string]tftypes.Value{"id": StringValue(id)}}, nil
	}
	var diags diag.Diagnostics
	prior := tftypes.NewValue(plan.Type(), nil)
	state := tfsdk.State{Raw: prior}
	ok := r.Finish(context.Background(), Ending{Op: "update", Plan: plan, ID: fakeUUID, Attr: path.Root("label"),
		Before: ObjectAttrs(plan),
		Apply: func(d *diag.Diagnostics) (string, error) {
			d.AddWarning("half way", "the first step was applied")
			return "", errors.New("second step refused")
		},
		Undo: func() (string, bool) { t.Error("Undo ran for an update"); return "", false },
	}, &state, &diags)
	if ok || len(diags) != 2 || diags.ErrorsCount() != 1 {
		t.Fatalf("ok %v, diagnostics %v: want a warning and one error", ok, diags)
	}
	var withPath diag.DiagnosticWithPath
	for _, d := range diags.Errors() {
		withPath, _ = d.(diag.DiagnosticWithPath)
		if d.Summary() != "Cannot update fake" || !strings.Contains(d.Detail(), "second step refused") {
			t.Errorf("error %q: %q", d.Summary(), d.Detail())
		}
	}
	if withPath == nil || !withPath.Path().Equal(path.Root("label")) {
		t.Errorf("error not on attribute label: %v", withPath)
	}
	if name, _ := String(ObjectAttrs(state.Raw), "name"); name != "half-applied" {
		t.Errorf("state after the failed update has name %q, want what libvirt holds (half-applied)", name)
	}
}
