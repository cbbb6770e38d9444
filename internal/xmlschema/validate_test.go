package xmlschema

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"
)

// replaceAt returns vals with the value at path (below a top-level attribute)
// replaced by f(old).
func replaceAt(t *testing.T, vals map[string]tftypes.Value, top string, path *tftypes.AttributePath, f func(tftypes.Value) tftypes.Value) map[string]tftypes.Value {
	t.Helper()
	found := false
	nv, err := tftypes.Transform(vals[top], func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if p.Equal(path) {
			found = true
			return f(v), nil
		}
		return v, nil
	})
	if err != nil || !found {
		t.Fatalf("no value at %s.%s: %v", top, path, err)
	}
	out := make(map[string]tftypes.Value, len(vals))
	for k, v := range vals {
		out[k] = v
	}
	out[top] = nv
	return out
}

func TestValidate(t *testing.T) {
	m := Domain()
	doc := &libvirtxml.Domain{
		Type: "qemu", Name: "v",
		VCPU: &libvirtxml.DomainVCPU{Value: 1},
		Devices: &libvirtxml.DomainDeviceList{
			Interfaces: []libvirtxml.DomainInterface{{
				Source: &libvirtxml.DomainInterfaceSource{Network: &libvirtxml.DomainInterfaceSourceNetwork{Network: "default"}},
			}},
		},
	}
	vals := m.ToValues(doc)
	iface := tftypes.NewAttributePath().WithAttributeName("interfaces").WithElementKeyInt(0)
	str := func(s string) func(tftypes.Value) tftypes.Value {
		return func(tftypes.Value) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	}
	unknown := func(v tftypes.Value) tftypes.Value { return tftypes.NewValue(v.Type(), tftypes.UnknownValue) }
	null := func(v tftypes.Value) tftypes.Value { return tftypes.NewValue(v.Type(), nil) }

	cases := []struct {
		name      string
		vals      map[string]tftypes.Value
		wantPath  string // "" = valid
		wantMsg   string
		applyFail bool // FromValues fails although Validate passes (unknown values)
	}{
		{name: "valid", vals: vals},
		{name: "type agrees with member", vals: replaceAt(t, vals, "devices", iface.WithAttributeName("type"), str("network"))},
		{
			name:     "type contradicts member",
			vals:     replaceAt(t, vals, "devices", iface.WithAttributeName("type"), str("bridge")),
			wantPath: "devices.interfaces[0].type", wantMsg: `type "bridge" contradicts the "network" member`,
		},
		{
			name: "type not a member",
			vals: replaceAt(t, replaceAt(t, vals, "devices", iface.WithAttributeName("source"), null),
				"devices", iface.WithAttributeName("type"), str("telepathy")),
			wantPath: "devices.interfaces[0].type", wantMsg: `unsupported value "telepathy"; allowed: `,
		},
		{
			name: "number out of range",
			vals: func() map[string]tftypes.Value {
				out := make(map[string]tftypes.Value, len(vals))
				for k, v := range vals {
					out[k] = v
				}
				out["vcpu"] = tftypes.NewValue(tftypes.Number, -1)
				return out
			}(),
			wantPath: "vcpu", wantMsg: "must be between 0 and",
		},
		{
			name:      "unknown member value",
			vals:      replaceAt(t, vals, "devices", iface.WithAttributeName("source").WithAttributeName("network").WithAttributeName("network"), unknown),
			applyFail: true,
		},
		{
			name:      "unknown list element",
			vals:      replaceAt(t, vals, "devices", iface, unknown),
			applyFail: true,
		},
		{
			// the type is computed (libvirt always writes it): planned unknown
			// beside a member, it is that member's at apply
			name: "unknown type beside a member",
			vals: replaceAt(t, vals, "devices", iface.WithAttributeName("type"), unknown),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := m.Validate(tc.vals)
			if tc.wantPath == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				_, ferr := m.FromValues(tc.vals)
				if tc.applyFail != (ferr != nil) {
					t.Fatalf("FromValues error %v, want an error: %v", ferr, tc.applyFail)
				}
				return
			}
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("Validate: %v, want a PathError at %s", err, tc.wantPath)
			}
			if got := strings.SplitN(pe.Error(), ": ", 2)[0]; got != tc.wantPath {
				t.Errorf("path %s, want %s", got, tc.wantPath)
			}
			if !strings.Contains(pe.Msg, tc.wantMsg) {
				t.Errorf("message %q does not contain %q", pe.Msg, tc.wantMsg)
			}
			// apply rejects the same value the same way
			_, ferr := m.FromValues(tc.vals)
			if ferr == nil || !reflect.DeepEqual(ferr.Error(), err.Error()) {
				t.Errorf("FromValues: %v, want the same error as Validate", ferr)
			}
		})
	}
}
