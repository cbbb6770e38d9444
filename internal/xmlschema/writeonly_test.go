package xmlschema

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

const vncXML = `<domain type='qemu'><name>vm</name><memory unit='MiB'>64</memory>
  <devices><graphics type='vnc' autoport='yes'/></devices></domain>`

// vncAttr is the path of an attribute of the first graphics' vnc object.
func vncAttr(name string) *tftypes.AttributePath {
	return tftypes.NewAttributePath().WithAttributeName("graphics").WithElementKeyInt(0).WithAttributeName("vnc").WithAttributeName(name)
}

// setDevices returns vals with the attribute at p (under devices) set to v.
func setDevices(t *testing.T, vals map[string]tftypes.Value, p *tftypes.AttributePath, v tftypes.Value) map[string]tftypes.Value {
	t.Helper()
	devices, err := tftypes.Transform(vals["devices"], func(at *tftypes.AttributePath, cur tftypes.Value) (tftypes.Value, error) {
		if at.Equal(p) {
			return v, nil
		}
		return cur, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]tftypes.Value{}
	for k, x := range vals {
		out[k] = x
	}
	out["devices"] = devices
	return out
}

// getDevices returns the attribute at p under devices.
func getDevices(t *testing.T, vals map[string]tftypes.Value, p *tftypes.AttributePath) tftypes.Value {
	t.Helper()
	got, _, err := tftypes.WalkAttributePath(vals["devices"], p)
	if err != nil {
		t.Fatal(err)
	}
	return got.(tftypes.Value)
}

// TestWriteOnlyTwins: the domain policy gives the VNC and SPICE passwords a
// write-only twin and a version; the twin is nulled for plans, reaches the
// document (passwd) at create and at update only when its version changed,
// and a changed version is reported.
func TestWriteOnlyTwins(t *testing.T) {
	m := Domain()
	paths := m.WriteOnlyPaths()
	for _, want := range [][]string{{"devices", "graphics", "vnc", "passwd_wo"}, {"devices", "graphics", "spice", "passwd_wo"}} {
		if !slices.ContainsFunc(paths, func(p []string) bool { return slices.Equal(p, want) }) {
			t.Errorf("WriteOnlyPaths %v lacks %v", paths, want)
		}
	}
	prior := domainValues(t, vncXML)
	prior = setDevices(t, prior, vncAttr("passwd_wo_version"), tftypes.NewValue(tftypes.Number, 1))
	config := setDevices(t, prior, vncAttr("passwd_wo"), tftypes.NewValue(tftypes.String, "s3cret"))

	nulled, changed := m.NullWriteOnly(config)
	if !changed || !getDevices(t, nulled, vncAttr("passwd_wo")).IsNull() || !getDevices(t, config, vncAttr("passwd_wo")).Equal(tftypes.NewValue(tftypes.String, "s3cret")) {
		t.Fatalf("NullWriteOnly: changed %v, twin %v (the input must stay as it was)", changed, getDevices(t, nulled, vncAttr("passwd_wo")))
	}
	if _, changed := m.NullWriteOnly(prior); changed {
		t.Error("NullWriteOnly changed values without a write-only value")
	}

	passwd := func(vals map[string]tftypes.Value) string {
		doc, err := m.FromValues(vals)
		if err != nil {
			t.Fatal(err)
		}
		return doc.Devices.Graphics[0].VNC.Passwd
	}
	if got := passwd(m.WithWriteOnly(nulled, config, nil)); got != "s3cret" {
		t.Errorf("create: the document's passwd is %q, want the write-only value", got)
	}
	if got := passwd(m.WithWriteOnly(nulled, config, prior)); got != "" {
		t.Errorf("update with the same version: passwd %q written, want none", got)
	}
	if m.WriteOnlyVersionsChanged(nulled, prior) {
		t.Error("the same version reported as changed")
	}
	bumped := setDevices(t, config, vncAttr("passwd_wo_version"), tftypes.NewValue(tftypes.Number, 2))
	bumpedPlan, _ := m.NullWriteOnly(bumped)
	if got := passwd(m.WithWriteOnly(bumpedPlan, bumped, prior)); got != "s3cret" {
		t.Errorf("update with a new version: passwd %q, want the write-only value", got)
	}
	if !m.WriteOnlyVersionsChanged(bumpedPlan, prior) {
		t.Error("a new version not reported as changed")
	}
	if err := m.Validate(setDevices(t, config, vncAttr("passwd"), tftypes.NewValue(tftypes.String, "plain"))); err == nil ||
		err.Error() != "devices.graphics[0].vnc.passwd_wo: set one of passwd (stored in state) or passwd_wo (write-only, never stored), not both" {
		t.Errorf("Validate of passwd beside passwd_wo: %v", err)
	}
}
