package xmlschema

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"libvirt.org/go/libvirtxml"
)

// TestDomainSnapshotPolicy: the snapshot schema is one attribute per engine
// node, and the skips keep it small: the embedded domain definitions alone
// would add thousands of attributes.
func TestDomainSnapshotPolicy(t *testing.T) {
	m := DomainSnapshot()
	if got := schemaAttributeCount(m.Attributes()); got != m.Count() {
		t.Errorf("the schema has %d attributes, the engine tree %d nodes", got, m.Count())
	}
	for _, name := range []string{"domain", "inactive_domain", "cookie", "active", "state", "creation_time", "parent"} {
		if _, ok := m.Attributes()[name]; ok {
			t.Errorf("%q is output only and must be skipped", name)
		}
	}
	if !m.Attributes()["name"].IsRequired() {
		t.Error("name must be required")
	}
	full := DomainSnapshotPolicy
	full.Skip = map[string]string{}
	unskipped, err := buildModel[libvirtxml.DomainSnapshot](full)
	if err != nil {
		t.Fatal(err)
	}
	if unskipped.Count() < 50*m.Count() {
		t.Errorf("without skips %d attributes, with %d: expected the skips to remove the embedded domains", unskipped.Count(), m.Count())
	}
	t.Logf("domain snapshot: %d attributes (%d without the policy's skips)", m.Count(), unskipped.Count())
}

// TestDomainSnapshotComputedList: a computed path may end at a list: the
// disks libvirt fills in when the configuration leaves them out are stored
// whole after create (planned unknown), and kept on refresh.
func TestDomainSnapshotComputedList(t *testing.T) {
	m := DomainSnapshot()
	live := m.ToValues(&libvirtxml.DomainSnapshot{
		Name:   "s1",
		Memory: &libvirtxml.DomainSnapshotMemory{Snapshot: "no"},
		Disks: &libvirtxml.DomainSnapshotDisks{Disks: []libvirtxml.DomainSnapshotDisk{
			{Name: "vda", Snapshot: "internal"}, {Name: "vdb", Snapshot: "no"},
		}},
	})
	config := map[string]tftypes.Value{}
	for name, ty := range m.AttributeTypes() {
		config[name] = tftypes.NewValue(ty, nil)
	}
	config["name"] = tftypes.NewValue(tftypes.String, "s1")
	planned := m.PlanComputed(config, config)
	for _, name := range []string{"disks", "memory"} {
		if planned[name].IsKnown() {
			t.Errorf("%s: planned %v, want unknown (libvirt chooses it)", name, planned[name])
		}
	}
	got := m.Reconcile(planned, live)
	if !got["disks"].Equal(live["disks"]) || !got["memory"].Equal(live["memory"]) {
		t.Errorf("after create: disks %v memory %v, want libvirt's %v %v", got["disks"], got["memory"], live["disks"], live["memory"])
	}
	if again := m.Reconcile(got, live); !again["disks"].Equal(live["disks"]) {
		t.Errorf("on refresh: disks %v, want %v", again["disks"], live["disks"])
	}
}
