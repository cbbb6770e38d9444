package provider

import (
	"context"

	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// NewNetworkDataSource returns data.libvirt_network: an existing network
// found by name or UUID, read-only.
func NewNetworkDataSource() treeresource.DataSource {
	return treeresource.NewDataSource(treeresource.DataSpec[libvirtxml.Network]{
		Name:  "network",
		Model: xmlschema.Network(),
		Description: "Looks up an existing libvirt network by `name` or `uuid` (exactly one) and exposes its persistent " +
			"definition with the same attributes as the `libvirt_network` resource, all read-only, plus whether it runs and " +
			"starts with libvirtd. For networks this configuration does not manage (created with virsh, by another " +
			"configuration or by the distribution, such as `default`). A network that does not exist is an error naming " +
			"what was looked up.",
		Ways: [][]string{{"name"}, {"uuid"}},
		Args: map[string]treeresource.Arg{
			"name": {Description: "Name of the network to look up (`<name>`). Give this or `uuid`; when `uuid` is given, it is the network's name."},
			"uuid": {Description: "UUID of the network to look up (`<uuid>`). Give this or `name`; when `name` is given, it is the network's UUID.",
				Check: treeresource.CheckUUID},
		},
		Reported: map[string]string{
			"id":        "The network's UUID.",
			"autostart": "Whether the network starts when libvirtd starts.",
			"running":   "Whether the network is started.",
		},
		Find: func(ctx context.Context, c *libvirtconn.Client, by map[string]string) (string, error) {
			return libvirtops.Networks(c).Find(ctx, by)
		},

		Fetch: fetchNetwork,
	})
}
