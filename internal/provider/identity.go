package provider

import (
	"fmt"
	"strings"

	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// The resource identities (Terraform 1.12 and later: `import { identity =
// {...} }`, and what list resources return), one place for all of them.
// Each also has `host` (treeresource adds it).

// uuidIdentity is the identity of an object libvirt names by UUID.
func uuidIdentity(noun string) *treeresource.Identity {
	return &treeresource.Identity{Attrs: []treeresource.IdentityAttr{{
		Name:              "uuid",
		Description:       "The " + noun + "'s UUID.",
		RequiredForImport: true,
		Attr:              "id",
	}}}
}

// volumeIdentity: a volume is found by its pool and name, or by its key.
func volumeIdentity() *treeresource.Identity {
	return &treeresource.Identity{
		Attrs: []treeresource.IdentityAttr{
			{Name: "pool", Description: "The name of the volume's storage pool (with `name`).", Attr: "pool"},
			{Name: "name", Description: "The volume's name in its pool (with `pool`).", Attr: "name"},
			{Name: "key", Description: "The volume's key (usually its path); enough on its own.", Attr: "id"},
		},
		ImportID: func(vals map[string]string) (string, error) {
			if key, ok := vals["key"]; ok {
				return key, nil
			}
			pool, okPool := vals["pool"]
			name, okName := vals["name"]
			if !okPool || !okName {
				return "", fmt.Errorf("identity.key, or both identity.pool and identity.name, are required")
			}
			return pool + "/" + name, nil
		},
	}
}

// snapshotIdentity: a snapshot is its domain's UUID and its name (the
// resource id "DOMAIN-UUID/NAME").
func snapshotIdentity() *treeresource.Identity {
	return &treeresource.Identity{
		Attrs: []treeresource.IdentityAttr{
			{Name: "domain", Description: "The UUID (or, on import, the name) of the snapshot's domain.", RequiredForImport: true, Attr: "id",
				Part: func(id string) string { d, _, _ := strings.Cut(id, "/"); return d }},
			{Name: "name", Description: "The snapshot's name.", RequiredForImport: true, Attr: "id",
				Part: func(id string) string { _, n, _ := strings.Cut(id, "/"); return n }},
		},
		ImportID: func(vals map[string]string) (string, error) {
			domain, okDomain := vals["domain"]
			name, okName := vals["name"]
			if !okDomain || !okName {
				return "", fmt.Errorf("identity.domain and identity.name are required")
			}
			return domain + "/" + name, nil
		},
	}
}
