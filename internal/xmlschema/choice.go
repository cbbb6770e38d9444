package xmlschema

import (
	"bytes"
	"encoding/xml"
	"reflect"
	"strings"
)

var xmlMarshalerType = reflect.TypeOf((*xml.Marshaler)(nil)).Elem()

// choiceTemplate records, for a struct type whose MarshalXML writes a "type"
// attribute that no field holds, which member (a field path of up to two
// pointer hops) produces which type value. It is discovered by marshalling,
// not written by hand, so it follows libvirtxml exactly.
type choiceTemplate struct {
	members []templateMember
}

type templateMember struct {
	value string
	path  []int
}

// addChoice adds the derived "type" attribute to object or list node n of
// struct type t when t has one.
func (b *builder) addChoice(n *node, t reflect.Type) {
	tmpl := b.choiceFor(t)
	if tmpl == nil {
		return
	}
	for _, c := range n.children {
		if c.name == "type" {
			return
		}
	}
	ch := &choice{}
	for _, m := range tmpl.members {
		path, ok := resolvePath(n.children, m.path)
		if !ok {
			continue // the member was skipped by policy or depth
		}
		ch.members = append(ch.members, choiceMember{value: m.value, path: path})
		last := path[len(path)-1]
		if len(path) == 1 {
			last.xmlPath = n.xmlPath[:len(n.xmlPath)-1] + " type='" + m.value + "'>"
		}
	}
	if len(ch.members) == 0 {
		return
	}
	ch.defaultMember = defaultMember(t, lastElement(n.xmlPath), ch.members)
	desc := n.xmlPath[:len(n.xmlPath)-1] + " type=...>"
	// computed: libvirt always writes the type, so state holds it even where
	// the configuration sets only the member (or neither: the default)
	tn := &node{name: "type", legacy: "type", xmlPath: desc, kind: kindString, choice: ch, omitEmpty: true, computed: true, goType: reflect.TypeOf("")}
	n.children = insertSorted(n.children, tn)
}

func insertSorted(nodes []*node, n *node) []*node {
	i := 0
	for i < len(nodes) && nodes[i].name < n.name {
		i++
	}
	nodes = append(nodes, nil)
	copy(nodes[i+1:], nodes[i:])
	nodes[i] = n
	return nodes
}

// resolvePath maps Go field indices to the object nodes that read them; the
// last may be the value of a member flattened into its parent (text plus
// attributes), which stands for the member.
func resolvePath(children []*node, idx []int) ([]*node, bool) {
	var out []*node
	for k, i := range idx {
		var found *node
		for _, c := range children {
			if (c.kind == kindObject || c.kind == kindBool && !c.yesNo) && len(c.steps) == 1 && c.steps[0].index == i {
				found = c
				break
			}
			if k == len(idx)-1 && c.flat && len(c.steps) == 2 && c.steps[0].index == i {
				found = c
				break
			}
		}
		if found == nil {
			return nil, false
		}
		out = append(out, found)
		children = found.children
	}
	return out, true
}

func (b *builder) choiceFor(t reflect.Type) *choiceTemplate {
	if tmpl, ok := b.choices[t]; ok {
		return tmpl
	}
	tmpl := detectChoice(t)
	b.choices[t] = tmpl
	return tmpl
}

func detectChoice(t reflect.Type) *choiceTemplate {
	if !reflect.PointerTo(t).Implements(xmlMarshalerType) {
		return nil
	}
	for i := 0; i < t.NumField(); i++ {
		tag := parseTag(t.Field(i))
		if tag.attr && tag.name == "type" {
			return nil
		}
	}
	base := typeAttrOf(reflect.New(t))
	tmpl := &choiceTemplate{}
	seen := map[string]bool{}
	try := func(path []int) {
		v := reflect.New(t)
		if !setPath(v.Elem(), path) {
			return
		}
		typ := typeAttrOf(v)
		if typ != "" && typ != base && !seen[typ] {
			seen[typ] = true
			tmpl.members = append(tmpl.members, templateMember{value: typ, path: append([]int(nil), path...)})
		}
	}
	for i := 0; i < t.NumField(); i++ {
		ft, ok := structOf(t.Field(i).Type)
		if !ok || t.Field(i).Type.Kind() != reflect.Pointer {
			continue
		}
		try([]int{i})
		for j := 0; j < ft.NumField(); j++ {
			if _, ok := structOf(ft.Field(j).Type); ok && ft.Field(j).Type.Kind() == reflect.Pointer {
				try([]int{i, j})
			}
		}
	}
	if len(tmpl.members) == 0 {
		return nil
	}
	return tmpl
}

// setPath allocates the pointer fields along path.
func setPath(v reflect.Value, path []int) bool {
	for _, i := range path {
		f := v.Field(i)
		if f.Kind() != reflect.Pointer || !f.CanSet() {
			return false
		}
		f.Set(reflect.New(f.Type().Elem()))
		v = f.Elem()
	}
	return true
}

// typeAttrOf marshals v and returns the root element's type attribute.
func typeAttrOf(v reflect.Value) (typ string) {
	defer func() {
		if recover() != nil {
			typ = ""
		}
	}()
	data, err := xml.Marshal(v.Interface())
	if err != nil {
		return ""
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "type" {
					return a.Value
				}
			}
			return ""
		}
	}
}

// defaultMember finds the member libvirtxml itself chooses when the XML
// element has no type attribute (a <serial> without type is a pty): the
// engine applies the same default when the user sets neither the type nor a
// member, so the XML sent to libvirt always carries a type.
func defaultMember(t reflect.Type, elem string, members []choiceMember) *choiceMember {
	if elem == "" {
		return nil
	}
	v := reflect.New(t)
	if err := xml.Unmarshal([]byte("<"+elem+"/>"), v.Interface()); err != nil {
		return nil
	}
	for i := range members {
		cur, ok := v.Elem(), true
		for _, pn := range members[i].path {
			if cur, ok = pn.get(cur); !ok {
				break
			}
		}
		if ok {
			return &members[i]
		}
	}
	return nil
}

// lastElement returns the last element name of an xmlPath ("<a><b x=...>" -> "b").
func lastElement(xmlPath string) string {
	i := strings.LastIndex(xmlPath, "<")
	if i < 0 {
		return ""
	}
	name := xmlPath[i+1:]
	if j := strings.IndexAny(name, " >"); j >= 0 {
		name = name[:j]
	}
	return name
}
