package provider

import (
	"context"

	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// NewPoolDataSource returns data.libvirt_pool: an existing storage pool
// found by name or UUID, read-only.
func NewPoolDataSource() treeresource.DataSource {
	return treeresource.NewDataSource(treeresource.DataSpec[libvirtxml.StoragePool]{
		Name:  "pool",
		Model: xmlschema.StoragePool(),
		Description: "Looks up an existing libvirt storage pool by `name` or `uuid` (exactly one) and exposes its definition " +
			"as libvirt reports it (target path, capacity, allocation, available space...) with the same attributes as the " +
			"`libvirt_pool` resource, all read-only, plus its autostart flag. For pools this configuration does not manage " +
			"(such as `default`): use `name` as a `libvirt_volume`'s `pool`, or `target.path` to place files. A pool that " +
			"does not exist is an error naming what was looked up.",
		Ways: [][]string{{"name"}, {"uuid"}},
		Args: map[string]treeresource.Arg{
			"name": {Description: "Name of the pool to look up (`<name>`). Give this or `uuid`; when `uuid` is given, it is the pool's name."},
			"uuid": {Description: "UUID of the pool to look up (`<uuid>`). Give this or `name`; when `name` is given, it is the pool's UUID.",
				Check: treeresource.CheckUUID},
		},
		Reported: map[string]string{
			"id":        "The pool's UUID.",
			"autostart": "Whether the pool starts when libvirtd starts.",
		},
		Find: func(ctx context.Context, c *libvirtconn.Client, by map[string]string) (string, error) {
			return libvirtops.Pools(c).Find(ctx, by)
		},

		Fetch: fetchPool,
	})
}
