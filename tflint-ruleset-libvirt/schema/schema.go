// Package schema reads the provider's attribute tree that the ruleset embeds
// (schema.txt, written by the provider repository's tools/lintschema from
// the provider's own GetProviderSchema answer) and answers which keys an
// object may hold and what each one is.
package schema

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed schema.txt
var schemaText string

// Node is one attribute: a leaf of a type, or a nested object (single) or
// collection of objects (list, set, map) with its own attributes.
type Node struct {
	Name string
	// Kind is single, list, set or map for a nested attribute, or the
	// leaf's type: bool, string, number, list(string), object, any, ...
	Kind     string
	ReadOnly bool
	Children map[string]*Node
}

// Nested reports whether the node holds objects of its own attributes.
func (n *Node) Nested() bool {
	switch n.Kind {
	case "single", "list", "set", "map":
		return true
	}
	return strings.HasPrefix(n.Kind, "block-")
}

// Collection reports whether the node holds several objects (list, set, map).
func (n *Node) Collection() bool {
	return n.Nested() && strings.TrimPrefix(n.Kind, "block-") != "single"
}

// Names returns the node's attribute names, sorted.
func (n *Node) Names() []string {
	names := make([]string, 0, len(n.Children))
	for k := range n.Children {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Schema holds the resources' and data sources' root nodes by type name.
type Schema struct {
	Resources   map[string]*Node
	DataSources map[string]*Node
}

// Embedded parses the embedded tree; it panics on a malformed file, which
// TestEmbeddedParses catches.
func Embedded() *Schema {
	s, err := Parse(schemaText)
	if err != nil {
		panic(err)
	}
	return s
}

// Parse reads a tree in lintschema's format.
func Parse(text string) (*Schema, error) {
	s := &Schema{Resources: map[string]*Node{}, DataSources: map[string]*Node{}}
	var stack []*Node // stack[d] is the node at depth d; stack[0] the type's root
	for i, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		depth := len(line) - len(strings.TrimLeft(line, " "))
		f := strings.Fields(line)
		if depth == 0 {
			if len(f) != 2 {
				return nil, fmt.Errorf("schema.txt:%d: want `resource|data <type>`", i+1)
			}
			root := &Node{Name: f[1], Kind: "single", Children: map[string]*Node{}}
			switch f[0] {
			case "resource":
				s.Resources[f[1]] = root
			case "data":
				s.DataSources[f[1]] = root
			default:
				return nil, fmt.Errorf("schema.txt:%d: unknown header %q", i+1, f[0])
			}
			stack = []*Node{root}
			continue
		}
		if len(f) < 2 || len(f) > 3 || depth > len(stack) || (len(f) == 3 && f[2] != "ro") {
			return nil, fmt.Errorf("schema.txt:%d: malformed line %q", i+1, line)
		}
		n := &Node{Name: f[0], Kind: f[1], ReadOnly: len(f) == 3}
		if n.Nested() {
			n.Children = map[string]*Node{}
		}
		parent := stack[depth-1]
		if parent.Children == nil {
			return nil, fmt.Errorf("schema.txt:%d: %q under the leaf %q", i+1, f[0], parent.Name)
		}
		parent.Children[n.Name] = n
		stack = append(stack[:depth], n)
	}
	return s, nil
}
