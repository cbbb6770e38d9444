package provider

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// corpusDir is libvirt's own test XML, read in place (never copied into
// the repository): ../shared/corpus/libvirt-xml from the repository root.
const corpusDir = "../../../shared/corpus/libvirt-xml"

// corpusRecomputed lists, per corpus file, the attributes libvirt does not
// respell but recomputes or drops: they differ after a define and rightly
// stay differences (drift in state, a change in the plan).
var corpusRecomputed = map[string][]string{
	// the sum of the DIMMs replaces the memory written
	"domain/memory-hotplug-dimm.xml": {"current_memory", "memory"},
	// libvirt derives the target of a logical pool from the volume group;
	// sizes of a pool not started are 0
	"pool/pool-logical-create.xml": {"allocation", "available", "capacity", "target.path"},
	// newer than libvirt 9.0, which drops it (a loss, not a spelling)
	"network/hostdev-pf-driver-model.xml": {"forward.driver.model"},
}

// corpusDefaultsSetOnImport lists, per corpus file, the values libvirt
// leaves out because they are its default (xmlschema's leftOut): after an
// import the plan sets them once, as tofu accepts no other plan for a value
// the configuration sets and the state lacks.
var corpusDefaultsSetOnImport = map[string][]string{
	"network/isolated-network.xml": {"ipv6"},
	"pool/pool-dir-naming.xml":     {"target.permissions.group", "target.permissions.owner"},
	"pool/pool-dir.xml":            {"target.permissions.group", "target.permissions.owner"},
}

// corpusRefusedAtValidate lists the corpus documents the provider refuses at
// validate (xmlschema policy Status), with the status element that makes it:
// as a configuration they never reach libvirt. Any other refusal fails.
var corpusRefusedAtValidate = map[string]string{
	// block-job status, written by libvirt while a copy runs
	"domain/disk-mirror.xml": "devices.disks[0].mirror",
}

// TestAccNormalForm_corpus defines every document of libvirt's test corpus
// that this libvirtd accepts (under an nf- name, without its UUID, bridges
// renamed), reads it back and checks both directions of the normal-form
// rule on every value the document sets:
//   - apply: the state Reconcile keeps for the document as planned equals
//     the plan (else tofu reports "inconsistent result after apply");
//   - import: the plan of the document against the imported (libvirt's)
//     spelling changes nothing, but for the defaults libvirt leaves out
//     (corpusDefaultsSetOnImport).
//
// Only corpusRecomputed may differ. Documents libvirtd rejects (emulators,
// storage backends or machine types this host lacks) are counted, not
// failed.
func TestAccNormalForm_corpus(t *testing.T) {
	testAccPreCheck(t)
	l := testAccStorageConn(t)
	t.Run("domain", func(t *testing.T) {
		corpusRoundTrip(t, "domain", xmlschema.Domain(), func(d *libvirtxml.Domain, name string) { d.Name, d.UUID = name, "" },
			func(x string) (string, func(), error) {
				d, err := l.DomainDefineXML(x)
				if err != nil {
					return "", nil, err
				}
				// keep the NVRAM file: a corpus document names a system file
				// there (/usr/share/OVMF/OVMF_VARS.fd), which the Nvram flag deletes
				undefine := func() { _ = l.DomainUndefineFlags(d, libvirt.DomainUndefineKeepNvram) }
				live, err := l.DomainGetXMLDesc(d, libvirt.DomainXMLInactive)
				return live, undefine, err
			})
	})
	t.Run("network", func(t *testing.T) {
		corpusRoundTrip(t, "network", xmlschema.Network(), func(n *libvirtxml.Network, name string) {
			n.Name, n.UUID = name, ""
			if n.Bridge != nil && n.Bridge.Name != "" {
				h := fnv.New32a()
				h.Write([]byte(name))
				n.Bridge.Name = fmt.Sprintf("nfbr%08x", h.Sum32()) // one per network, never virbr0
			}
		}, func(x string) (string, func(), error) {
			n, err := l.NetworkDefineXML(x)
			if err != nil {
				return "", nil, err
			}
			live, err := l.NetworkGetXMLDesc(n, uint32(libvirt.NetworkXMLInactive))
			return live, func() { _ = l.NetworkUndefine(n) }, err
		})
	})
	t.Run("pool", func(t *testing.T) {
		corpusRoundTrip(t, "pool", xmlschema.StoragePool(), func(p *libvirtxml.StoragePool, name string) { p.Name, p.UUID = name, "" },
			func(x string) (string, func(), error) {
				p, err := l.StoragePoolDefineXML(x, 0)
				if err != nil {
					return "", nil, err
				}
				live, err := l.StoragePoolGetXMLDesc(p, libvirt.StorageXMLInactive)
				return live, func() { _ = l.StoragePoolUndefine(p) }, err
			})
	})
}

// corpusDoc is a libvirtxml document type of the corpus.
type corpusDoc interface {
	Unmarshal(string) error
	Marshal() (string, error)
}

