package xmlschema

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Model is the engine for one libvirtxml document type T: the attribute tree
// derived from T, the tftypes of every object (built once), and conversions.
type Model[T any] struct {
	policy Policy
	root   *node
	types  map[string]tftypes.Type // attribute name -> type, for the root's attributes
}

var modelCache sync.Map // reflect.Type -> any (*Model[T])

// NewModel builds (once per process and type) the model of document type T.
// It panics when the policy or the struct tree has problems: that is a
// programming error caught by the package's tests.
func NewModel[T any](policy Policy) *Model[T] {
	t := reflect.TypeOf((*T)(nil)).Elem()
	if m, ok := modelCache.Load(t); ok {
		return m.(*Model[T])
	}
	m, err := buildModel[T](policy)
	if err != nil {
		panic(err)
	}
	actual, _ := modelCache.LoadOrStore(t, m)
	return actual.(*Model[T])
}

func buildModel[T any](policy Policy) (*Model[T], error) {
	t := reflect.TypeOf((*T)(nil)).Elem()
	b := &builder{policy: &policy, choices: map[reflect.Type]*choiceTemplate{}}
	root := &node{name: "", xmlPath: "<" + policy.Root + ">", kind: kindObject, goType: t}
	root.children = b.objectChildren(t, "", root.xmlPath, []reflect.Type{t})
	if len(b.problems) > 0 {
		return nil, fmt.Errorf("xmlschema: %s: %s", t.Name(), strings.Join(b.problems, "; "))
	}
	index(root)
	for _, e := range policy.Extra {
		if err := addExtra(root, e); err != nil {
			return nil, err
		}
	}
	for _, p := range policy.WriteOnly {
		if err := addWriteOnly(root, p); err != nil {
			return nil, err
		}
	}
	markHasWriteOnly(root)
	for _, p := range policy.Computed {
		if err := markComputed(root, p); err != nil {
			return nil, err
		}
	}
	for _, p := range policy.Volatile {
		n, err := lookup(root, p)
		if err != nil {
			return nil, err
		}
		if !n.computed {
			return nil, fmt.Errorf("xmlschema: volatile path %q is not computed", p)
		}
		n.volatile = true
	}
	markHasComputed(root)
	for _, name := range policy.Required {
		n := root.child(name)
		if n == nil {
			return nil, fmt.Errorf("xmlschema: required attribute %q does not exist", name)
		}
		if n.computed || (n.kind != kindString && n.kind != kindInt) {
			return nil, fmt.Errorf("xmlschema: required attribute %q must be a string or number that libvirt does not compute", name)
		}
		n.required = true
	}
	for p, value := range policy.Elided {
		n, err := lookup(root, p)
		if err != nil {
			return nil, err
		}
		if n.kind != kindString || value == "" {
			return nil, fmt.Errorf("xmlschema: elided path %q must be a string attribute with a value", p)
		}
		n.elided = value
	}
	for p, reason := range policy.Status {
		n, err := lookup(root, p)
		if err != nil {
			return nil, err
		}
		if reason == "" {
			return nil, fmt.Errorf("xmlschema: status path %q needs the reason users read", p)
		}
		n.status = reason
	}
	for _, p := range policy.Sensitive {
		n, err := lookup(root, p)
		if err != nil {
			return nil, err
		}
		n.sensitive = true
	}
	for p, keys := range policy.Identity {
		n, err := lookup(root, p)
		if err != nil {
			return nil, err
		}
		if n.kind != kindList {
			return nil, fmt.Errorf("xmlschema: identity path %q is not a list", p)
		}
		for _, k := range keys {
			if _, err := lookup(n, k); err != nil {
				return nil, fmt.Errorf("xmlschema: identity key %q of %q: %w", k, p, err)
			}
		}
		n.identity = keys
	}
	buildTypes(root)
	m := &Model[T]{policy: policy, root: root, types: map[string]tftypes.Type{}}
	for _, c := range root.children {
		m.types[c.name] = c.tfType
	}
	return m, nil
}

