// Package rngwords reads libvirt's RelaxNG schemas (the grammar libvirt
// validates documents against, installed under /usr/share/libvirt/schemas)
// and lists the XML attributes whose only allowed values are "yes"/"no" or
// "on"/"off". The engine validates those words at plan time; the table is
// generated from the grammar (tools/rngwords), never written by hand.
package rngwords

import (
	"encoding/xml"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Words is the kind of word an attribute takes.
type Words string

const (
	YesNo Words = "yes/no"
	OnOff Words = "on/off"
)

// Roots are the grammar files of the documents the provider manages, by the
// document's root element.
var Roots = map[string]string{
	"domain":  "domain.rng",
	"network": "network.rng",
	"pool":    "storagepool.rng",
	"volume":  "storagevol.rng",
	"secret":  "secret.rng",
}

// rng is a parsed grammar node.
type rng struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []*rng     `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (n *rng) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// grammar holds the defines of a document's grammar and its includes.
type grammar struct {
	defines map[string][]*rng
	start   []*rng
}

func load(dir, file string, g *grammar, seen map[string]bool) error {
	if seen[file] {
		return nil
	}
	seen[file] = true
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return err
	}
	var root rng
	if err := xml.Unmarshal(b, &root); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	for _, c := range root.Children {
		switch c.XMLName.Local {
		case "start":
			g.start = append(g.start, c.Children...)
		case "define":
			g.defines[c.attr("name")] = append(g.defines[c.attr("name")], c)
		case "include":
			// defines inside an include override the included file's
			for _, d := range c.Children {
				if d.XMLName.Local == "define" {
					g.defines[d.attr("name")] = []*rng{d}
				}
			}
			overridden := map[string]bool{}
			for _, d := range c.Children {
				if d.XMLName.Local == "define" {
					overridden[d.attr("name")] = true
				}
			}
			sub := &grammar{defines: map[string][]*rng{}}
			if err := load(dir, c.attr("href"), sub, seen); err != nil {
				return err
			}
			for k, v := range sub.defines {
				if !overridden[k] {
					g.defines[k] = append(g.defines[k], v...)
				}
			}
			g.start = append(g.start, sub.start...)
		}
	}
	return nil
}

// Table lists, for the document of each root, "element@attribute" -> the
// words it takes. An attribute that takes anything else in any place of the
// grammar is left out.
func Table(dir string) (map[string]map[string]Words, error) {
	out := map[string]map[string]Words{}
	for root, file := range Roots {
		g := &grammar{defines: map[string][]*rng{}}
		if err := load(dir, file, g, map[string]bool{}); err != nil {
			return nil, err
		}
		kinds := map[string]map[Words]bool{}
		w := &walker{g: g, kinds: kinds, visitedDefine: map[string]bool{}}
		for _, s := range g.start {
			w.discover(s)
		}
		t := map[string]Words{}
		for key, ks := range kinds {
			if len(ks) == 1 {
				for k := range ks {
					if k == YesNo || k == OnOff {
						t[key] = k
					}
				}
			}
		}
		out[root] = t
	}
	return out, nil
}

type walker struct {
	g             *grammar
	kinds         map[string]map[Words]bool
	visitedDefine map[string]bool
}

// discover finds every element reachable from n and records its attributes.
func (w *walker) discover(n *rng) {
	switch n.XMLName.Local {
	case "element":
		if name := n.attr("name"); name != "" {
			w.attributes(name, n.Children, map[string]bool{})
		}
	case "ref", "parentRef":
		name := n.attr("name")
		if w.visitedDefine[name] {
			return
		}
		w.visitedDefine[name] = true
		for _, d := range w.g.defines[name] {
			for _, c := range d.Children {
				w.discover(c)
			}
		}
		return
	case "attribute":
		return
	}
	for _, c := range n.Children {
		w.discover(c)
	}
}

// attributes records the attributes of element elem found in nodes, without
// descending into nested elements.
func (w *walker) attributes(elem string, nodes []*rng, seen map[string]bool) {
	for _, n := range nodes {
		switch n.XMLName.Local {
		case "element":
			continue
		case "attribute":
			name := n.attr("name")
			if name == "" {
				continue
			}
			key := elem + "@" + name
			if w.kinds[key] == nil {
				w.kinds[key] = map[Words]bool{}
			}
			w.kinds[key][w.wordsOf(n.Children, map[string]bool{})] = true
		case "ref", "parentRef":
			name := n.attr("name")
			if seen[name] {
				continue
			}
			seen[name] = true
			for _, d := range w.g.defines[name] {
				w.attributes(elem, d.Children, seen)
			}
		default:
			w.attributes(elem, n.Children, seen)
		}
	}
}

// wordsOf classifies an attribute's content: YesNo or OnOff when it allows
// exactly those two values, "other" otherwise.
func (w *walker) wordsOf(nodes []*rng, seen map[string]bool) Words {
	vals, ok := w.values(nodes, seen)
	if !ok {
		return "other"
	}
	sort.Strings(vals)
	switch strings.Join(vals, ",") {
	case "no,yes":
		return YesNo
	case "off,on":
		return OnOff
	}
	return "other"
}

// values lists the literal values a content allows; ok is false when it
// allows free text or data.
func (w *walker) values(nodes []*rng, seen map[string]bool) ([]string, bool) {
	if len(nodes) == 0 {
		return nil, false // <attribute name="x"/> is text
	}
	var out []string
	for _, n := range nodes {
		switch n.XMLName.Local {
		case "value":
			out = append(out, strings.TrimSpace(n.Text))
		case "choice":
			v, ok := w.values(n.Children, seen)
			if !ok {
				return nil, false
			}
			out = append(out, v...)
		case "ref":
			name := n.attr("name")
			if seen[name] {
				return nil, false
			}
			seen[name] = true
			for _, d := range w.g.defines[name] {
				v, ok := w.values(d.Children, seen)
				if !ok {
					return nil, false
				}
				out = append(out, v...)
			}
		default:
			return nil, false
		}
	}
	return dedupe(out), true
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// GoSource renders the table as a Go file of package pkg, sorted, so that
// regenerating from the same grammar gives the same bytes.
func GoSource(t map[string]map[string]Words, pkg string) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by tools/rngwords from libvirt's RelaxNG schemas; DO NOT EDIT.\n\npackage %s\n\n", pkg)
	b.WriteString("// grammarWords lists, per document root, the XML attributes (\"element@attribute\")\n")
	b.WriteString("// that libvirt's grammar allows only \"yes\"/\"no\" or \"on\"/\"off\" for.\n")
	b.WriteString("var grammarWords = map[string]map[string]string{\n")
	roots := make([]string, 0, len(t))
	for r := range t {
		roots = append(roots, r)
	}
	sort.Strings(roots)
	for _, r := range roots {
		fmt.Fprintf(&b, "\t%q: {\n", r)
		keys := make([]string, 0, len(t[r]))
		for k := range t[r] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "\t\t%q: %q,\n", k, string(t[r][k]))
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n")
	return format.Source([]byte(b.String()))
}
