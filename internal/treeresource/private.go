package treeresource

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// Private state, in the framework's format: a JSON object of base64 byte
// strings, where keys that start with "." belong to the framework and the
// others to the resource. The framework gives resources a
// *privatestate.ProviderData, a type of an internal package: it can be
// passed along and its exported methods called, but not named or created
// outside the framework. The two functions below create one (reflect.New on
// the field's type, then SetKey) and read it back (its data field), so that
// private state set by a tree resource in ModifyPlan or Read reaches
// OpenTofu as it does through the framework's server. private_test.go pins
// this against the framework version in go.mod.

// frameworkImportBeforeRead is the framework's key marking a state that
// ImportResourceState wrote; the Read after it removes the key.
const frameworkImportBeforeRead = ".import_before_read"

// privateState is the decoded private bytes of one request.
type privateState struct {
	framework map[string][]byte
	provider  map[string][]byte
}

func decodePrivate(b []byte) (privateState, error) {
	ps := privateState{framework: map[string][]byte{}, provider: map[string][]byte{}}
	if len(b) == 0 {
		return ps, nil
	}
	var m map[string][]byte
	if err := json.Unmarshal(b, &m); err != nil {
		return ps, fmt.Errorf("decoding private state: %w", err)
	}
	for k, v := range m {
		if strings.HasPrefix(k, ".") {
			ps.framework[k] = v
		} else {
			ps.provider[k] = v
		}
	}
	return ps, nil
}

// encode returns the bytes of the merged private state; nil when empty, as
// the framework returns it.
func (ps privateState) encode() ([]byte, error) {
	m := map[string][]byte{}
	for _, part := range []map[string][]byte{ps.framework, ps.provider} {
		for k, v := range part {
			if len(v) > 0 {
				m[k] = v
			}
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return json.Marshal(m)
}

// providerDataFor sets *field (a *privatestate.ProviderData) to a new value
// holding data.
func providerDataFor[P interface {
	SetKey(context.Context, string, []byte) diag.Diagnostics
}](ctx context.Context, field *P, data map[string][]byte) diag.Diagnostics {
	fv := reflect.ValueOf(field).Elem()
	fv.Set(reflect.New(fv.Type().Elem()))
	var diags diag.Diagnostics
	for k, v := range data {
		diags.Append((*field).SetKey(ctx, k, v)...)
	}
	return diags
}

// providerDataKeys reads back the keys and values of a *privatestate.ProviderData.
func providerDataKeys(pd any) map[string][]byte {
	out := map[string][]byte{}
	v := reflect.ValueOf(pd)
	if !v.IsValid() || v.IsNil() {
		return out
	}
	data := v.Elem().FieldByName("data")
	if !data.IsValid() || data.Kind() != reflect.Map {
		panic("treeresource: the framework's private state has no data map: update private.go for this framework version")
	}
	iter := data.MapRange()
	for iter.Next() {
		out[iter.Key().String()] = append([]byte(nil), iter.Value().Bytes()...)
	}
	return out
}

// The request fields whose type is *privatestate.ProviderData.
var (
	_ = resource.ModifyPlanRequest{}.Private
	_ = resource.ReadRequest{}.Private
)

// shapeKey is the private-state key under which the core records the shape
// of the configuration (xmlschema.Shape) that the last applied plan had:
// which document attributes the user manages. Every plan writes it; it
// reaches the state when the plan is applied.
const shapeKey = "tree_shape"

// recordedShape is the recorded shape, or nil (nothing recorded: the state
// was imported, moved from another provider or written by an older
// version, and the configuration is taken as the user's shape).
func recordedShape(ps privateState) *xmlschema.Shape {
	b, ok := ps.provider[shapeKey]
	if !ok {
		return nil
	}
	s := new(xmlschema.Shape)
	if err := json.Unmarshal(b, s); err != nil {
		return nil // unreadable: the safe reading is "nothing recorded"
	}
	return s
}

func recordShape(ps privateState, s *xmlschema.Shape) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	ps.provider[shapeKey] = b
	return nil
}
