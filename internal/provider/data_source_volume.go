package provider

import (
	"context"

	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// NewVolumeDataSource returns data.libvirt_volume: an existing volume found
// by pool and name, or by key, read-only.
func NewVolumeDataSource() treeresource.DataSource {
	return treeresource.NewDataSource(treeresource.DataSpec[libvirtxml.StorageVolume]{
		Name:  "volume",
		Model: xmlschema.StorageVolume(),
		Description: "Looks up an existing libvirt storage volume by `pool` and `name`, or by `key` (exactly one of the two " +
			"ways), and exposes its definition as libvirt reports it (capacity, allocation, format, backing store...) with the " +
			"same attributes as the `libvirt_volume` resource, all read-only, plus its `path`. For volumes this configuration " +
			"does not manage, such as a base image uploaded once: use `path` for a domain disk or `key` as another volume's " +
			"`backing_store.path`. A volume that does not exist is an error naming what was looked up.",
		Ways: [][]string{{"pool", "name"}, {"key"}},
		Args: map[string]treeresource.Arg{
			"pool": {Description: "Name of the storage pool holding the volume; give it with `name`. When `key` is given, the pool the volume is in."},
			"name": {Description: "Name of the volume in `pool` (`<name>`); give it with `pool`. When `key` is given, the volume's name."},
			"key":  {Description: "Key of the volume to look up (`<key>`; its path for file-based pools). Give this, or `pool` and `name`; when they are given, the volume's key."},
		},
		Reported: map[string]string{
			"id":   "The volume's key.",
			"path": "Path of the volume on the libvirt host (the target path), for use in domain disks.",
		},
		Find: func(ctx context.Context, c *libvirtconn.Client, by map[string]string) (string, error) {
			return libvirtops.Volumes(c).Find(ctx, by)
		},

		Fetch: fetchVolume,
	})
}
