package xmlschema

import (
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// kind is the shape of a schema node.
type kind int

const (
	kindString kind = iota
	kindInt
	kindObject     // single nested object (pointer struct, struct, or *struct{} marker)
	kindList       // list of nested objects
	kindStringList // []string
	kindBool       // an element without content (<acpi/>: true when present), or a yes/no attribute (yesNo)
)

// step is one field hop from an enclosing struct value towards a node's value.
type step struct {
	index int  // field index in the struct
	ptr   bool // the field is a pointer that may be nil
}

// node is one attribute of the generated schema, bound to the Go fields it
// reads and writes.
type node struct {
	name     string
	xmlPath  string // for descriptions: <domain><devices><disk><target dev=...>
	kind     kind
	steps    []step       // from the enclosing struct to the value
	goType   reflect.Type // leaf: the Go type (string, uint, *int, ...); object/list: the struct type
	children []*node      // object and list element attributes, sorted by name
	byName   map[string]*node

	omitEmpty bool // a zero leaf is absent from the XML, so zero <-> null
	// textAttr: a kindString leaf held in a struct that marshals itself as
	// the XML attribute of this name (textAttrType)
	textAttr string
	yesNo    bool // kindBool: a string attribute holding "yes" or "no"
	// words: a string attribute libvirt's grammar allows only "yes/no" or
	// "on/off" for (words_gen.go); true and false are read as the two words
	words string

	// legacy is the attribute's name in schema version 0 (UpgradeJSON);
	// legacyIn names the object that held it there, for the fields of an
	// embedded struct (version 0 nested them, this version flattens them).
	legacy, legacyIn string
	// earlier is the attribute's name in schema version 1 (UpgradeJSON),
	// which kept every acronym plural whole (io_thread_ids)
	earlier string
	// formerKey: the value of a flattened choice member, which schema
	// versions 0 and 1 kept as an object; its text was under this key there
	formerKey string
	// formerlyFlat: an object of text and attributes that versions 0 and 1
	// flattened into its parent (max_size, max_size_unit)
	formerlyFlat bool
	// text: a leaf holding its element's character data
	text bool
	// flat: the text of an element flattened into its parent (memory);
	// flatAttrs are the element's attributes flattened beside it (memory_unit)
	flat        bool
	flatAttrs   []*node
	computed    bool // libvirt may fill it when the user does not (policy)
	volatile    bool // a computed value that changes by itself (sizes): unknown in every changing plan
	hasComputed bool // this node or a descendant is computed
	sensitive   bool
	// elided: the value libvirt applies but leaves out of the stored
	// definition (policy Elided); empty when there is none
	elided string
	// status: why libvirt alone writes this element (policy Status);
	// Validate refuses a configuration that sets it.
	status   string
	required bool // a top-level attribute the document cannot be defined without
	// extra: not XML (Policy.Extra); desc is its description
	extra bool
	desc  string
	// writeOnly: a write-only twin (Policy.WriteOnly), an extra node;
	// woTwin and woVersion are the twin and its version of the leaf they
	// stand for; hasWriteOnly: this node or a descendant is a twin
	writeOnly         bool
	woTwin, woVersion *node
	hasWriteOnly      bool

	// unit is the sibling "<x>_unit" node of a flattened scaled value.
	unit        *node
	defaultUnit string

	// discriminator: for a "type" node that libvirtxml derives from which
	// member of a choice is set, the member paths by their type value.
	choice *choice

	// identity names the element attributes (dotted paths) that identify a
	// list element across reads, when libvirt gives one.
	identity []string

	tfType  tftypes.Type
	fwTypes map[string]attr.Type // framework object type, built once
}

// choice links a derived discriminator attribute to the members it names.
type choice struct {
	members       []choiceMember
	defaultMember *choiceMember // what libvirtxml reads when the XML has no type
}

type choiceMember struct {
	value string
	path  []*node // object nodes from the parent object down to the member
}

func (n *node) child(name string) *node {
	if n.byName == nil {
		return nil
	}
	return n.byName[name]
}
