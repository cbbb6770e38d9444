package libvirtops

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// The adapters the test driver lacks (secrets, network filters) against the
// test environment's libvirtd (LIBVIRT_TEST_URI, set by
// /var/cache/tfplv/env.sh), and what the test driver does not cover of the
// others. Objects on the real daemon are named tfpkg-... and removed again;
// a test without LIBVIRT_TEST_URI is skipped, and says so.

func testHost(t *testing.T) *libvirtconn.Client {
	t.Helper()
	uri := os.Getenv("LIBVIRT_TEST_URI")
	if uri == "" {
		t.Skip("LIBVIRT_TEST_URI not set: these adapters need a libvirtd with secrets and network filters (source /var/cache/tfplv/env.sh)")
	}
	c, err := libvirtconn.New(uri)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestSecretAdapter(t *testing.T) {
	c := testHost(t)
	ctx := t.Context()
	secrets := Secrets(c)
	usage := "tfpkg-secret-" + NewUUID()[:8]
	doc := &libvirtxml.Secret{UUID: NewUUID(), Ephemeral: "no", Private: "no",
		Usage: &libvirtxml.SecretUsage{Type: "ceph", Name: usage}}
	// t.Context() is cancelled before cleanups run
	t.Cleanup(func() { _ = secrets.Remove(context.Background(), doc.UUID) })

	if exists, err := secrets.Exists(ctx, doc.UUID); err != nil || exists {
		t.Fatalf("before create: exists %v, %v", exists, err)
	}
	if taken, err := secrets.UsageTaken(ctx, "ceph", usage); err != nil || taken != "" {
		t.Fatalf("before create: usage taken by %q, %v", taken, err)
	}
	if err := secrets.Create(ctx, doc, []byte("first"), true); err != nil {
		t.Fatal(err)
	}
	if exists, err := secrets.Exists(ctx, doc.UUID); err != nil || !exists {
		t.Errorf("after create: exists %v, %v", exists, err)
	}
	if taken, err := secrets.UsageTaken(ctx, "ceph", usage); err != nil || taken != doc.UUID {
		t.Errorf("usage %s taken by %q, %v; want %s", usage, taken, err, doc.UUID)
	}
	for _, id := range []string{doc.UUID, usage} {
		if got, err := secrets.LookUp(ctx, id); err != nil || got != doc.UUID {
			t.Errorf("LookUp(%s) = %q, %v; want %s", id, got, err, doc.UUID)
		}
	}
	if _, err := secrets.LookUp(ctx, "tfpkg-no-such-usage"); err == nil || !strings.Contains(err.Error(), "no secret has") {
		t.Errorf("LookUp of an unknown usage: %v, want an error saying no secret has it", err)
	}
	got, err := secrets.Fetch(ctx, doc.UUID)
	if err != nil || got.Usage == nil || got.Usage.Name != usage || got.UUID != doc.UUID {
		t.Fatalf("Fetch: %+v, %v", got, err)
	}
	if v, err := secrets.Value(ctx, doc.UUID); err != nil || !v.HasValue || v.Private || !bytes.Equal(v.Value, []byte("first")) {
		t.Errorf("Value: %+v, %v; want the value first", v, err)
	}

	// a new value without a redefinition; then a redefinition that keeps it
	if err := secrets.Update(ctx, doc.UUID, nil, []byte("second"), true); err != nil {
		t.Fatal(err)
	}
	redefined := *got
	redefined.Description = "tfpkg redefined"
	if err := secrets.Update(ctx, doc.UUID, &redefined, nil, false); err != nil {
		t.Fatal(err)
	}
	if v, err := secrets.Value(ctx, doc.UUID); err != nil || !bytes.Equal(v.Value, []byte("second")) {
		t.Errorf("Value after the redefinition: %+v, %v; want second (a redefinition keeps the value)", v, err)
	}
	if got, err := secrets.Fetch(ctx, doc.UUID); err != nil || got.Description != "tfpkg redefined" {
		t.Errorf("Fetch after the redefinition: %+v, %v", got, err)
	}

	if err := secrets.Remove(ctx, doc.UUID); err != nil {
		t.Fatal(err)
	}
	if err := secrets.Remove(ctx, doc.UUID); !libvirtconn.IsNotFound(err) {
		t.Errorf("removing it again: %v, want not found", err)
	}
	if _, err := secrets.Fetch(ctx, "not-a-uuid"); err == nil {
		t.Error("Fetch of an id that is no UUID succeeded")
	}
}

func TestNwfilterAdapter(t *testing.T) {
	c := testHost(t)
	ctx := t.Context()
	filters := Nwfilters(c)
	base := &libvirtxml.NWFilter{Name: "tfpkg-filter-base", UUID: NewUUID(), Chain: "root",
		Entries: []libvirtxml.NWFilterEntry{{Rule: &libvirtxml.NWFilterRule{Action: "accept", Direction: "out", Priority: 500}}}}
	user := &libvirtxml.NWFilter{Name: "tfpkg-filter-user", UUID: NewUUID(), Chain: "root",
		Entries: []libvirtxml.NWFilterEntry{{Ref: &libvirtxml.NWFilterRef{Filter: base.Name}}}}
	t.Cleanup(func() {
		_ = filters.Remove(context.Background(), user.UUID)
		_ = filters.Remove(context.Background(), base.UUID)
	})
	if taken, err := filters.NameTaken(ctx, base.Name); err != nil || taken != "" {
		t.Fatalf("before define: %s taken by %q, %v", base.Name, taken, err)
	}
	for _, f := range []*libvirtxml.NWFilter{base, user} {
		if err := filters.Define(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if taken, err := filters.NameTaken(ctx, base.Name); err != nil || taken != base.UUID {
		t.Errorf("after define: %s taken by %q, %v; want %s", base.Name, taken, err, base.UUID)
	}
	for _, id := range []string{base.Name, base.UUID} {
		if got, err := filters.LookUp(ctx, id); err != nil || got != base.UUID {
			t.Errorf("LookUp(%s) = %q, %v; want %s", id, got, err, base.UUID)
		}
	}
	got, err := filters.Fetch(ctx, base.UUID)
	if err != nil || got.Name != base.Name || got.Chain != "root" || len(got.Entries) != 1 || got.Entries[0].Rule == nil {
		t.Fatalf("Fetch: %+v, %v", got, err)
	}
	users, err := filters.Users(ctx, base.Name)
	if err != nil || len(users.Filters) != 1 || users.Filters[0] != user.Name || len(users.Domains) != 0 {
		t.Errorf("Users(%s) = %+v, %v; want the filter %s and no domain", base.Name, users, err, user.Name)
	}
	// libvirt lets a filter go that only other filters reference; Delete
	// names them
	users, undefineErr, err := filters.Delete(ctx, base.UUID)
	if err != nil || undefineErr != nil || len(users.Filters) != 1 {
		t.Errorf("Delete: users %+v, undefine %v, %v", users, undefineErr, err)
	}
	if _, err := filters.Fetch(ctx, base.UUID); !libvirtconn.IsNotFound(err) {
		t.Errorf("after delete: %v, want not found", err)
	}
}

// Lookups and removals that fail say so in libvirt's terms: not found.
func TestAdaptersNotFound(t *testing.T) {
	ctx, c := testDefault(t)
	missing := NewUUID()
	if _, err := Domains(c).Fetch(ctx, missing); !libvirtconn.IsNotFound(err) {
		t.Errorf("domain: %v", err)
	}
	if Domains(c).MayExist(ctx, missing) {
		t.Error("MayExist of a domain libvirt says it does not have")
	}
	if Domains(c).MayExist(ctx, "not-a-uuid") {
		t.Error("MayExist of an id that is no UUID")
	}
	if _, err := Domains(c).LiveDefinition(ctx, missing); !libvirtconn.IsNotFound(err) {
		t.Errorf("live definition: %v", err)
	}
	if _, err := Pools(c).Fetch(ctx, missing); !libvirtconn.IsNotFound(err) {
		t.Errorf("pool: %v", err)
	}
	if _, err := Networks(c).LookUp(ctx, "tfpkg-no-such-network"); !libvirtconn.IsNotFound(err) {
		t.Errorf("network by name: %v", err)
	}
	if _, err := Networks(c).Find(ctx, map[string]string{"uuid": "not-a-uuid"}); err == nil {
		t.Error("Find with a uuid that is no UUID succeeded")
	}
	if err := Networks(c).Remove(ctx, missing); !libvirtconn.IsNotFound(err) {
		t.Errorf("network remove: %v", err)
	}
	if err := Volumes(c).FindPool(ctx, "tfpkg-no-such-pool"); !libvirtconn.IsNotFound(err) {
		t.Errorf("FindPool: %v", err)
	}
	if err := Volumes(c).RemoveKey(ctx, "/tfpkg/no/such/volume"); !libvirtconn.IsNotFound(err) {
		t.Errorf("RemoveKey: %v", err)
	}
}

// A running domain's live definition, and the test driver's pool as
// Volumes sees it: free space and definition.
func TestDomainLiveDefinitionAndPoolFacts(t *testing.T) {
	ctx, c := testDefault(t)
	doms := Domains(c)
	id := mustLookUp(t, ctx, doms.LookUp, "test") // the test driver's running domain
	live, err := doms.LiveDefinition(ctx, id)
	if err != nil || live.Name != "test" || live.ID == nil {
		t.Fatalf("LiveDefinition: %+v, %v; want the running domain test with its id", live, err)
	}
	if !doms.MayExist(ctx, id) {
		t.Error("MayExist of an existing domain")
	}
	vols := Volumes(c)
	if err := vols.FindPool(ctx, "default-pool"); err != nil {
		t.Fatal(err)
	}
	free, err := vols.PoolFree(ctx, "default-pool")
	if err != nil || free == 0 {
		t.Errorf("PoolFree: %d, %v", free, err)
	}
	def, err := vols.PoolDefinition(ctx, "default-pool")
	if err != nil || def.Name != "default-pool" || def.Type != "dir" {
		t.Errorf("PoolDefinition: %+v, %v", def, err)
	}
}

// Grow resizes a volume no running domain uses through libvirt (the test
// driver cannot resize: this runs on the test environment's pool).
func TestVolumeGrow(t *testing.T) {
	c := testHost(t)
	ctx := t.Context()
	pool := os.Getenv("LIBVIRT_TEST_POOL")
	if pool == "" {
		t.Skip("LIBVIRT_TEST_POOL not set (source /var/cache/tfplv/env.sh)")
	}
	vols := Volumes(c)
	doc := &libvirtxml.StorageVolume{Name: "tfpkg-grow-" + NewUUID()[:8] + ".img",
		Capacity: &libvirtxml.StorageVolumeSize{Unit: "bytes", Value: 1 << 20},
		Target:   &libvirtxml.StorageVolumeTarget{Format: &libvirtxml.StorageVolumeTargetFormat{Type: "raw"}}}
	t.Cleanup(func() { _, _ = vols.RemoveIfPresent(context.Background(), pool, doc.Name) })
	key, _, err := vols.CreateEmpty(ctx, pool, doc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := vols.Fetch(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	live, err := vols.Grow(ctx, key, st.Path, 3<<20)
	if err != nil || len(live) != 0 {
		t.Fatalf("Grow: live %v, %v; want a resize through libvirt", live, err)
	}
	st, err = vols.Fetch(ctx, key)
	if err != nil || st.Doc.Capacity == nil || st.Doc.Capacity.Value != 3<<20 {
		t.Errorf("after Grow: capacity %+v, %v; want %d bytes", st.Doc.Capacity, err, 3<<20)
	}
	if info, err := os.Stat(st.Path); err == nil && info.Size() != 3<<20 {
		t.Errorf("the file %s has %d bytes, want %d", st.Path, info.Size(), 3<<20)
	}
}

// UpdateLive adds and removes DHCP hosts of a running network without
// restarting it.
func TestNetworkUpdateLive(t *testing.T) {
	ctx, c := testDefault(t)
	nets := Networks(c)
	doc := &libvirtxml.Network{Name: "tfpkg-live", UUID: NewUUID(), Bridge: &libvirtxml.NetworkBridge{Name: "tfpkgbr0"},
		IPs: []libvirtxml.NetworkIP{{Address: "10.252.7.1", Prefix: 24, DHCP: &libvirtxml.NetworkDHCP{
			Ranges: []libvirtxml.NetworkDHCPRange{{Start: "10.252.7.100", End: "10.252.7.200"}},
			Hosts:  []libvirtxml.NetworkDHCPHost{{MAC: "52:54:00:fb:07:0a", IP: "10.252.7.10", Name: "a"}}}}}}
	t.Cleanup(func() { _ = nets.Remove(ctx, doc.UUID) })
	if err := nets.Create(ctx, doc, true, false); err != nil {
		t.Fatal(err)
	}
	want := *doc
	want.IPs = []libvirtxml.NetworkIP{{Address: "10.252.7.1", Prefix: 24, DHCP: &libvirtxml.NetworkDHCP{
		Ranges: doc.IPs[0].DHCP.Ranges,
		Hosts:  []libvirtxml.NetworkDHCPHost{{MAC: "52:54:00:fb:07:0b", IP: "10.252.7.11", Name: "b"}}}}}
	if err := nets.UpdateLive(ctx, &want); err != nil {
		t.Fatal(err)
	}
	var live libvirtxml.Network
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		x, err := l.NetworkGetXMLDesc(libvirt.Network{Name: doc.Name, UUID: mustParseUUID(t, doc.UUID)}, 0)
		if err != nil {
			return err
		}
		return live.Unmarshal(x)
	})
	if err != nil {
		t.Fatal(err)
	}
	hosts := live.IPs[0].DHCP.Hosts
	if len(hosts) != 1 || hosts[0].MAC != "52:54:00:fb:07:0b" || hosts[0].IP != "10.252.7.11" {
		t.Errorf("DHCP hosts after UpdateLive: %+v; want only b", hosts)
	}
}

func mustParseUUID(t *testing.T, s string) libvirt.UUID {
	t.Helper()
	u, err := ParseUUID(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
