package xmlschema

import (
	"encoding/xml"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

var xmlNameType = reflect.TypeOf(xml.Name{})

type xmlTag struct {
	name      string
	attr      bool
	chardata  bool
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
		return xmlTag{skip: true}
	}
	parts := strings.Split(tag, ",")
	t := xmlTag{name: parts[0]}
	for _, p := range parts[1:] {
		switch p {
		case "attr":
			t.attr = true
		case "chardata", "cdata":
			t.chardata = true
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
// returns the index of its character data field.
func flattenable(t reflect.Type) (int, bool) {
	chardata := -1
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
			return -1, false
		}
		switch {
		case tag.chardata:
			chardata = i
		case !tag.attr:
			return -1, false
		}
	}
	return chardata, chardata >= 0
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
		name := snakeName(f.Name)
		if r, ok := b.policy.Rename[key]; ok {
			name = r
		}
		st := step{index: i, ptr: f.Type.Kind() == reflect.Pointer}
		childTF := joinPath(tfPath, name)

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
			add(&node{name: name, xmlPath: desc, kind: k, steps: []step{st}, goType: f.Type, omitEmpty: tag.omitEmpty || f.Type.Kind() == reflect.String})
			continue
		}
		switch f.Type.Kind() {
		case reflect.Slice:
			et := f.Type.Elem()
			if et.Kind() == reflect.String {
				add(&node{name: name, xmlPath: xmlPath + "<" + tag.name + ">", kind: kindStringList, steps: []step{st}, goType: f.Type})
				continue
			}
			if st2, ok := structOf(et); ok && et.Kind() == reflect.Struct {
				if inPath(ancestors, st2) {
					continue
				}
				elemXML := xmlPath + "<" + tag.name + ">"
				n := &node{name: name, xmlPath: elemXML, kind: kindList, steps: []step{st}, goType: st2}
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
			if cd, ok := flattenable(stt); ok && !tag.member {
				// character data + attributes: flatten into the parent.
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
						add(&node{name: name, xmlPath: elemXML + " (text)", kind: k, steps: []step{st, sub}, goType: sf.Type})
						continue
					}
					add(&node{name: name + "_" + snakeName(sf.Name), xmlPath: elemXML[:len(elemXML)-1] + " " + stag.name + "=...>", kind: k,
						steps: []step{st, sub}, goType: sf.Type, omitEmpty: stag.omitEmpty || sf.Type.Kind() == reflect.String})
				}
				continue
			}
			n := &node{name: name, xmlPath: elemXML, kind: kindObject, steps: []step{st}, goType: stt}
			n.children = b.objectChildren(stt, childTF, elemXML, append(ancestors, stt))
			b.addChoice(n, stt)
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
	for _, n := range out {
		if u, ok := byName[n.name+"_unit"]; ok && n.kind == kindInt && len(n.steps) == 2 {
			n.unit = u
			n.defaultUnit = b.policy.DefaultUnit
		}
	}
	return out
}

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
