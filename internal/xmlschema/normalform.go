package xmlschema

import (
	"encoding/xml"
	"errors"
	"io"
	"math/big"
	"net/netip"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Normal forms: libvirt parses many values and writes back its own spelling
// of what it parsed (a pool target path without its trailing slash, a MAC in
// lower case, a PCI slot in two hex digits, an IPv6 address compressed). The
// user's spelling means the same, so state keeps it (Reconcile) and a plan
// against libvirt's spelling, as read after an import, is empty (PlanUpdate).
// sameMeaning is the one comparison both use; spellings is its table.

// spelling is one way libvirt 9.0 rewrites a value without changing what it
// means (docs/adr/0001-xml-tree-schema-engine.md, "Normal forms", lists
// what was measured for each).
type spelling struct {
	kind string
	// where limits the row to attributes whose XML path contains one of
	// these; none: any string attribute, recognised by the form of both
	// values, because a value of another kind never has that form on both
	// sides
	where []string
	// same reports whether a and b are two spellings of one value of this
	// kind; it is symmetric, as either side may be libvirt's
	same func(a, b string) bool
}

var spellings = []spelling{
	// only where libvirt sanitises (virFileSanitizePath): elsewhere it keeps
	// a path as written, and a path-like name (an HTTP disk's) may differ
	{kind: "path", where: []string{"<pool><target><path>", "<pool><source><dir path=", "<acceleration rendernode="}, same: samePath},
	{kind: "mac address", same: sameMAC},
	{kind: "uuid", same: sameUUID},
	{kind: "integer", same: sameInteger},
	{kind: "ipv6 address", same: sameIPv6},
	{kind: "interface model", where: []string{"<interface><model type="}, same: strings.EqualFold},
	{kind: "iscsi lun", where: []string{"<disk><source name="}, same: sameISCSITarget},
	{kind: "inner xml", where: []string{"(inner XML)"}, same: sameXML},
}

// leftOut is what libvirt 9.0 does not write back because it is its
// default: the value means the same as no value. State keeps the user's
// value when libvirt reports none (Reconcile). After an import the state
// has none, and the plan sets the value once: tofu accepts a planned value
// other than the configured one only in place of a prior value.
var leftOut = []struct{ where, value string }{
	{"<network ipv6=", "no"},
	{"<pool><target><permissions><owner>", "-1"},
	{"<pool><target><permissions><group>", "-1"},
}

// leftOutByLibvirt reports whether v is a value libvirt leaves out of this
// attribute because it means the default.
func (n *node) leftOutByLibvirt(v tftypes.Value) bool {
	var s string
	if v.IsNull() || !v.IsKnown() || !v.Type().Is(tftypes.String) || v.As(&s) != nil {
		return false
	}
	for _, l := range leftOut {
		if strings.Contains(n.xmlPath, l.where) && s == l.value {
			return true
		}
	}
	return false
}

// sameMeaning reports whether two known, non-null values of this attribute
// mean the same to libvirt: equal, equal numbers, two spellings of one
// value (spellings), a machine alias and its expansion (sameMachine), or
// the yes/no word and true (sameWord). A quantity in another unit involves
// two attributes and is sameQuantity's, beside it in Reconcile and
// PlanUpdate.
func (n *node) sameMeaning(a, b tftypes.Value) bool {
	if a.Equal(b) {
		return true
	}
	if a.Type().Is(tftypes.Number) {
		var x, y big.Float
		if a.As(&x) != nil || b.As(&y) != nil {
			return false
		}
		return x.Cmp(&y) == 0
	}
	var x, y string
	if a.As(&x) != nil || b.As(&y) != nil {
		return false
	}
	return n.sameSpelling(x, y) || n.sameMachine(a, b) || n.sameWord(a, b)
}

// sameSpelling reports whether some row of spellings that applies to this
// attribute takes x and y for one value.
func (n *node) sameSpelling(x, y string) bool {
	if x == y {
		return true
	}
	for _, s := range spellings {
		if s.appliesTo(n) && s.same(x, y) {
			return true
		}
	}
	return false
}

func (s spelling) appliesTo(n *node) bool {
	if len(s.where) == 0 {
		return true
	}
	for _, w := range s.where {
		if strings.Contains(n.xmlPath, w) {
			return true
		}
	}
	return false
}

// samePath: libvirt sanitises the paths of storage pools (target path,
// source dir) and a video accelerator's render node: repeated slashes
// become one, a trailing slash goes, three or more leading slashes become
// one while exactly two stay (POSIX gives "//" its own meaning). "." and
// ".." are kept, so they are not folded here.
func samePath(a, b string) bool {
	if !strings.HasPrefix(a, "/") || !strings.HasPrefix(b, "/") {
		return false
	}
	return sanitizePath(a) == sanitizePath(b)
}

func sanitizePath(p string) string {
	lead := "/"
	if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
		lead = "//"
	}
	var parts []string
	for _, part := range strings.Split(p, "/") {
		if part != "" {
			parts = append(parts, part)
		}
	}
	return lead + strings.Join(parts, "/")
}

