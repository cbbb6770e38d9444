package xmlschema

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"libvirt.org/go/libvirtxml"
)

// FuzzDomainRoundTrip feeds arbitrary XML through libvirtxml and the engine:
// the engine must never panic, and whatever libvirtxml reads must come back
// from XML -> value -> XML exactly as libvirtxml itself writes it.
// Without -fuzz it runs over the corpus domain documents as seeds.
func FuzzDomainRoundTrip(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "domain", "*.xml"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`<domain type="qemu"><name>x</name><devices><interface><source network="n"/></interface></devices></domain>`))
	m := Domain()
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc libvirtxml.Domain
		if err := doc.Unmarshal(string(data)); err != nil {
			return // not a document libvirtxml reads: nothing to convert
		}
		direct, err := withoutSkipped(doc).Marshal()
		if err != nil {
			return // libvirtxml cannot write what it read (invalid choice values)
		}
		back, err := m.FromValues(m.ToValues(&doc))
		if err != nil {
			// a conversion error is acceptable only as a clear path error
			if _, ok := err.(*PathError); !ok {
				t.Fatalf("conversion error without an attribute path: %v", err)
			}
			return
		}
		out, err := back.Marshal()
		if err != nil {
			t.Fatalf("libvirtxml marshalled the input but not the engine's document: %v", err)
		}
		if canonical(t, []byte(direct)) != canonical(t, []byte(withoutDefaultTypes(t, []byte(direct), []byte(out)))) {
			t.Fatalf("engine round trip differs from libvirtxml's own\nlibvirtxml: %s\n    engine: %s", canonical(t, []byte(direct)), canonical(t, []byte(out)))
		}
	})
}

// withoutSkipped clears what DomainPolicy.Skip and the depth rule leave out
// of the tree, so the comparison is with what the engine is meant to carry.
func withoutSkipped(doc libvirtxml.Domain) *libvirtxml.Domain {
	if len(DomainPolicy.Skip) != 1 {
		panic("DomainPolicy.Skip changed: update withoutSkipped")
	}
	doc.ID = nil
	// a backing chain (of a disk, or of its block-copy mirror) stops after
	// its first element
	firstOnly := func(bs *libvirtxml.DomainDiskBackingStore) *libvirtxml.DomainDiskBackingStore {
		if bs == nil || bs.BackingStore == nil {
			return bs
		}
		c := *bs
		c.BackingStore = nil
		return &c
	}
	if doc.Devices != nil {
		devs := *doc.Devices
		devs.Disks = append([]libvirtxml.DomainDisk(nil), devs.Disks...)
		for i := range devs.Disks {
			d := &devs.Disks[i]
			d.BackingStore = firstOnly(d.BackingStore)
			if d.Mirror != nil {
				m := *d.Mirror
				m.BackingStore = firstOnly(m.BackingStore)
				d.Mirror = &m
			}
		}
		doc.Devices = &devs
	}
	return &doc
}

// withoutDefaultTypes removes from out the type attributes that the element at
// the same place in ref does not have: the engine fills a choice's default
// member when the XML names none (doc.go; libvirt reads the missing type as
// that same default), which is the one intended difference from libvirtxml.
// Elements are matched by position among their parent's children.
func withoutDefaultTypes(t *testing.T, ref, out []byte) string {
	t.Helper()
	type elem struct {
		start    xml.StartElement
		text     string
		children []*elem
	}
	parse := func(data []byte) *elem {
		dec := xml.NewDecoder(bytes.NewReader(data))
		var stack []*elem
		var root *elem
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				e := &elem{start: tok.Copy()}
				if len(stack) > 0 {
					p := stack[len(stack)-1]
					p.children = append(p.children, e)
				} else {
					root = e
				}
				stack = append(stack, e)
			case xml.EndElement:
				stack = stack[:len(stack)-1]
			case xml.CharData:
				if len(stack) > 0 {
					stack[len(stack)-1].text += string(tok)
				}
			}
		}
		return root
	}
	hasType := func(e *elem) bool {
		for _, a := range e.start.Attr {
			if a.Name.Local == "type" {
				return true
			}
		}
		return false
	}
	var strip func(r, o *elem)
	strip = func(r, o *elem) {
		if r == nil || o == nil || r.start.Name != o.start.Name {
			return
		}
		if !hasType(r) && hasType(o) {
			var kept []xml.Attr
			for _, a := range o.start.Attr {
				if a.Name.Local != "type" {
					kept = append(kept, a)
				}
			}
			o.start.Attr = kept
		}
		for i := range o.children {
			if i < len(r.children) {
				strip(r.children[i], o.children[i])
			}
		}
	}
	ro, oo := parse(ref), parse(out)
	strip(ro, oo)
	var buf bytes.Buffer
	enc := xml.NewEncoder(&buf)
	var write func(e *elem)
	write = func(e *elem) {
		_ = enc.EncodeToken(e.start)
		if e.text != "" {
			_ = enc.EncodeToken(xml.CharData(e.text))
		}
		for _, c := range e.children {
			write(c)
		}
		_ = enc.EncodeToken(e.start.End())
	}
	if oo != nil {
		write(oo)
	}
	_ = enc.Flush()
	return buf.String()
}
