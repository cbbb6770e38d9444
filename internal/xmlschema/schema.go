package xmlschema

import (
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// schemaCache holds the framework attributes per model: they are built once
// per provider process, never per request.
var schemaCache sync.Map // *node -> map[string]schema.Attribute

// Attributes returns the framework schema attributes of the document tree.
// The resource adds its own provider-level attributes beside them.
func (m *Model[T]) Attributes() map[string]schema.Attribute {
	if a, ok := schemaCache.Load(m.root); ok {
		return a.(map[string]schema.Attribute)
	}
	out := make(map[string]schema.Attribute, len(m.root.children))
	for _, c := range m.root.children {
		out[c.name] = c.attribute()
	}
	a, _ := schemaCache.LoadOrStore(m.root, out)
	return a.(map[string]schema.Attribute)
}

// description names the XML the attribute maps to, relative to its parent
// (the nesting of the attribute path gives the rest): `<target dev>`,
// `<memory>` text, `<disk>`. Short on purpose: the domain tree has thousands
// of attributes and its documentation page must stay under the registry's
// size limit.
func (n *node) description() string {
	if n.extra {
		return n.desc
	}
	tag, marker := shortXML(n.xmlPath)
	d := "`" + tag + "`"
	if marker != "" {
		d += " " + marker
	}
	if n.status != "" {
		d += " Read-only: " + n.status + "."
	}
	if n.choice != nil {
		var values []string
		for _, m := range n.choice.members {
			values = append(values, "`"+m.value+"`")
		}
		d += " One of " + strings.Join(values, ", ") + "; derived from which member is set, and setting it alone creates that member empty."
		if n.choice.defaultMember != nil {
			d += " Default: `" + n.choice.defaultMember.value + "`."
		}
	}
	switch {
	case n.words != "":
		yes, no, _ := strings.Cut(n.words, "/")
		d += fmt.Sprintf(" `%s` or `%s` (`true`/`false` accepted).", yes, no)
	case n.kind == kindBool && n.yesNo:
		d += " `true` writes \"yes\", `false` writes \"no\"."
	case n.kind == kindBool:
		d += " `true` writes the element (empty); `false` or unset leaves it out."
	}
	if n.computed {
		d += " Chosen by libvirt when not set."
	}
	return d
}

func (n *node) attribute() schema.Attribute {
	desc := n.description()
	// Optional and Computed: the planner keeps what libvirt (or anyone else)
	// holds where the configuration is silent (PlanUpdate), which tofu
	// allows only for computed attributes.
	optional, computed := !n.required, !n.required
	if n.writeOnly {
		// Not computed: only the configuration has it. Not WriteOnly here:
		// the framework refuses write-only attributes under computed nested
		// attributes, which every tree object is (libvirt fills them); the
		// protocol layer marks it write-only in the schema it serves
		// (WriteOnlyPaths) and nulls it in plans (NullWriteOnly).
		return schema.StringAttribute{Optional: true, Sensitive: true, Description: desc}
	}
	switch n.kind {
	case kindString:
		return schema.StringAttribute{Required: n.required, Optional: optional, Computed: computed, Sensitive: n.sensitive, Description: desc}
	case kindInt:
		return schema.Int64Attribute{Required: n.required, Optional: optional, Computed: computed, Sensitive: n.sensitive, Description: desc}
	case kindStringList:
		return schema.ListAttribute{ElementType: types.StringType, Optional: optional, Computed: computed, Description: desc}
	case kindBool:
		return schema.BoolAttribute{Optional: optional, Computed: computed, Description: desc}
	case kindObject:
		return schema.SingleNestedAttribute{
			Attributes:  n.childAttributes(),
			Optional:    optional,
			Computed:    computed,
			Description: desc,
			CustomType:  basetypes.ObjectType{AttrTypes: n.attrTypes()},
		}
	default: // kindList
		return schema.ListNestedAttribute{
			NestedObject: schema.NestedAttributeObject{
				Attributes: n.childAttributes(),
				CustomType: basetypes.ObjectType{AttrTypes: n.attrTypes()},
			},
			Optional:    optional,
			Computed:    computed,
			Description: desc,
			CustomType:  basetypes.ListType{ElemType: basetypes.ObjectType{AttrTypes: n.attrTypes()}},
		}
	}
}

func (n *node) childAttributes() map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(n.children))
	for _, c := range n.children {
		out[c.name] = c.attribute()
	}
	return out
}

// attrTypes is the framework type of n's object, computed once per node: the
// framework otherwise rebuilds nested object types on every access.
func (n *node) attrTypes() map[string]attr.Type {
	if n.fwTypes != nil {
		return n.fwTypes
	}
	out := make(map[string]attr.Type, len(n.children))
	for _, c := range n.children {
		out[c.name] = c.fwType()
	}
	n.fwTypes = out
	return out
}

func (n *node) fwType() attr.Type {
	switch n.kind {
	case kindString:
		return types.StringType
	case kindInt:
		return types.Int64Type
	case kindStringList:
		return types.ListType{ElemType: types.StringType}
	case kindBool:
		return types.BoolType
	case kindObject:
		return basetypes.ObjectType{AttrTypes: n.attrTypes()}
	default:
		return basetypes.ListType{ElemType: basetypes.ObjectType{AttrTypes: n.attrTypes()}}
	}
}

// shortXML keeps the last element of an xmlPath with its attribute, and
// says whether the value is the element's text: "<a><b><c x=...>" -> "<c x>",
// "<a><m> (text)" -> "<m>", "text".
func shortXML(xmlPath string) (tag, marker string) {
	for _, m := range []string{" (text)", " (inner XML)"} {
		if strings.HasSuffix(xmlPath, m) {
			xmlPath = strings.TrimSuffix(xmlPath, m)
			marker = strings.Trim(m, " ()")
		}
	}
	if i := strings.LastIndex(xmlPath, "<"); i >= 0 {
		xmlPath = xmlPath[i:]
	}
	return strings.ReplaceAll(xmlPath, "=...", ""), marker
}
