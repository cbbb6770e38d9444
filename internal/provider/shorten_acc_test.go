package provider

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"
)

// The shortening rules against the real libvirtd (make test-adopt-host):
// each object is defined without the values a rule leaves out; libvirt's
// definition read back has them (libvirt fills them in by itself), and
// Shorten removes them from it again. A rule whose value libvirt does not
// fill in fails here.

const shortPrefix = "tfshort-"

// shortCase is one definition: the XML (without the values), the values
// libvirt's definition must show, and what Shorten must leave of them.
type shortCase struct {
	name      string
	xml       string
	filled    []string // regexps the definition read back matches
	shortened []string // regexps the shortened definition no longer matches
}

func TestAccAdoptHost_libvirtFillsIn(t *testing.T) {
	testAccPreCheck(t)
	dir := t.TempDir()
	poolDir := filepath.Join("/var/tmp", shortPrefix+"pool")
	cleanup := func() {
		for _, d := range []string{"short-disks", "short-tpm"} {
			_, _ = virsh("undefine", shortPrefix+d, "--nvram", "--tpm")
		}
		_, _ = virsh("net-undefine", shortPrefix+"net")
		_, _ = virsh("vol-delete", shortPrefix+"vol.qcow2", "--pool", shortPrefix+"pool")
		_, _ = virsh("pool-destroy", shortPrefix+"pool")
		_, _ = virsh("pool-undefine", shortPrefix+"pool")
		_ = os.RemoveAll(poolDir)
	}
	cleanup()
	t.Cleanup(cleanup)

	domains := []shortCase{{
		name: "short-disks",
		xml: `<domain type='qemu'><name>tfshort-short-disks</name><memory>65536</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='q35'>hvm</type></os>
  <devices>
    <disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='/var/tmp/tfshort-none.qcow2'/><target dev='vda'/></disk>
    <disk type='file' device='cdrom'><driver name='qemu' type='raw'/><target dev='sda' bus='sata'/></disk>
  </devices></domain>`,
		filled:    []string{`<memory unit="KiB">65536</memory>`, `<target dev="vda" bus="virtio">`, `(?s)device="cdrom".*<readonly>`},
		shortened: []string{`bus="virtio"`, `<readonly>`},
	}, {
		name: "short-tpm",
		xml: `<domain type='qemu'><name>tfshort-short-tpm</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='q35'>hvm</type></os>
  <devices><tpm model='tpm-crb'><backend type='emulator'/></tpm></devices></domain>`,
		filled:    []string{`<backend type="emulator" version="2.0">`},
		shortened: []string{`version=`},
	}}
	for _, c := range domains {
		f := filepath.Join(dir, c.name+".xml")
		mustWrite(t, f, c.xml)
		mustVirsh(t, "define", f)
		var doc libvirtxml.Domain
		checkShortened(t, c, mustVirsh(t, "dumpxml", "--inactive", shortPrefix+c.name), &doc,
			func() { (&domainResource{}).Shorten(&doc) }, doc.Marshal)
	}

	net := shortCase{
		name:      "net",
		xml:       `<network><name>tfshort-net</name><forward mode='nat'/><ip address='10.231.98.1' netmask='255.255.255.0'/></network>`,
		filled:    []string{`<bridge name="virbr[0-9]+" stp="on" delay="0">`, `<mac address="52:54:00:`},
		shortened: []string{`<bridge`, `<mac`},
	}
	f := filepath.Join(dir, "net.xml")
	mustWrite(t, f, net.xml)
	mustVirsh(t, "net-define", f)
	var netDoc libvirtxml.Network
	checkShortened(t, net, mustVirsh(t, "net-dumpxml", "--inactive", shortPrefix+"net"), &netDoc,
		func() { (&networkResource{}).Shorten(&netDoc) }, netDoc.Marshal)

	// a pool reports its sizes; a volume's key and path are the pool's
	// path and the name whatever the definition says
	mustVirsh(t, "pool-define-as", shortPrefix+"pool", "dir", "--target", poolDir)
	mustVirsh(t, "pool-build", shortPrefix+"pool")
	mustVirsh(t, "pool-start", shortPrefix+"pool")
	pool := shortCase{
		name:      "pool",
		filled:    []string{`<capacity unit="bytes">[0-9]+</capacity>`, `<allocation unit="bytes">`, `<available unit="bytes">`},
		shortened: []string{`<capacity`, `<allocation`, `<available`},
	}
	var poolDoc libvirtxml.StoragePool
	checkShortened(t, pool, mustVirsh(t, "pool-dumpxml", "--inactive", shortPrefix+"pool"), &poolDoc,
		func() { (&poolResource{}).Shorten(&poolDoc) }, poolDoc.Marshal)

	vol := shortCase{
		name: "vol",
		xml: `<volume><name>tfshort-vol.qcow2</name><key>elsewhere</key><capacity unit='bytes'>8388608</capacity>
  <target><path>/elsewhere/tfshort-vol.qcow2</path><format type='qcow2'/></target></volume>`,
		filled: []string{
			`<key>` + regexp.QuoteMeta(poolDir) + `/tfshort-vol.qcow2</key>`,
			`<path>` + regexp.QuoteMeta(poolDir) + `/tfshort-vol.qcow2</path>`,
			`<allocation unit="bytes">`, `<physical unit="bytes">`,
		},
		shortened: []string{`<key>`, `<path>`, `<allocation`, `<physical`},
	}
	f = filepath.Join(dir, "vol.xml")
	mustWrite(t, f, vol.xml)
	mustVirsh(t, "vol-create", shortPrefix+"pool", f)
	var volDoc libvirtxml.StorageVolume
	checkShortened(t, vol, mustVirsh(t, "vol-dumpxml", "--pool", shortPrefix+"pool", shortPrefix+"vol.qcow2"), &volDoc,
		func() { (&volumeResource{}).Shorten(&volDoc) }, volDoc.Marshal)
}

// checkShortened parses libvirt's definition into doc (re-marshalled, so
// that the regexps see one spelling), checks that it has the filled values,
// shortens it and checks that they are gone.
func checkShortened[T any](t *testing.T, c shortCase, defined string, doc *T, shorten func(), marshal func() (string, error)) {
	t.Helper()
	if err := xml.Unmarshal([]byte(defined), doc); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	before, err := marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range c.filled {
		if !regexp.MustCompile(re).MatchString(before) {
			t.Errorf("%s: libvirt did not fill in %s:\n%s", c.name, re, before)
		}
	}
	shorten()
	after, err := marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range c.shortened {
		if regexp.MustCompile(re).MatchString(after) {
			t.Errorf("%s: the shortened definition still has %s:\n%s", c.name, re, after)
		}
	}
	if strings.TrimSpace(after) == "" {
		t.Errorf("%s: nothing left", c.name)
	}
}
