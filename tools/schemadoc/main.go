// Command schemadoc rewrites the "## Schema" section of generated resource
// and data source pages (tfplugindocs output in docs/) from the provider's
// schema JSON, with each nested object schema that occurs more than once
// (a device's `address`, a character device's `source`...) documented once
// and linked from every place that uses it. It also puts the warning about
// misspelt nested keys at the top of every resource page.
//
// Usage: schemadoc -schema schema.json -docs docs/
//
// tfplugindocs writes every occurrence of a nested schema in full: the
// libvirt domain's page holds the same `address` subtree about thirty times
// and was 98% of the registry's page size limit.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type schemaFile struct {
	ProviderSchemas map[string]struct {
		ResourceSchemas   map[string]*schema `json:"resource_schemas"`
		DataSourceSchemas map[string]*schema `json:"data_source_schemas"`
	} `json:"provider_schemas"`
}

type schema struct {
	Block block `json:"block"`
}

type block struct {
	Attributes map[string]*attribute `json:"attributes"`
}

type attribute struct {
	Type        json.RawMessage `json:"type,omitempty"`
	NestedType  *nestedType     `json:"nested_type,omitempty"`
	Description string          `json:"description,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Optional    bool            `json:"optional,omitempty"`
	Computed    bool            `json:"computed,omitempty"`
	Sensitive   bool            `json:"sensitive,omitempty"`
	Deprecated  bool            `json:"deprecated,omitempty"`
	WriteOnly   bool            `json:"write_only,omitempty"`
}

type nestedType struct {
	Attributes  map[string]*attribute `json:"attributes"`
	NestingMode string                `json:"nesting_mode"`
}

// MisspeltKeysWarning goes at the top of every resource page.
const MisspeltKeysWarning = `~> **Misspelt keys inside nested objects are dropped silently.** OpenTofu and Terraform report
an unknown top-level argument, but an unknown key inside an object value (` + "`os = { tpye_arch = \"x86_64\" }`" + `)
never reaches the provider: the value is planned as if the key were absent. TFLint with this
provider's ruleset finds them, with the name meant (see the guide "Linting configurations"); or check
nested key names against the schema below when a setting seems to have no effect.`

func main() {
	schemaPath := flag.String("schema", "", "schema JSON written by `tofu providers schema -json`")
	docsDir := flag.String("docs", "docs", "the generated docs directory")
	provider := flag.String("provider", "libvirt", "provider name (the key in provider_schemas)")
	linksPath := flag.String("links", "", "JSON file of links from attribute paths to libvirt's format documentation")
	check := flag.Bool("check", false, "only check the pages in -docs: size limit and in-page links")
	maxBytes := flag.Int("max-bytes", 450_000, "with -check: the largest page allowed")
	flag.Parse()
	if *check {
		problems, err := Check(*docsDir, *maxBytes)
		if err != nil {
			fmt.Fprintln(os.Stderr, "schemadoc:", err)
			os.Exit(1)
		}
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, "schemadoc:", p)
		}
		if len(problems) > 0 {
			os.Exit(1)
		}
		return
	}
	links, err := readLinks(*linksPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemadoc:", err)
		os.Exit(1)
	}
	if err := run(*schemaPath, *docsDir, *provider, links); err != nil {
		fmt.Fprintln(os.Stderr, "schemadoc:", err)
		os.Exit(1)
	}
}

// docLinks maps a resource type to attribute paths ("devices.disks") and
// the libvirt documentation of the element; the path "" is the document.
type docLinks map[string]map[string]string

func readLinks(p string) (docLinks, error) {
	if p == "" {
		return nil, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var f struct {
		Links docLinks `json:"links"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return f.Links, nil
}

func run(schemaPath, docsDir, provider string, links docLinks) error {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var sf schemaFile
	if err := json.Unmarshal(raw, &sf); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	ps, ok := sf.ProviderSchemas[provider]
	if !ok {
		return fmt.Errorf("%s: no provider %q", schemaPath, provider)
	}
	for kind, schemas := range map[string]map[string]*schema{"resources": ps.ResourceSchemas, "data-sources": ps.DataSourceSchemas} {
		for name, s := range schemas {
			page := filepath.Join(docsDir, kind, strings.TrimPrefix(name, provider+"_")+".md")
			if err := rewritePage(page, s, kind == "resources", links[name]); err != nil {
				return err
			}
		}
	}
	return nil
}

// rewritePage replaces the page's schema section (up to the next "## "
// heading or the end) with Render's, and adds the warning on resource pages.
func rewritePage(page string, s *schema, warn bool, links map[string]string) error {
	b, err := os.ReadFile(page)
	if err != nil {
		return err
	}
	text := string(b)
	start := strings.Index(text, "\n## Schema\n")
	if start < 0 {
		return fmt.Errorf("%s: no \"## Schema\" section", page)
	}
	rest := text[start+len("\n## Schema\n"):]
	end := len(text)
	if i := strings.Index(rest, "\n## "); i >= 0 {
		end = start + len("\n## Schema\n") + i
	}
	head := text[:start]
	// the generator's comment line above the heading is rewritten too
	if i := strings.LastIndex(head, "\n"); i >= 0 && strings.HasPrefix(head[i+1:], "<!-- schema generated") {
		head = head[:i]
	}
	out := head + "\n" + Render(s.Block.Attributes, links) + text[end:]
	if warn && !strings.Contains(out, "Misspelt keys inside nested objects") {
		anchor := "\n## Example Usage\n"
		if !strings.Contains(out, anchor) {
			anchor = "\n## Schema\n"
		}
		out = strings.Replace(out, anchor, "\n"+MisspeltKeysWarning+"\n"+anchor, 1)
	}
	return os.WriteFile(page, []byte(out), 0o644)
}

// renderer collects the nested object schemas of one page.
type renderer struct {
	links    map[string]string   // attribute path -> libvirt documentation
	uses     map[string]int      // signature -> number of attributes using it
	paths    map[string][]string // signature -> the attribute paths using it
	shared   map[string]string
	sections []string // rendered nested sections, in order
	done     map[string]bool
}

// Render returns the markdown of a schema's attributes: the top-level lists,
// then one section per nested object, shared ones once.
func Render(attrs map[string]*attribute, links map[string]string) string {
	r := &renderer{links: links, uses: map[string]int{}, paths: map[string][]string{}, shared: map[string]string{}, done: map[string]bool{}}
	r.count(attrs, "")
	var sb strings.Builder
	sb.WriteString("<!-- schema generated by tfplugindocs and tools/schemadoc (repeated nested schemas are written once) -->\n## Schema\n\n")
	if doc, ok := links[""]; ok {
		fmt.Fprintf(&sb, "The document attributes below are the elements and XML attributes of libvirt's format, described in [libvirt's documentation](%s).\n\n", doc)
	}
	r.lists(&sb, attrs, "", "### ")
	for _, s := range r.sections {
		sb.WriteString(s)
	}
	return sb.String()
}

// signature identifies a nested object schema by its content.
func signature(nt *nestedType) string {
	b, _ := json.Marshal(nt.Attributes) // map keys are sorted by encoding/json
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

func (r *renderer) count(attrs map[string]*attribute, p string) {
	for _, name := range sortedNames(attrs) {
		a := attrs[name]
		if a.NestedType == nil {
			continue
		}
		full := joinPath(p, name)
		sig := signature(a.NestedType)
		r.uses[sig]++
		r.paths[sig] = append(r.paths[sig], full)
		if r.uses[sig] == 1 {
			r.count(a.NestedType.Attributes, full)
		}
	}
}

func joinPath(p, name string) string {
	if p == "" {
		return name
	}
	return p + "." + name
}

func sortedNames(attrs map[string]*attribute) []string {
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// lists writes the Required / Optional / Read-Only lists of attrs at path p.
func (r *renderer) lists(sb *strings.Builder, attrs map[string]*attribute, p, heading string) {
	groups := []struct {
		title string
		keep  func(*attribute) bool
	}{
		{"Required", func(a *attribute) bool { return a.Required }},
		{"Optional", func(a *attribute) bool { return a.Optional }},
		{"Read-Only", func(a *attribute) bool { return !a.Required && !a.Optional }},
	}
	for _, g := range groups {
		var lines []string
		for _, name := range sortedNames(attrs) {
			if a := attrs[name]; g.keep(a) {
				lines = append(lines, r.line(name, a, p))
			}
		}
		if len(lines) == 0 {
			continue
		}
		if heading == "" {
			fmt.Fprintf(sb, "%s:\n\n", g.title)
		} else {
			fmt.Fprintf(sb, "%s%s\n\n", heading, g.title)
		}
		sb.WriteString(strings.Join(lines, "\n"))
		sb.WriteString("\n\n")
	}
}

func (r *renderer) line(name string, a *attribute, p string) string {
	full := joinPath(p, name)
	desc := strings.TrimSpace(a.Description)
	extra := ""
	if a.Sensitive {
		extra += " Sensitive."
	}
	if a.Deprecated {
		extra += " Deprecated."
	}
	if doc, ok := r.links[full]; ok {
		extra += fmt.Sprintf(" [libvirt docs](%s)", doc)
	}
	if a.NestedType == nil {
		return fmt.Sprintf("- `%s` (%s) %s%s", name, typeName(a.Type), desc, extra)
	}
	anchor := r.nested(full, a.NestedType)
	return fmt.Sprintf("- `%s` (%s) %s%s (see [below for nested schema](#%s))", name, nestingName(a.NestedType.NestingMode), desc, extra, anchor)
}

// nested renders (once) the section of a nested object and returns its anchor.
func (r *renderer) nested(full string, nt *nestedType) string {
	sig := signature(nt)
	if r.uses[sig] > 1 {
		if anchor, ok := r.shared[sig]; ok {
			return anchor
		}
		leaf := full[strings.LastIndex(full, ".")+1:]
		anchor := "shared--" + leaf + "-" + sig
		r.shared[sig] = anchor
		var sb strings.Builder
		fmt.Fprintf(&sb, "<a id=%q></a>\n### Shared Nested Schema `%s`\n\n", anchor, leaf)
		fmt.Fprintf(&sb, "The same object schema at %d places, written once: `%s`.\n\n", r.uses[sig], strings.Join(r.paths[sig], "`, `"))
		r.sections = append(r.sections, "")
		slot := len(r.sections) - 1
		r.lists(&sb, nt.Attributes, full, "")
		r.sections[slot] = sb.String()
		return anchor
	}
	anchor := "nestedatt--" + strings.ReplaceAll(full, ".", "--")
	if r.done[anchor] {
		return anchor
	}
	r.done[anchor] = true
	var sb strings.Builder
	fmt.Fprintf(&sb, "<a id=%q></a>\n### Nested Schema for `%s`\n\n", anchor, full)
	r.sections = append(r.sections, "")
	slot := len(r.sections) - 1
	r.lists(&sb, nt.Attributes, full, "")
	r.sections[slot] = sb.String()
	return anchor
}

func nestingName(mode string) string {
	switch mode {
	case "list":
		return "Attributes List"
	case "set":
		return "Attributes Set"
	case "map":
		return "Attributes Map"
	}
	return "Attributes"
}

// typeName renders a cty type as tfplugindocs does ("String", "List of String").
func typeName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "string":
			return "String"
		case "number":
			return "Number"
		case "bool":
			return "Boolean"
		case "dynamic":
			return "Dynamic"
		}
		return s
	}
	var pair []json.RawMessage
	if json.Unmarshal(raw, &pair) == nil && len(pair) == 2 {
		var kind string
		_ = json.Unmarshal(pair[0], &kind)
		switch kind {
		case "list", "set", "map":
			return strings.ToUpper(kind[:1]) + kind[1:] + " of " + typeName(pair[1])
		case "object":
			return "Object"
		}
	}
	return string(raw)
}

var (
	inPageLink = regexp.MustCompile(`\]\(#([^)]+)\)`)
	anchorID   = regexp.MustCompile(`<a id="([^"]+)"></a>`)
)

// Check reports every page under dir larger than maxBytes (the registry
// refuses pages of 500,000 bytes) and every in-page link without its anchor.
// It prints each page's size.
func Check(dir string, maxBytes int) ([]string, error) {
	var problems []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) > maxBytes {
			problems = append(problems, fmt.Sprintf("%s: %d bytes, over the limit of %d", p, len(b), maxBytes))
		}
		ids := map[string]bool{}
		for _, m := range anchorID.FindAllStringSubmatch(string(b), -1) {
			ids[m[1]] = true
		}
		for _, m := range inPageLink.FindAllStringSubmatch(string(b), -1) {
			if !ids[m[1]] && strings.HasPrefix(m[1], "nestedatt--") || !ids[m[1]] && strings.HasPrefix(m[1], "shared--") {
				problems = append(problems, fmt.Sprintf("%s: link to #%s has no anchor", p, m[1]))
			}
		}
		if strings.Contains(p, string(filepath.Separator)+"resources"+string(filepath.Separator)) {
			fmt.Printf("%s: %d bytes\n", p, len(b))
		}
		return nil
	})
	return problems, err
}
