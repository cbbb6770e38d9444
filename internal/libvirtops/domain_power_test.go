package libvirtops

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"
)

// The power operations and the revert against libvirtd's test driver, on
// domains named tfact-... of their own.

func testPowerDomain(t *testing.T, d Domain, name string, acpi bool) string {
	t.Helper()
	doc := &libvirtxml.Domain{Type: "test", Name: name, UUID: NewUUID(),
		Memory: &libvirtxml.DomainMemory{Value: 64, Unit: "MiB"}, VCPU: &libvirtxml.DomainVCPU{Value: 1},
		OS: &libvirtxml.DomainOS{Type: &libvirtxml.DomainOSType{Type: "hvm"}},
		// the test driver opens no disk: the file need not exist
		Devices: &libvirtxml.DomainDeviceList{Disks: []libvirtxml.DomainDisk{{
			Device: "disk",
			Source: &libvirtxml.DomainDiskSource{File: &libvirtxml.DomainDiskSourceFile{File: "/nonexistent/" + name + ".img"}},
			Target: &libvirtxml.DomainDiskTarget{Dev: "vda", Bus: "virtio"},
		}}}}
	if acpi {
		doc.Features = &libvirtxml.DomainFeatureList{ACPI: &libvirtxml.DomainFeature{}}
	}
	ctx := t.Context()
	id, err := d.DefineAndStart(ctx, doc, DomainOptions{Running: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Domains(d.c).Delete(ctx, id, DomainOptions{}) })
	return id
}

func TestDomainPowerOperations(t *testing.T) {
	ctx, c := testDefault(t)
	d := Domains(c)
	id := testPowerDomain(t, d, "tfact-power", true)

	if err := d.Reboot(ctx, id, RebootACPI); err != nil {
		t.Errorf("Reboot: %v", err)
	}
	if err := d.Reset(ctx, id); err != nil {
		t.Errorf("Reset: %v", err)
	}
	var steps []string
	out, err := d.Shutdown(ctx, id, 5*time.Second, false, func(s string) { steps = append(steps, s) })
	if err != nil || out != StopGraceful {
		t.Errorf("Shutdown: %v, %v; want graceful", out, err)
	}
	if len(steps) != 1 || steps[0] != "shutdown requested; waiting up to 5s for the guest to stop" {
		t.Errorf("Shutdown reported %q", steps)
	}
	if st, err := d.State(ctx, id); err != nil || st != "shut off" {
		t.Errorf("State after Shutdown: %q, %v", st, err)
	}
	if out, err := d.Shutdown(ctx, id, 5*time.Second, false, nil); err != nil || out != StopWasOff {
		t.Errorf("Shutdown of a stopped domain: %v, %v", out, err)
	}
	for op, f := range map[string]func() error{
		"reboot": func() error { return d.Reboot(ctx, id, RebootDefault) },
		"reset":  func() error { return d.Reset(ctx, id) },
	} {
		if err := f(); err == nil || err.Error() != "cannot "+op+" the domain: it is shut off, not running" {
			t.Errorf("%s of a stopped domain: %v", op, err)
		}
	}
	if err := d.Reboot(ctx, id, "button"); err == nil {
		t.Error("Reboot accepted an unknown method")
	}
}

func TestDomainShutdownWithoutACPIForcesOff(t *testing.T) {
	ctx, c := testDefault(t)
	d := Domains(c)
	id := testPowerDomain(t, d, "tfact-power-noacpi", false)
	var steps []string
	start := time.Now()
	out, err := d.Shutdown(ctx, id, time.Minute, false, func(s string) { steps = append(steps, s) })
	if err != nil || out != StopForced {
		t.Fatalf("Shutdown: %v, %v; want forced", out, err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("a domain that cannot receive the request waited %v", time.Since(start))
	}
	if len(steps) != 1 || !strings.Contains(steps[0], "cannot be asked to shut down") {
		t.Errorf("Shutdown reported %q", steps)
	}
}

func TestSnapshotRevert(t *testing.T) {
	ctx, c := testDefault(t)
	d, s := Domains(c), Snapshots(c)
	id := testPowerDomain(t, d, "tfact-revert", true)
	if err := s.Create(ctx, id, &libvirtxml.DomainSnapshot{Name: "running"}, SnapshotFlags{}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Shutdown(ctx, id, 0, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Revert(ctx, id, "running", RevertAsSnapshot); err != nil {
		t.Fatalf("Revert: %v", err)
	}
	if st, _ := d.State(ctx, id); st != "running" {
		t.Errorf("after the revert to a snapshot of the running domain it is %s", st)
	}
	if err := s.Revert(ctx, id, "running", RevertPaused); err != nil {
		t.Fatalf("Revert paused: %v", err)
	}
	if st, _ := d.State(ctx, id); st != "paused" {
		t.Errorf("after the revert with state paused it is %s", st)
	}

	// An external snapshot, recorded without its overlay (redefine): refused
	// from its description on a libvirt before 9.9.
	var version uint64
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		version, err = l.ConnectGetLibVersion()
		if err != nil {
			return err
		}
		dom, _ := domainRef(id)
		domXML, err := l.DomainGetXMLDesc(dom, libvirt.DomainXMLInactive)
		if err != nil {
			return err
		}
		_, err = l.DomainSnapshotCreateXML(dom, `<domainsnapshot><name>ext</name><state>disk-snapshot</state>
<creationTime>1700000000</creationTime><memory snapshot='no'/>
<disks><disk name='vda' snapshot='external' type='file'><source file='/nonexistent.qcow2'/></disk></disks>`+
			domXML+`</domainsnapshot>`, uint32(libvirt.DomainSnapshotCreateRedefine))
		return err
	})
	if err != nil {
		t.Fatalf("redefining an external snapshot: %v", err)
	}
	err = s.Revert(ctx, id, "ext", RevertAsSnapshot)
	if version < externalRevertSince && !errors.Is(err, ErrExternalRevert) {
		t.Errorf("libvirt %d: revert to an external snapshot: %v, want ErrExternalRevert", version, err)
	}
}