func index(n *node) {
	if len(n.children) == 0 {
		return
	}
	n.byName = make(map[string]*node, len(n.children))
	for _, c := range n.children {
		n.byName[c.name] = c
		index(c)
	}
}

func lookup(n *node, dotted string) (*node, error) {
	cur := n
	for _, part := range strings.Split(dotted, ".") {
		next := cur.child(part)
		if next == nil {
			return nil, fmt.Errorf("xmlschema: no attribute %q (at %q)", dotted, part)
		}
		cur = next
	}
	return cur, nil
}

// markComputed marks the node at dotted path and its ancestors up to the
// nearest list element as computed: libvirt may fill them without the user.
// A list is marked only when the path ends at it: libvirt fills the whole
// list (a snapshot's disks) when the user leaves it out.
func markComputed(root *node, dotted string) error {
	cur := root
	var chain []*node
	for _, part := range strings.Split(dotted, ".") {
		next := cur.child(part)
		if next == nil {
			return fmt.Errorf("xmlschema: computed path %q: no attribute %q", dotted, part)
		}
		if cur.kind == kindList {
			chain = chain[:0]
		}
		chain = append(chain, next)
		cur = next
	}
	for i, n := range chain {
		if n.kind == kindList && i != len(chain)-1 {
			continue
		}
		n.computed = true
	}
	return nil
}

func buildTypes(n *node) tftypes.Type {
	switch n.kind {
	case kindString:
		n.tfType = tftypes.String
	case kindInt:
		n.tfType = tftypes.Number
	case kindStringList:
		n.tfType = tftypes.List{ElementType: tftypes.String}
	case kindBool:
		n.tfType = tftypes.Bool
	case kindObject, kindList:
		attrs := make(map[string]tftypes.Type, len(n.children))
		for _, c := range n.children {
			attrs[c.name] = buildTypes(c)
		}
		obj := tftypes.Object{AttributeTypes: attrs}
		if n.kind == kindList {
			n.tfType = tftypes.List{ElementType: obj}
		} else {
			n.tfType = obj
		}
	}
	return n.tfType
}

// AttributeTypes returns the tftypes of the document's top-level attributes.
func (m *Model[T]) AttributeTypes() map[string]tftypes.Type { return m.types }

// Volatile reports whether the top-level attribute name changes by itself
// (policy Volatile): plans leave it unknown whenever the resource changes.
func (m *Model[T]) Volatile(name string) bool {
	n := m.root.child(name)
	return n != nil && n.volatile
}

// Count returns the number of attributes in the tree (for tests and benchmarks).
func (m *Model[T]) Count() int { return count(m.root) - 1 }

func count(n *node) int {
	c := 1
	for _, ch := range n.children {
		c += count(ch)
	}
	return c
}

// addExtra adds a Policy.Extra attribute to the tree.
func addExtra(root *node, e ExtraAttribute) error {
	parent, err := lookup(root, e.Path)
	if err != nil {
		return err
	}
	if parent.kind != kindObject && parent.kind != kindList {
		return fmt.Errorf("xmlschema: extra attribute %q: %q is not an object or list", e.Name, e.Path)
	}
	if parent.child(e.Name) != nil {
		return fmt.Errorf("xmlschema: extra attribute %q: %q already has it", e.Name, e.Path)
	}
	n := &node{name: e.Name, legacy: e.Name, kind: kindObject, extra: true, desc: e.Description}
	for name, desc := range e.Fields {
		k := kindString
		if slices.Contains(e.Numbers, name) {
			k = kindInt
		}
		n.children = insertSorted(n.children, &node{name: name, legacy: name, kind: k, extra: true, desc: desc})
	}
	parent.children = insertSorted(parent.children, n)
	index(parent)
	return nil
}
