package xmlschema

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// stateJSON renders a value the way tofu stores state: null, strings, numbers,
// arrays and objects. tftypes reads JSON state (ValueFromJSON) but has no
// writer, so the test carries this small one.
func stateJSON(v tftypes.Value) any {
	if v.IsNull() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Is(tftypes.Number):
		var f big.Float
		_ = v.As(&f)
		return json.Number(f.Text('f', -1))
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case v.Type().Is(tftypes.List{}):
		var l []tftypes.Value
		_ = v.As(&l)
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = stateJSON(e)
		}
		return out
	default:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = stateJSON(e)
		}
		return out
	}
}

// stateRoundTrip checks value -> wire -> value for one document: the document
// converted to values, carried as the protocol carries it (msgpack
// DynamicValue) and as tofu stores it (JSON state), must convert back to the
// same XML as the values that never left memory.
func stateRoundTrip[T any](t *testing.T, m *Model[T], name string, data []byte) bool {
	t.Helper()
	doc := new(T)
	if err := any(doc).(corpusDoc).Unmarshal(string(data)); err != nil {
		t.Logf("%s: libvirtxml cannot read it (%v): not part of the state round trip", name, err)
		return false
	}
	vals := m.ToValues(doc)
	direct, err := m.FromValues(vals)
	if err != nil {
		t.Errorf("%s: FromValues: %v", name, err)
		return false
	}
	want, err := any(direct).(corpusDoc).Marshal()
	if err != nil {
		t.Errorf("%s: marshal: %v", name, err)
		return false
	}
	obj := m.ToObject(doc)
	ty := m.root.tfType

	dv, err := tfprotov6.NewDynamicValue(ty, obj)
	if err != nil {
		t.Errorf("%s: msgpack encode: %v", name, err)
		return false
	}
	fromMsgpack, err := dv.Unmarshal(ty)
	if err != nil {
		t.Errorf("%s: msgpack decode: %v", name, err)
		return false
	}
	js, err := json.Marshal(stateJSON(obj))
	if err != nil {
		t.Errorf("%s: json encode: %v", name, err)
		return false
	}
	fromJSON, err := (&tfprotov6.DynamicValue{JSON: js}).Unmarshal(ty)
	if err != nil {
		t.Errorf("%s: json state decode: %v", name, err)
		return false
	}
	ok := true
	for wire, v := range map[string]tftypes.Value{"msgpack": fromMsgpack, "json": fromJSON} {
		if !v.Equal(obj) {
			t.Errorf("%s: %s: decoded value differs from the encoded one", name, wire)
			ok = false
			continue
		}
		var attrs map[string]tftypes.Value
		if err := v.As(&attrs); err != nil {
			t.Errorf("%s: %s: %v", name, wire, err)
			ok = false
			continue
		}
		back, err := m.FromValues(attrs)
		if err != nil {
			t.Errorf("%s: %s: FromValues: %v", name, wire, err)
			ok = false
			continue
		}
		got, err := any(back).(corpusDoc).Marshal()
		if err != nil {
			t.Errorf("%s: %s: marshal: %v", name, wire, err)
			ok = false
			continue
		}
		if canonical(t, []byte(got)) != canonical(t, []byte(want)) {
			t.Errorf("%s: %s: XML after the wire differs\nwant: %s\n got: %s", name, wire, canonical(t, []byte(want)), canonical(t, []byte(got)))
			ok = false
		}
	}
	return ok
}

func runStateCorpus[T any](t *testing.T, dir string, m *Model[T]) (pass, total int) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, dir, "*.xml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		total++
		if stateRoundTrip(t, m, dir+"/"+filepath.Base(f), data) {
			pass++
		}
	}
	return pass, total
}

func TestCorpusStateRoundTrip(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("corpus folder %s is absent: state round trip not run", corpusDir)
	}
	var pass, total int
	for _, r := range []struct {
		dir string
		run func() (int, int)
	}{
		{"domain", func() (int, int) { return runStateCorpus(t, "domain", Domain()) }},
		{"network", func() (int, int) { return runStateCorpus(t, "network", Network()) }},
		{"pool", func() (int, int) { return runStateCorpus(t, "pool", StoragePool()) }},
		{"volume", func() (int, int) { return runStateCorpus(t, "volume", StorageVolume()) }},
	} {
		p, n := r.run()
		t.Logf("%s: %d of %d documents equal after value -> msgpack/JSON state -> value", r.dir, p, n)
		pass += p
		total += n
	}
	t.Logf("state round trip: %d of %d corpus documents", pass, total)
	if total == 0 {
		t.Fatal("no corpus documents found")
	}
	if pass != total {
		t.Errorf("%d documents did not survive the state round trip", total-pass)
	}
}
