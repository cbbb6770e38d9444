package xmlschema

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// schemaAttributeCount counts the attributes of a framework schema tree,
// nested ones included: an account independent of the engine's own node
// tree.
func schemaAttributeCount(attrs map[string]schema.Attribute) int {
	n := 0
	for _, a := range attrs {
		n++
		switch a := a.(type) {
		case schema.SingleNestedAttribute:
			n += schemaAttributeCount(a.Attributes)
		case schema.ListNestedAttribute:
			n += schemaAttributeCount(a.NestedObject.Attributes)
		}
	}
	return n
}

// TestModelCounts: every engine node becomes exactly one schema attribute,
// and each document type has the top-level attributes its policy names.
func TestModelCounts(t *testing.T) {
	type model interface {
		Count() int
		Attributes() map[string]schema.Attribute
	}
	for name, m := range map[string]model{"domain": Domain(), "network": Network(), "pool": StoragePool(), "volume": StorageVolume()} {
		got := schemaAttributeCount(m.Attributes())
		if got != m.Count() {
			t.Errorf("%s: the schema has %d attributes, the engine tree %d nodes", name, got, m.Count())
		}
		t.Logf("%s: %d attributes", name, got)
	}
	for policy, attrs := range map[*Policy]map[string]schema.Attribute{
		&DomainPolicy: Domain().Attributes(), &NetworkPolicy: Network().Attributes(),
		&StoragePoolPolicy: StoragePool().Attributes(), &StorageVolumePolicy: StorageVolume().Attributes(),
	} {
		for _, req := range policy.Required {
			if a, ok := attrs[req]; !ok || !a.IsRequired() {
				t.Errorf("%s: policy requires %q, the schema has it required=%v", policy.Root, req, ok && a.IsRequired())
			}
		}
	}
}
