package libvirtops

import "testing"

// The listings against the test driver, whose default host has one running
// domain "test", the network "default" and the pool "default-pool".
func TestListings(t *testing.T) {
	ctx, c := testDefault(t)
	doms, err := ListDomains(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range doms {
		if d.Name == "test" {
			found = true
			if !d.Running {
				t.Errorf("domain test is listed as stopped")
			}
			if _, err := ParseUUID(d.ID); err != nil {
				t.Errorf("domain test's id %q is not a UUID: %v", d.ID, err)
			}
		}
	}
	if !found {
		t.Errorf("ListDomains = %+v, want the domain test", doms)
	}
	nets, err := ListNetworks(ctx, c)
	if err != nil || len(nets) == 0 || nets[0].Name != "default" {
		t.Errorf("ListNetworks = %+v, %v; want the network default", nets, err)
	}
	pools, err := ListPools(ctx, c)
	if err != nil || len(pools) == 0 || pools[0].Name != "default-pool" {
		t.Errorf("ListPools = %+v, %v; want the pool default-pool", pools, err)
	}
	if _, err := ListVolumes(ctx, c, "default-pool"); err != nil {
		t.Errorf("ListVolumes(default-pool): %v", err)
	}
	if _, err := ListVolumes(ctx, c, "no-such-pool"); err == nil {
		t.Error("ListVolumes of a pool that does not exist: no error")
	}
	snaps, err := ListSnapshots(ctx, c, "test")
	if err != nil {
		t.Errorf("ListSnapshots(test): %v", err)
	}
	for _, s := range snaps {
		if s.Domain != "test" {
			t.Errorf("snapshot %+v of another domain", s)
		}
	}
}
