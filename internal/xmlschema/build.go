package xmlschema

import (
	"encoding/xml"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

var xmlNameType = reflect.TypeOf(xml.Name{})

var (
	marshalerAttrType   = reflect.TypeOf((*xml.MarshalerAttr)(nil)).Elem()
	unmarshalerAttrType = reflect.TypeOf((*xml.UnmarshalerAttr)(nil)).Elem()
)

// textAttrType reports whether t is a struct that writes and reads itself as
// one XML attribute value (libvirtxml's NWFilterField: "$VAR", "0x1f" or
// text): in the schema it is a string, converted by its own methods.
func textAttrType(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	pt := reflect.PointerTo(t)
	return pt.Implements(marshalerAttrType) && pt.Implements(unmarshalerAttrType)
}

type xmlTag struct {
	name      string
	attr      bool
	chardata  bool
	cdata     bool // the text is written as a CDATA section
	innerxml  bool
	omitEmpty bool
	skip      bool
	member    bool // a choice member marshalled by libvirtxml's own code
}

func parseTag(f reflect.StructField) xmlTag {
	tag, ok := f.Tag.Lookup("xml")
	if !ok {
		return xmlTag{name: f.Name}
	}
	if tag == "-" {
		// libvirtxml marks the members of a choice "-" and marshals them
		// itself; they are still part of the tree.
		if _, ok := structOf(f.Type); ok && f.Type.Kind() == reflect.Pointer {
			return xmlTag{name: f.Name, member: true}
		}
		// a few strings are marshalled by libvirtxml itself too (a UDP
		// character device's bind and connect hosts, a vhost-user
		// interface's dev): still values of the document
		if f.Type.Kind() == reflect.String {
			return xmlTag{name: strings.ToLower(f.Name), attr: true}
		}
		return xmlTag{skip: true}
	}
	parts := strings.Split(tag, ",")
	t := xmlTag{name: parts[0]}
	for _, p := range parts[1:] {
		switch p {
		case "attr":
			t.attr = true
		case "chardata", "cdata":
			t.chardata, t.cdata = true, p == "cdata"
		case "innerxml":
			t.innerxml = true
		case "omitempty":
			t.omitEmpty = true
		}
	}
	if t.name == "" {
		t.name = f.Name
	}
	if i := strings.LastIndex(t.name, ">"); i >= 0 {
		t.name = t.name[i+1:]
	}
	return t
}

type builder struct {
	policy   *Policy
	choices  map[reflect.Type]*choiceTemplate
	problems []string
}

// isLeafType reports whether t (after one pointer) is a string or integer.
func leafKind(t reflect.Type) (kind, bool) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return kindString, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return kindInt, true
	}
	return 0, false
}

func structOf(t reflect.Type) (reflect.Type, bool) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, t.Kind() == reflect.Struct && t != xmlNameType
}

// flattenable reports whether struct t is character data plus attributes, and
// returns the index of its character data field. Text written as a CDATA
// section (a disk's metadata_cache <max_size>) is not flattened: it stays an
// object of `value` and the attributes, as dmacvicar/libvirt 0.9 has it.
func flattenable(t reflect.Type) (int, bool) {
	chardata, cdata, ok := textAndAttributes(t)
	return chardata, ok && !cdata
}

// textAndAttributes reports whether struct t is character data plus
// attributes, returns the index of its character data field, and whether
// that is written as a CDATA section.
func textAndAttributes(t reflect.Type) (chardata int, cdata, ok bool) {
	chardata = -1
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Type == xmlNameType {
			continue
		}
		tag := parseTag(f)
		if tag.skip {
			continue
		}
		if _, ok := leafKind(f.Type); !ok {
			return -1, false, false
		}
		switch {
		case tag.chardata:
			chardata, cdata = i, tag.cdata
		case !tag.attr:
			return -1, false, false
		}
	}
	return chardata, cdata, chardata >= 0
}