// sameMAC: libvirt writes MAC addresses in lower case with two digits per
// byte and without surrounding blanks.
func sameMAC(a, b string) bool {
	x, ok1 := parseMAC(a)
	y, ok2 := parseMAC(b)
	return ok1 && ok2 && x == y
}

func parseMAC(s string) ([6]byte, bool) {
	var mac [6]byte
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 6 {
		return mac, false
	}
	for i, p := range parts {
		if len(p) < 1 || len(p) > 2 {
			return mac, false
		}
		v, err := strconv.ParseUint(p, 16, 8)
		if err != nil {
			return mac, false
		}
		mac[i] = byte(v)
	}
	return mac, true
}

// sameUUID: libvirt writes UUIDs in lower case in the 8-4-4-4-12 form; it
// reads them in either case, with or without dashes, blanks around.
func sameUUID(a, b string) bool {
	x, ok1 := uuidDigits(a)
	y, ok2 := uuidDigits(b)
	return ok1 && ok2 && x == y
}

func uuidDigits(s string) (string, bool) {
	d := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "-", ""))
	if len(d) != 32 || strings.Trim(d, "0123456789abcdef") != "" {
		return "", false
	}
	return d, true
}

// sameInteger: libvirt writes integers without a plus sign or leading
// zeros, and PCI, CCW and similar addresses in hex ("0x07"). Where it writes
// hex it read the value as C does (a leading 0 is octal: slot "010" is
// 0x08), elsewhere as decimal ("010" is 10).
func sameInteger(a, b string) bool {
	base := 10
	if isHex(a) || isHex(b) {
		base = 0
	}
	x, ok1 := parseInteger(a, base)
	y, ok2 := parseInteger(b, base)
	return ok1 && ok2 && x.Cmp(y) == 0
}

func isHex(s string) bool { return strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") }

func parseInteger(s string, base int) (*big.Int, bool) {
	neg := false
	switch {
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	case strings.HasPrefix(s, "-"):
		s, neg = s[1:], true
	}
	if s == "" {
		return nil, false
	}
	switch {
	case base == 0 && isHex(s):
		s, base = s[2:], 16
	case base == 0 && len(s) > 1 && s[0] == '0':
		s, base = s[1:], 8
	case base == 0:
		base = 10
	}
	v, ok := new(big.Int).SetString(s, base)
	if !ok || strings.ContainsAny(s, "+-_") {
		return nil, false
	}
	if neg {
		v.Neg(v)
	}
	return v, true
}

// sameIPv6: libvirt writes IPv6 addresses compressed and in lower case
// (RFC 5952).
func sameIPv6(a, b string) bool {
	if !strings.Contains(a, ":") || !strings.Contains(b, ":") {
		return false
	}
	x, err1 := netip.ParseAddr(a)
	y, err2 := netip.ParseAddr(b)
	return err1 == nil && err2 == nil && x.Is6() && x == y
}

// sameISCSITarget: an iSCSI disk source names "target/lun"; libvirt adds
// LUN 0 when the user leaves it out.
func sameISCSITarget(a, b string) bool {
	short, long := a, b
	if len(short) > len(long) {
		short, long = long, short
	}
	return short != "" && !strings.Contains(short, "/") && long == short+"/0"
}

// sameXML: libvirt re-indents the XML of <metadata>; text that is only
// blanks between elements carries nothing, everything else must match.
func sameXML(a, b string) bool {
	x, ok1 := xmlTokens(a)
	y, ok2 := xmlTokens(b)
	if !ok1 || !ok2 || len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// xmlTokens renders the tokens of s that carry meaning, one string each.
func xmlTokens(s string) ([]string, bool) {
	d := xml.NewDecoder(strings.NewReader(s))
	var out []string
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			return out, true
		}
		if err != nil {
			return nil, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			e := "<" + t.Name.Space + ":" + t.Name.Local
			for _, a := range t.Attr {
				e += " " + a.Name.Space + ":" + a.Name.Local + "=" + a.Value
			}
			out = append(out, e)
		case xml.EndElement:
			out = append(out, "</"+t.Name.Space+":"+t.Name.Local)
		case xml.CharData:
			if strings.TrimSpace(string(t)) != "" {
				out = append(out, "text:"+string(t))
			}
		case xml.Comment:
			out = append(out, "comment:"+string(t))
		case xml.ProcInst:
			out = append(out, "pi:"+t.Target+" "+string(t.Inst))
		}
	}
}