func corpusRoundTrip[T any, PT interface {
	*T
	corpusDoc
}](t *testing.T, kind string, model *xmlschema.Model[T], rename func(PT, string), define func(string) (string, func(), error)) {
	files, err := filepath.Glob(filepath.Join(corpusDir, kind, "*.xml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s corpus under %s (%v)", kind, corpusDir, err)
	}
	defined, rejected := 0, 0
	for _, f := range files {
		key := kind + "/" + filepath.Base(f)
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := PT(new(T))
		if err := doc.Unmarshal(string(src)); err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		rename(doc, "nf-c-"+strings.TrimSuffix(filepath.Base(f), ".xml"))
		x, err := doc.Marshal()
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		liveXML, undefine, err := define(x)
		if undefine != nil {
			undefine() // at once: two pools of one source conflict
		}
		if err != nil {
			if undefine == nil {
				rejected++
				t.Logf("%s: libvirtd rejects it here: %v", key, err)
				continue
			}
			t.Errorf("%s: %v", key, err)
			continue
		}
		defined++
		live := PT(new(T))
		if err := live.Unmarshal(liveXML); err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		written, read := model.ToValues((*T)(doc)), model.ToValues((*T)(live))
		if err := model.Validate(written); err != nil {
			if want, ok := corpusRefusedAtValidate[key]; !ok || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: refused at validate: %v", key, err)
			} else {
				t.Logf("%s: refused at validate, as listed: %v", key, err)
			}
			continue
		}
		if want, ok := corpusRefusedAtValidate[key]; ok {
			t.Errorf("%s: listed as refused at validate (%s), but validate accepts it", key, want)
		}
		allowed := map[string]bool{}
		for _, a := range corpusRecomputed[key] {
			allowed[a] = true
		}
		// apply: state after apply must hold every value the plan (the document) set
		if d, m := leafDiffs(written, model.Reconcile(written, read), allowed); len(d)+len(m) > 0 {
			t.Errorf("%s: after apply, state differs from the plan at %s", key, strings.Join(append(d, m...), "; "))
		}
		// import: the document as configuration against libvirt's spelling plans nothing
		planned, _ := model.PlanUpdate(written, read, nil, false)
		d, m := leafDiffs(read, planned, allowed)
		if len(d) > 0 {
			t.Errorf("%s: after import, the plan changes %s", key, strings.Join(d, "; "))
		}
		// what the plan sets where libvirt has nothing: only the defaults
		// libvirt leaves out (set once after an import, see leftOut)
		defaults := map[string]bool{}
		for a := range allowed {
			defaults[a] = true
		}
		for _, a := range corpusDefaultsSetOnImport[key] {
			defaults[a] = true
		}
		if d, a := leafDiffs(planned, read, defaults); len(d)+len(a) > 0 {
			t.Errorf("%s: after import, the plan sets %s", key, strings.Join(append(d, a...), "; "))
		}
		if len(m) > 0 {
			// list elements libvirt added that the document does not list:
			// a matter of adoption, not of spelling
			t.Logf("%s: after import, the plan leaves out %d values libvirt added (%s)", key, len(m), m[0])
		}
	}
	t.Logf("%s corpus: %d defined and checked, %d rejected by this libvirtd", kind, defined, rejected)
	if defined == 0 {
		t.Errorf("no %s of the corpus could be defined: nothing was checked", kind)
	}
}

// leafDiffs lists the leaves set in want that got holds otherwise, as
// "path: want -> got", leaving out the attributes (dotted, without list
// indexes) in allowed. Leaves got has no place for (a list of another
// length) are listed apart in missing.
func leafDiffs(want, got map[string]tftypes.Value, allowed map[string]bool) (diffs, missing []string) {
	for name, w := range want {
		_ = tftypes.Walk(w, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
			if v.IsNull() || !v.IsKnown() || v.Type().Is(tftypes.Object{}) || v.Type().Is(tftypes.List{}) {
				return true, nil
			}
			dotted := name + attrPathDotted(p)
			if allowed[dotted] {
				return false, nil
			}
			g, _, err := tftypes.WalkAttributePath(got[name], p)
			gv, ok := g.(tftypes.Value)
			switch {
			case err != nil || !ok:
				missing = append(missing, dotted)
			case !gv.Equal(v):
				diffs = append(diffs, fmt.Sprintf("%s: %s -> %s", dotted, leafText(v), leafText(gv)))
			}
			return true, nil
		})
	}
	sort.Strings(diffs)
	sort.Strings(missing)
	return diffs, missing
}

func leafText(v tftypes.Value) string {
	if v.IsNull() {
		return "null"
	}
	var s string
	if v.Type().Is(tftypes.String) && v.As(&s) == nil {
		return fmt.Sprintf("%q", s)
	}
	return v.String()
}

func attrPathDotted(p *tftypes.AttributePath) string {
	var sb strings.Builder
	for _, s := range p.Steps() {
		if a, ok := s.(tftypes.AttributeName); ok {
			sb.WriteString("." + string(a))
		}
	}
	return sb.String()
}