// objectChildren builds the attributes of struct type t.
func (b *builder) objectChildren(t reflect.Type, tfPath, xmlPath string, ancestors []reflect.Type) []*node {
	var out []*node
	add := func(n *node) {
		out = append(out, n)
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Type == xmlNameType {
			continue
		}
		tag := parseTag(f)
		if tag.skip {
			continue
		}
		key := t.Name() + "." + f.Name
		if _, ok := b.policy.Skip[key]; ok {
			continue
		}
		if e, ok := b.policy.Element[key]; ok {
			tag.name = e
		}
		st := step{index: i, ptr: f.Type.Kind() == reflect.Pointer}
		if f.Anonymous {
			// an embedded struct's fields are the element's own, as
			// encoding/xml marshals them: its attributes join the parent's
			if et, ok := structOf(f.Type); ok && !inPath(ancestors, et) {
				for _, c := range b.objectChildren(et, tfPath, xmlPath, append(ancestors, et)) {
					c.steps = append([]step{st}, c.steps...)
					if c.legacyIn == "" {
						c.legacyIn = legacySnakeName(f.Name)
					}
					add(c)
				}
				continue
			}
		}
		// the name, and the names of schema versions 1 and 0 (UpgradeJSON)
		name, earlier, legacy := snakeName(f.Name), v1SnakeName(f.Name), legacySnakeName(f.Name)
		if r, ok := b.policy.Rename[key]; ok {
			name, earlier, legacy = r, r, r
		}
		childTF := joinPath(tfPath, name)

		if tag.attr && f.Type.Kind() == reflect.Struct && textAttrType(f.Type) {
			add(&node{name: name, legacy: legacy, earlier: earlier, xmlPath: strings.TrimSuffix(xmlPath, ">") + " " + tag.name + "=...>", kind: kindString,
				steps: []step{st}, goType: f.Type, omitEmpty: true, textAttr: tag.name})
			continue
		}
		if k, ok := leafKind(f.Type); ok {
			desc := xmlPath
			switch {
			case tag.attr:
				desc = strings.TrimSuffix(xmlPath, ">") + " " + tag.name + "=...>"
			case tag.chardata, tag.innerxml:
				desc = xmlPath + " (text)"
				if tag.innerxml {
					desc = xmlPath + " (inner XML)"
				}
			default:
				desc = xmlPath + "<" + tag.name + ">"
			}
			n := &node{name: name, legacy: legacy, earlier: earlier, xmlPath: desc, kind: k, steps: []step{st}, goType: f.Type, omitEmpty: tag.omitEmpty || f.Type.Kind() == reflect.String,
				text: tag.chardata}
			if tag.attr && yesNoAttributes[tag.name] && f.Type.Kind() == reflect.String {
				n.kind, n.yesNo = kindBool, true
			} else if tag.attr && k == kindString {
				n.words = grammarWords[b.policy.Root][lastElement(xmlPath)+"@"+tag.name]
			}
			add(n)
			continue
		}
		switch f.Type.Kind() {
		case reflect.Slice:
			et := f.Type.Elem()
			if et.Kind() == reflect.String {
				add(&node{name: name, legacy: legacy, earlier: earlier, xmlPath: xmlPath + "<" + tag.name + ">", kind: kindStringList, steps: []step{st}, goType: f.Type})
				continue
			}
			if st2, ok := structOf(et); ok && et.Kind() == reflect.Struct {
				if inPath(ancestors, st2) {
					continue
				}
				elemXML := xmlPath + "<" + tag.name + ">"
				n := &node{name: name, legacy: legacy, earlier: earlier, xmlPath: elemXML, kind: kindList, steps: []step{st}, goType: st2}
				n.children = b.objectChildren(st2, childTF, elemXML, append(ancestors, st2))
				b.addChoice(n, st2)
				add(n)
				continue
			}
		case reflect.Struct, reflect.Pointer:
			stt, ok := structOf(f.Type)
			if !ok {
				break
			}
			if inPath(ancestors, stt) {
				continue
			}
			elemXML := xmlPath + "<" + tag.name + ">"
			if tag.member {
				// members hold attributes and children of the enclosing element
				elemXML = xmlPath
			}
			if cd, ok := flattenable(stt); ok {
				// character data + attributes: flatten into the parent, a
				// choice member too (an RNG backend's random = "/dev/urandom",
				// as dmacvicar/libvirt 0.9 has it).
				var value *node
				var attrs []*node
				for j := 0; j < stt.NumField(); j++ {
					sf := stt.Field(j)
					stag := parseTag(sf)
					if !sf.IsExported() || sf.Type == xmlNameType || stag.skip {
						continue
					}
					if _, ok := b.policy.Skip[stt.Name()+"."+sf.Name]; ok {
						continue
					}
					k, _ := leafKind(sf.Type)
					sub := step{index: j, ptr: sf.Type.Kind() == reflect.Pointer}
					if j == cd {
						// the element's presence carries the value, zero included
						value = &node{name: name, legacy: legacy, earlier: earlier, xmlPath: elemXML + " (text)", kind: k, steps: []step{st, sub}, goType: sf.Type}
						if tag.member {
							// schema versions 0 and 1 kept a member an object
							// holding its text under the Go field's name
							value.formerKey = snakeName(sf.Name)
						}
						add(value)
						continue
					}
					// named after the XML attribute, as dmacvicar/libvirt 0.9
					// names it (<vcpu cpuset> -> vcpu_cpuset)
					subName := name + "_" + snakeName(stag.name)
					if r, ok := b.policy.Rename[stt.Name()+"."+sf.Name]; ok {
						subName = r
					}
					a := &node{name: subName, legacy: legacy + "_" + legacySnakeName(sf.Name), earlier: earlier + "_" + v1SnakeName(sf.Name), xmlPath: elemXML[:len(elemXML)-1] + " " + stag.name + "=...>", kind: k,
						steps: []step{st, sub}, goType: sf.Type, omitEmpty: stag.omitEmpty || sf.Type.Kind() == reflect.String}
					if tag.member {
						a.legacy, a.legacyIn = snakeName(sf.Name), name
					}
					attrs = append(attrs, a)
					add(a)
				}
				if value != nil {
					value.flat, value.flatAttrs = true, attrs
				}
				continue
			}
			n := &node{name: name, legacy: legacy, earlier: earlier, xmlPath: elemXML, kind: kindObject, steps: []step{st}, goType: stt}
			if _, cdata, ok := textAndAttributes(stt); ok && cdata && !tag.member {
				// versions 0 and 1 flattened it (max_size, max_size_unit)
				n.formerlyFlat = true
			}
			n.children = b.objectChildren(stt, childTF, elemXML, append(ancestors, stt))
			b.addChoice(n, stt)
			if len(n.children) == 0 && st.ptr {
				// an element without attributes or content: present or not
				n.kind = kindBool
			}
			add(n)
			continue
		}
		b.problems = append(b.problems, fmt.Sprintf("%s: unsupported Go type %s", key, f.Type))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	for i := 1; i < len(out); i++ {
		if out[i].name == out[i-1].name {
			b.problems = append(b.problems, fmt.Sprintf("%s: attribute name %q used twice", t.Name(), out[i].name))
		}
	}
	// link flattened scaled values to their unit
	byName := map[string]*node{}
	for _, n := range out {
		byName[n.name] = n
	}
	// an earlier name that is another attribute's name now would read that
	// attribute's old value into this one (UpgradeJSON)
	for _, n := range out {
		for _, former := range []string{n.earlier, n.legacy} {
			if o, ok := byName[former]; ok && o != n && n.legacyIn == "" {
				b.problems = append(b.problems, fmt.Sprintf("%s: %q was named %q in an earlier schema version, the name of %q now", t.Name(), n.name, former, o.name))
			}
		}
	}
	for _, n := range out {
		if u, ok := byName[n.name+"_unit"]; ok && n.kind == kindInt && len(n.steps) == 2 {
			n.unit = u
			n.defaultUnit = b.policy.DefaultUnit
		}
		// the same in an object of text and attributes: { value, unit }
		if u, ok := byName["unit"]; ok && n.kind == kindInt && n.text && u.kind == kindString {
			n.unit = u
			n.defaultUnit = b.policy.DefaultUnit
		}
	}
	return out
}

// yesNoAttributes are the XML attributes written "yes" or "no" that are
// booleans in the schema, wherever they occur (as dmacvicar/libvirt 0.9
// has them): a VNC/SPICE/RDP autoport, a managed host device, interface,
// reservation or forward, a migratable CPU.
var yesNoAttributes = map[string]bool{"autoport": true, "managed": true, "migratable": true}

func inPath(ancestors []reflect.Type, t reflect.Type) bool {
	for _, a := range ancestors {
		if a == t {
			return true
		}
	}
	return false
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}
