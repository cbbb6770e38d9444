package xmlschema

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"
)

// normalFormCases holds, for every row of spellings, what libvirt 9.0 was
// seen to write for what the user wrote (same: state keeps the user's
// spelling), and real differences that must stay differences. The pairs
// come from probing libvirtd (docs/adr/0001-xml-tree-schema-engine.md,
// "Normal forms").
var normalFormCases = map[string]struct {
	xmlPath string // the attribute the pairs are compared on
	same    [][2]string
	differ  [][2]string
}{
	"path": {
		xmlPath: "<pool><target><path>",
		same: [][2]string{
			{"/srv/lab-pool/", "/srv/lab-pool"},
			{"/var//lib/nf-pool", "/var/lib/nf-pool"},
			{"///var/////lib/libvirt/images//", "/var/lib/libvirt/images"},
			{"/export/nf/", "/export/nf"},
		},
		differ: [][2]string{
			{"/srv/lab-pool", "/srv/lab-pool2"},
			{"//var/lib/nf-pool", "/var/lib/nf-pool"}, // two leading slashes are kept: POSIX lets them mean something else
			{"/var/lib/../lib/nf-pool", "/var/lib/nf-pool"},
			{"/var/lib/./nf-pool", "/var/lib/nf-pool"},
			{"lab-pool/", "lab-pool"}, // not a path libvirt sanitises
			{"/", ""},
		},
	},
	"mac address": {
		xmlPath: "<network><mac address=...>",
		same: [][2]string{
			{"52:54:00:AA:BB:CC", "52:54:00:aa:bb:cc"},
			{"12:34:56:78:9A:BC", "12:34:56:78:9a:bc"},
			{"52:54:0:aa:bb:cc", "52:54:00:aa:bb:cc"},
			{"52:54:00:aa:bb:cc ", "52:54:00:aa:bb:cc"},
		},
		differ: [][2]string{
			{"52:54:00:aa:bb:cc", "52:54:00:aa:bb:cd"},
			{"52-54-00-aa-bb-cc", "52:54:00:aa:bb:cc"}, // libvirt rejects dashes
			{"52:54:00:aa:bb", "52:54:00:aa:bb:00"},
		},
	},
	"uuid": {
		xmlPath: "<domain><uuid>",
		same: [][2]string{
			{"AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"},
			{"aaaaaaaabbbbccccddddeeeeeeeeeeee", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"},
			{" aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee ", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"},
		},
		differ: [][2]string{
			{"aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeef"},
			{"{aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee}", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"}, // libvirt rejects braces
		},
	},
	"integer": {
		xmlPath: "<domain><devices><disk><address slot=...>",
		same: [][2]string{
			{"0x7", "0x07"},
			{"7", "0x07"},
			{"0X07", "0x07"},
			{"007", "0x07"},
			{"010", "0x08"}, // read as C reads it: octal
			{"0", "0x0000"},
			{"0x0", "0x00"},
			{"0x010", "0x10"},
			{"065536", "65536"},
			{"+65536", "65536"},
			{"010", "10"}, // libvirt writes decimal: it read decimal
			{"755", "0755"},
			{"00755", "0755"},
			{"+0", "0"},
		},
		differ: [][2]string{
			{"010", "0x0a"},
			{"0x07", "0x08"},
			{"420", "0644"},
			{"1", "-1"},
			{"0x", "0"},
			{"1_000", "1000"},
		},
	},
	"ipv6 address": {
		xmlPath: "<network><ip address=...>",
		same: [][2]string{
			{"fd00:250:0:0:0:0:0:1", "fd00:250::1"},
			{"FD00:250::1", "fd00:250::1"},
			{"fd00:0250::1", "fd00:250::1"},
		},
		differ: [][2]string{
			{"fd00:250::1", "fd00:250::2"},
			{"::ffff:192.168.250.1", "192.168.250.1"},
		},
	},
	"interface model": {
		xmlPath: "<domain><devices><interface><model type=...>",
		same: [][2]string{
			{"VIRTIO", "virtio"},
			{"Virtio", "virtio"},
		},
		differ: [][2]string{
			{"virtio", "e1000"},
		},
	},
	"iscsi lun": {
		xmlPath: "<domain><devices><disk><source name=...>",
		same: [][2]string{
			{"iqn.1992-01.com.example", "iqn.1992-01.com.example/0"},
		},
		differ: [][2]string{
			{"iqn.1992-01.com.example/1", "iqn.1992-01.com.example/0"},
			{"iqn.1992-01.com.example", "iqn.1992-01.com.example/1"},
			{"pool/image", "pool/image/0"},
		},
	},
	"inner xml": {
		xmlPath: "<domain><metadata> (inner XML)",
		same: [][2]string{
			{"\n      <app1:foo xmlns:app1=\"http://foo.org/\">fooish</app1:foo>\n  <app2:bar xmlns:app2=\"http://bar.com/\" maman=\"baz\">barish</app2:bar>\n  ",
				"\n    <app1:foo xmlns:app1=\"http://foo.org/\">fooish</app1:foo>\n    <app2:bar xmlns:app2=\"http://bar.com/\" maman=\"baz\">barish</app2:bar>\n  "},
			{`<app2:bar xmlns:app2="http://bar.com/"><x>barish</x></app2:bar>`,
				"\n    <app2:bar xmlns:app2=\"http://bar.com/\">\n      <x>barish</x>\n    </app2:bar>\n  "},
		},
		differ: [][2]string{
			{`<a:x xmlns:a="urn:a">one</a:x>`, `<a:x xmlns:a="urn:a">two</a:x>`},
			{`<a:x xmlns:a="urn:a">one</a:x>`, `<a:x xmlns:a="urn:a"> one</a:x>`}, // text is text
			{`<a:x xmlns:a="urn:a" k="1"/>`, `<a:x xmlns:a="urn:a" k="2"/>`},
			{`<a:x xmlns:a="urn:a">`, `<a:x xmlns:a="urn:a"></a:x>`},
		},
	},
}

// Every row of the table is tested both ways round: libvirt's spelling of
// what the user wrote is the same value, a real difference is not.
func TestNormalForms(t *testing.T) {
	for _, row := range spellings {
		c, ok := normalFormCases[row.kind]
		if !ok {
			t.Errorf("row %q of spellings has no test cases", row.kind)
			continue
		}
		if len(c.same) == 0 || len(c.differ) == 0 {
			t.Errorf("row %q needs both same and different pairs", row.kind)
		}
		n := &node{xmlPath: c.xmlPath, kind: kindString}
		for _, p := range c.same {
			for _, ab := range [][2]string{p, {p[1], p[0]}} {
				if !n.sameSpelling(ab[0], ab[1]) {
					t.Errorf("%s: %q and %q should be one value", row.kind, ab[0], ab[1])
				}
			}
		}
		for _, p := range c.differ {
			for _, ab := range [][2]string{p, {p[1], p[0]}} {
				if n.sameSpelling(ab[0], ab[1]) {
					t.Errorf("%s: %q and %q should differ", row.kind, ab[0], ab[1])
				}
			}
		}
	}
	if len(normalFormCases) != len(spellings) {
		t.Errorf("%d case groups for %d rows: a group names no row", len(normalFormCases), len(spellings))
	}
}

// A row limited to some attributes applies nowhere else: names and disk
// buses are case-sensitive, only an iSCSI source gets a LUN added, and only
// pool paths and render nodes are sanitised.
func TestNormalFormsStayWhereTheyBelong(t *testing.T) {
	for _, c := range []struct{ xmlPath, a, b string }{
		{"<domain><devices><disk><target bus=...>", "VIRTIO", "virtio"},
		{"<domain><devices><disk><target bus=...>", "iqn.1992-01.com.example", "iqn.1992-01.com.example/0"},
		{"<domain><name>", "Web", "web"},
		// libvirt keeps these paths as written; an HTTP disk's name is a URL path
		{"<domain><devices><disk><source file=...>", "/var/lib/a.img/", "/var/lib/a.img"},
		{"<domain><devices><disk><source name=...>", "/images//a.iso", "/images/a.iso"},
	} {
		n := &node{xmlPath: c.xmlPath, kind: kindString}
		if n.sameSpelling(c.a, c.b) {
			t.Errorf("%q and %q taken as one value on %s", c.a, c.b, c.xmlPath)
		}
	}
	// the path row covers every place libvirt sanitises
	for _, xmlPath := range []string{"<pool><target><path>", "<pool><source><dir path=...>", "<domain><devices><video><model><acceleration rendernode=...>"} {
		n := &node{xmlPath: xmlPath, kind: kindString}
		if !n.sameSpelling("/srv//x/", "/srv/x") {
			t.Errorf("path not sanitised on %s", xmlPath)
		}
	}
}

// Every row of leftOut: libvirt writing nothing keeps the user's default in
// state; another value, or the same value elsewhere, is drift.
func TestLeftOutDefaults(t *testing.T) {
	for _, c := range []struct {
		xmlPath, value string
		want           bool
	}{
		{"<network ipv6=...>", "no", true},
		{"<network ipv6=...>", "yes", false},
		{"<network><forward><nat ipv6=...>", "no", false}, // libvirt writes that one
		{"<pool><target><permissions><owner>", "-1", true},
		{"<pool><target><permissions><group>", "-1", true},
		{"<pool><target><permissions><owner>", "107", false},
		{"<volume><target><permissions><owner>", "-1", false}, // libvirt writes the file's owner
	} {
		n := &node{xmlPath: c.xmlPath, kind: kindString}
		prior := tftypes.NewValue(tftypes.String, c.value)
		got := n.reconcile(prior, tftypes.NewValue(tftypes.String, nil))
		if kept := got.Equal(prior); kept != c.want {
			t.Errorf("%s %q against nothing from libvirt: kept %t, want %t", c.xmlPath, c.value, kept, c.want)
		}
	}
	for _, l := range leftOut {
		n := &node{xmlPath: l.where + "...>", kind: kindString}
		if !n.leftOutByLibvirt(tftypes.NewValue(tftypes.String, l.value)) {
			t.Errorf("row %s %q does not apply to its own attribute", l.where, l.value)
		}
	}
}

// Through the engine: after an apply the state keeps what the user wrote
// when libvirt reports its own spelling (no "inconsistent result"), a real
// change is drift; after an import (state holds libvirt's spelling) the plan
// for a configuration in the user's spelling changes nothing.
func TestNormalFormsReconcileAndPlan(t *testing.T) {
	pool := StoragePool()
	poolDoc := func(path string) map[string]tftypes.Value {
		return pool.ToValues(&libvirtxml.StoragePool{Type: "dir", Name: "nf-pool", Target: &libvirtxml.StoragePoolTarget{Path: path}})
	}
	targetPath := func(v map[string]tftypes.Value) string {
		var target map[string]tftypes.Value
		_ = v["target"].As(&target)
		var s string
		_ = target["path"].As(&s)
		return s
	}
	for _, c := range []struct{ user, libvirt, state string }{
		{"/srv/lab-pool/", "/srv/lab-pool", "/srv/lab-pool/"},
		{"/srv//lab-pool", "/srv/lab-pool", "/srv//lab-pool"},
		{"/srv/lab-pool/", "/srv/other-pool", "/srv/other-pool"}, // drift
	} {
		if got := targetPath(pool.Reconcile(poolDoc(c.user), poolDoc(c.libvirt))); got != c.state {
			t.Errorf("pool path %q read back as %q: state %q, want %q", c.user, c.libvirt, got, c.state)
		}
		imported := poolDoc(c.libvirt)
		planned, _ := pool.PlanUpdate(poolDoc(c.user), imported, nil, false)
		wantPlan := c.libvirt // no change: the imported value stays
		if c.state != c.user {
			wantPlan = c.user
		}
		if got := targetPath(planned); got != wantPlan {
			t.Errorf("pool path %q against imported %q: planned %q, want %q", c.user, c.libvirt, got, wantPlan)
		}
	}

	// a domain: an upper-case MAC and interface model, as the user wrote
	// them, against libvirt's spelling of the same
	dom := Domain()
	libvirt := dom.ToValues(&libvirtxml.Domain{Type: "qemu", Name: "nf-dom", Devices: &libvirtxml.DomainDeviceList{
		Interfaces: []libvirtxml.DomainInterface{{
			MAC:    &libvirtxml.DomainInterfaceMAC{Address: "52:54:00:aa:bb:cc"},
			Source: &libvirtxml.DomainInterfaceSource{Network: &libvirtxml.DomainInterfaceSourceNetwork{Network: "default"}},
			Model:  &libvirtxml.DomainInterfaceModel{Type: "virtio"},
		}},
	}})
	macPath, modelPath := leafPath(t, libvirt["devices"], "52:54:00:aa:bb:cc"), leafPath(t, libvirt["devices"], "virtio")
	spelled := func(mac, model string) map[string]tftypes.Value {
		v := replaceAt(t, libvirt, "devices", macPath, func(tftypes.Value) tftypes.Value { return tftypes.NewValue(tftypes.String, mac) })
		return replaceAt(t, v, "devices", modelPath, func(tftypes.Value) tftypes.Value { return tftypes.NewValue(tftypes.String, model) })
	}
	show := func(v map[string]tftypes.Value) string { // the two leaves, for messages
		return leafAt(v["devices"], macPath) + " " + leafAt(v["devices"], modelPath)
	}
	user := spelled("52:54:00:AA:BB:CC", "VIRTIO")
	if got := dom.Reconcile(user, libvirt); !got["devices"].Equal(user["devices"]) {
		t.Errorf("MAC and model read back in libvirt's spelling: state %s, want the user's %s", show(got), show(user))
	}
	if planned, _ := dom.PlanUpdate(user, libvirt, nil, false); !planned["devices"].Equal(libvirt["devices"]) {
		t.Errorf("imported MAC and model against the user's spelling: planned %s, want the imported %s", show(planned), show(libvirt))
	}
	// another MAC and model: drift, and a plan that changes them
	other := spelled("52:54:00:AA:BB:CD", "E1000")
	if got := dom.Reconcile(other, libvirt); !got["devices"].Equal(libvirt["devices"]) {
		t.Errorf("another MAC and model must show as drift: state %s, want libvirt's %s", show(got), show(libvirt))
	}
	if planned, _ := dom.PlanUpdate(other, libvirt, nil, false); !planned["devices"].Equal(other["devices"]) {
		t.Errorf("another MAC and model must be planned: planned %s, want %s", show(planned), show(other))
	}
}

// leafAt is the string at path below v, for messages.
func leafAt(v tftypes.Value, path *tftypes.AttributePath) string {
	x, _, err := tftypes.WalkAttributePath(v, path)
	if err != nil {
		return "(none)"
	}
	var s string
	if xv, ok := x.(tftypes.Value); !ok || xv.As(&s) != nil {
		return "(none)"
	}
	return s
}

// leafPath finds the path (below the top-level value v) of the string leaf
// holding want.
func leafPath(t *testing.T, v tftypes.Value, want string) *tftypes.AttributePath {
	t.Helper()
	var found *tftypes.AttributePath
	_ = tftypes.Walk(v, func(p *tftypes.AttributePath, x tftypes.Value) (bool, error) {
		var s string
		if found == nil && x.Type().Is(tftypes.String) && x.IsKnown() && !x.IsNull() && x.As(&s) == nil && s == want {
			found = p
		}
		return found == nil, nil
	})
	if found == nil {
		t.Fatalf("no leaf holds %q", want)
	}
	return found
}
