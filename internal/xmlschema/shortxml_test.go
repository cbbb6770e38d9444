package xmlschema

import "testing"

func TestShortXML(t *testing.T) {
	cases := map[string][2]string{
		"<domain><devices><disk><target dev=...>": {"<target dev>", ""},
		"<domain><memory> (text)":                 {"<memory>", "text"},
		"<domain><devices><disk>":                 {"<disk>", ""},
		"<domain><metadata> (inner XML)":          {"<metadata>", "inner XML"},
		"<domain><devices><graphics type='vnc'>":  {"<graphics type='vnc'>", ""},
	}
	for in, want := range cases {
		if tag, marker := shortXML(in); tag != want[0] || marker != want[1] {
			t.Errorf("shortXML(%q) = %q, %q; want %q, %q", in, tag, marker, want[0], want[1])
		}
	}
}
