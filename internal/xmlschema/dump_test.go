package xmlschema

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"
)

func dumpTree(n *node, prefix string, sb *strings.Builder) {
	for _, c := range n.children {
		p := joinPath(prefix, c.name)
		extra := ""
		if c.choice != nil {
			var vs []string
			for _, m := range c.choice.members {
				vs = append(vs, m.value)
			}
			extra = " choice=" + strings.Join(vs, ",")
			if c.choice.defaultMember != nil {
				extra += " default=" + c.choice.defaultMember.value
			}
		}
		fmt.Fprintf(sb, "%s %d %s%s\n", p, c.kind, c.xmlPath, extra)
		dumpTree(c, p, sb)
	}
}

func TestDumpDomain(t *testing.T) {
	if os.Getenv("XMLSCHEMA_DUMP") == "" {
		t.Skip("set XMLSCHEMA_DUMP=file to write the tree")
	}
	d, err := buildModel[libvirtxml.Domain](Policy{Root: "domain", DefaultUnit: "KiB"})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	dumpTree(d.root, "", &sb)
	os.WriteFile(os.Getenv("XMLSCHEMA_DUMP"), []byte(sb.String()), 0o644)
}
