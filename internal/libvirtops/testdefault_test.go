package libvirtops

import (
	"context"
	"errors"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// The adapters against libvirtd's test driver (test:///default): a real
// daemon and the real RPC calls, on in-memory objects. Every object these
// tests make is named pkg-... and removed again. (The test driver has no
// secrets and no network filters: those adapters run in the acceptance
// tests of their resources.)

func testDefault(t *testing.T) (context.Context, *libvirtconn.Client) {
	t.Helper()
	c, err := libvirtconn.New("test:///default")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	if _, err := c.Libvirt(ctx); err != nil {
		t.Fatalf("test:///default through libvirtd: %v", err)
	}
	return ctx, c
}

func TestNetworkAdapter(t *testing.T) {
	ctx, c := testDefault(t)
	nets := Networks(c)
	if uuid, err := nets.NameTaken(ctx, "default"); err != nil || uuid == "" {
		t.Fatalf("the test driver's network default: uuid %q, %v", uuid, err)
	}
	doc := &libvirtxml.Network{Name: "pkg-net", UUID: NewUUID(), Bridge: &libvirtxml.NetworkBridge{Name: "pkgbr0"},
		IPs: []libvirtxml.NetworkIP{{Address: "10.251.0.1", Prefix: 24, DHCP: &libvirtxml.NetworkDHCP{
			Ranges: []libvirtxml.NetworkDHCPRange{{Start: "10.251.0.100", End: "10.251.0.200"}}}}}}
	t.Cleanup(func() { _ = nets.Remove(ctx, doc.UUID) })
	if uuid, err := nets.NameTaken(ctx, doc.Name); err != nil || uuid != "" {
		t.Fatalf("before create: name taken by %q, %v", uuid, err)
	}
	if err := nets.Create(ctx, doc, true, true); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{doc.Name, doc.UUID} {
		if got, err := nets.LookUp(ctx, id); err != nil || got != doc.UUID {
			t.Errorf("LookUp(%s) = %q, %v; want %s", id, got, err, doc.UUID)
		}
	}
	if got, err := nets.Find(ctx, map[string]string{"name": doc.Name}); err != nil || got != doc.UUID {
		t.Errorf("Find(name) = %q, %v", got, err)
	}
	// (the test driver reads no inactive network XML: Fetch, UpdateLive
	// and RedefineAndRestart run in the network's acceptance tests)
	if err := nets.SetAutostart(ctx, doc.UUID, false); err != nil {
		t.Fatal(err)
	}
	if users, err := nets.SetRunning(ctx, doc.UUID, false); err != nil || len(users) != 0 {
		t.Fatalf("stop: users %v, %v", users, err)
	}
	if users, err := nets.SetRunning(ctx, doc.UUID, true); err != nil || len(users) != 0 {
		t.Fatalf("start: users %v, %v", users, err)
	}
	if users, err := nets.Delete(ctx, doc.UUID); err != nil || len(users) != 0 {
		t.Fatalf("delete: %v, %v", users, err)
	}
	if _, err := nets.LookUp(ctx, doc.UUID); !libvirtconn.IsNotFound(err) {
		t.Errorf("after delete: %v, want not found", err)
	}
}

func TestPoolAndVolumeAdapters(t *testing.T) {
	ctx, c := testDefault(t)
	pools, vols := Pools(c), Volumes(c)
	doc := &libvirtxml.StoragePool{Type: "dir", Name: "pkg-pool", UUID: NewUUID(),
		Target: &libvirtxml.StoragePoolTarget{Path: "/pkg-pool"}}
	t.Cleanup(func() { _, _ = pools.Delete(ctx, doc.UUID, true, func(string) bool { return false }) })
	uuid, err := pools.Create(ctx, doc, PoolSteps{Start: true}, true)
	if err != nil || uuid != doc.UUID {
		t.Fatalf("create: %q, %v", uuid, err)
	}
	if taken, err := pools.NameTaken(ctx, doc.Name); err != nil || taken != doc.UUID {
		t.Errorf("NameTaken: %q, %v", taken, err)
	}
	st, err := pools.Fetch(ctx, uuid)
	if err != nil || !st.Autostart || st.Doc.Name != doc.Name {
		t.Fatalf("Fetch: %+v, %v", st, err)
	}
	if err := pools.SetAutostart(ctx, uuid, false); err != nil {
		t.Fatal(err)
	}
	if st, _ = pools.Fetch(ctx, uuid); st.Autostart {
		t.Error("autostart still set")
	}

	vol := &libvirtxml.StorageVolume{Name: "pkg-vol.img", Capacity: &libvirtxml.StorageVolumeSize{Unit: "bytes", Value: 1 << 20}}
	if exists, err := vols.Exists(ctx, doc.Name, vol.Name); err != nil || exists {
		t.Fatalf("before create: exists %v, %v", exists, err)
	}
	key, unknown, err := vols.CreateEmpty(ctx, doc.Name, vol)
	if err != nil || unknown || key == "" {
		t.Fatalf("CreateEmpty: %q, unknown %v, %v", key, unknown, err)
	}
	for _, id := range []string{key, doc.Name + "/" + vol.Name} {
		if got, err := vols.LookUp(ctx, id); err != nil || got != key {
			t.Errorf("LookUp(%s) = %q, %v", id, got, err)
		}
	}
	if got, err := vols.Find(ctx, map[string]string{"pool": doc.Name, "name": vol.Name}); err != nil || got != key {
		t.Errorf("Find = %q, %v", got, err)
	}
	vs, err := vols.Fetch(ctx, key)
	if err != nil || vs.Pool != doc.Name || vs.Path == "" {
		t.Fatalf("Fetch: %+v, %v", vs, err)
	}
	// (the test driver cannot resize: Grow runs in TestAccVolume_liveResize)
	// a pool that holds volumes is refused, naming them, unless delete_volumes
	if _, err := pools.Delete(ctx, uuid, false, func(string) bool { return false }); err == nil || !strings.Contains(err.Error(), vol.Name) {
		t.Errorf("deleting a pool with a volume: %v, want a refusal naming %s", err, vol.Name)
	}
	if err := vols.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if removed, err := vols.RemoveIfPresent(ctx, doc.Name, vol.Name); err != nil || removed {
		t.Errorf("RemoveIfPresent after delete: %v, %v", removed, err)
	}
	if _, err := pools.Delete(ctx, uuid, false, func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	if _, err := pools.Fetch(ctx, uuid); !libvirtconn.IsNotFound(err) {
		t.Errorf("pool after delete: %v", err)
	}
}

func TestDomainAndSnapshotAdapters(t *testing.T) {
	ctx, c := testDefault(t)
	doms, snaps := Domains(c), Snapshots(c)
	doc := &libvirtxml.Domain{Type: "test", Name: "pkg-dom", UUID: NewUUID(),
		Memory: &libvirtxml.DomainMemory{Value: 64, Unit: "MiB"}, VCPU: &libvirtxml.DomainVCPU{Value: 1},
		OS: &libvirtxml.DomainOS{Type: &libvirtxml.DomainOSType{Type: "hvm"}},
		Devices: &libvirtxml.DomainDeviceList{Interfaces: []libvirtxml.DomainInterface{{
			MAC:    &libvirtxml.DomainInterfaceMAC{Address: "52:54:00:25:10:99"},
			Source: &libvirtxml.DomainInterfaceSource{Network: &libvirtxml.DomainInterfaceSourceNetwork{Network: "default"}},
		}}}}
	opts := DomainOptions{Running: true}
	t.Cleanup(func() { _ = doms.Delete(ctx, doc.UUID, DomainOptions{}) })
	id, err := doms.DefineAndStart(ctx, doc, opts)
	if err != nil || id != doc.UUID {
		t.Fatalf("DefineAndStart: %q, %v", id, err)
	}
	st, err := doms.Fetch(ctx, id)
	if err != nil || !st.Active || st.Doc.ID != nil || st.Live.Name != doc.Name {
		t.Fatalf("Fetch: %+v, %v; want active, the persistent definition without id", st, err)
	}
	if uuid, name, err := doms.Identify(ctx, doc.Name); err != nil || uuid != id || name != doc.Name {
		t.Errorf("Identify: %s %s %v", uuid, name, err)
	}
	macs, err := doms.MACs(ctx)
	if err != nil || macs["52:54:00:25:10:99"].UUID != id {
		t.Errorf("MACs: %v, %v", macs["52:54:00:25:10:99"], err)
	}
	if users, err := Networks(c).Delete(ctx, mustLookUp(t, ctx, Networks(c).LookUp, "default")); err != nil || len(users) == 0 || users[0] != doc.Name {
		t.Errorf("deleting the network a running domain uses: users %v, %v; want it refused naming %s", users, err, doc.Name)
	}

	// vCPU and memory changes apply to the running domain, a rename restarts it
	newDoc := *st.Doc
	newDoc.Name = "pkg-dom2"
	if NeedsRestart(st.Doc, &newDoc) {
		t.Error("a rename alone planned a restart for other changes (Update renames by itself)")
	}
	bigger := newDoc
	bigger.Memory = &libvirtxml.DomainMemory{Value: 128, Unit: "MiB"}
	if !NeedsRestart(st.Doc, &bigger) {
		t.Error("a new maximum memory takes effect at the next boot: NeedsRestart should say so")
	}
	if err := doms.Update(ctx, id, st.Doc, &newDoc, DomainOptions{Running: true, Autostart: true}); err != nil {
		t.Fatal(err)
	}
	if st, err = doms.Fetch(ctx, id); err != nil || st.Doc.Name != "pkg-dom2" || !st.Active || !st.Autostart {
		t.Fatalf("after rename: %+v, %v", st, err)
	}

	snap := &libvirtxml.DomainSnapshot{Name: "pkg-snap", Description: "first"}
	if err := snaps.Create(ctx, id, snap, SnapshotFlags{}); err != nil {
		t.Fatal(err)
	}
	sid := SnapshotID(id, snap.Name)
	if got, err := snaps.LookUp(ctx, "pkg-dom2/pkg-snap"); err != nil || got != sid {
		t.Errorf("snapshot LookUp: %q, %v", got, err)
	}
	if err := snaps.SetDescription(ctx, sid, "second"); err != nil {
		t.Fatal(err)
	}
	if sd, err := snaps.Fetch(ctx, sid); err != nil || sd.Description != "second" {
		t.Errorf("snapshot after SetDescription: %+v, %v", sd, err)
	}
	if _, err := snaps.Delete(ctx, sid); err != nil {
		t.Fatal(err)
	}
	if exists, err := snaps.Exists(ctx, id, snap.Name); err != nil || exists {
		t.Errorf("snapshot after delete: %v, %v", exists, err)
	}

	if err := doms.Delete(ctx, id, DomainOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := doms.Fetch(ctx, id); !libvirtconn.IsNotFound(err) {
		t.Errorf("domain after delete: %v", err)
	}
}

func mustLookUp(t *testing.T, ctx context.Context, lookUp func(context.Context, string) (string, error), id string) string {
	t.Helper()
	uuid, err := lookUp(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return uuid
}

func TestNodeAdapter(t *testing.T) {
	ctx, c := testDefault(t)
	info, err := Nodes(c).Info(ctx)
	if err != nil || info.CPUs <= 0 || info.MemoryKiB == 0 || !strings.Contains(info.CapsXML, "<capabilities>") {
		t.Fatalf("Info: %+v, %v", info, err)
	}
	if _, err := Nodes(c).Devices(ctx, "no-such-capability"); err == nil {
		t.Error("an unknown capability was accepted")
	}
	if _, err := Nodes(c).DeviceXML(ctx, "pkg-no-such-device"); !libvirtconn.IsNotFound(err) && err == nil {
		t.Errorf("DeviceXML of a missing device: %v", err)
	}
}

func TestUUIDAndIDs(t *testing.T) {
	u := NewUUID()
	p, err := ParseUUID(u)
	if err != nil || UUIDString(p) != u || u[14] != '4' {
		t.Fatalf("NewUUID %s: parse %v, round trip %s", u, err, UUIDString(p))
	}
	if _, err := ParseUUID("pkg-not-a-uuid"); err == nil {
		t.Error("a name parsed as a UUID")
	}
	if d, n, err := ParseSnapshotID(u + "/s1"); err != nil || d != u || n != "s1" {
		t.Errorf("ParseSnapshotID: %s %s %v", d, n, err)
	}
	for _, bad := range []string{"s1", u + "/", "web1/s1"} {
		if _, _, err := ParseSnapshotID(bad); err == nil {
			t.Errorf("%q parsed as a snapshot id", bad)
		}
	}
	if AddressesNotYet(errors.New("plain")) {
		t.Error("a plain error taken for 'no addresses yet'")
	}
}
