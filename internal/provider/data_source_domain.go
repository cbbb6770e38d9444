package provider

import (
	"context"

	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// NewDomainDataSource returns data.libvirt_domain: an existing domain found
// by name or UUID, read-only.
func NewDomainDataSource() treeresource.DataSource {
	return treeresource.NewDataSource(domainDataSpec())
}

func domainDataSpec() treeresource.DataSpec[libvirtxml.Domain] {
	return treeresource.DataSpec[libvirtxml.Domain]{
		Name:  "domain",
		Model: xmlschema.Domain(),
		Description: "Looks up an existing libvirt domain (virtual machine) by `name` or `uuid` (exactly one) and exposes its " +
			"persistent definition (what `virsh dumpxml --inactive` shows: memory, vCPUs, disks, interfaces with their MAC " +
			"addresses...) with the same attributes as the `libvirt_domain` resource, all read-only, plus whether it runs, " +
			"its autostart flag and its graphical console URLs. For domains this configuration does not manage. Guest IP " +
			"addresses are not part of the definition: see the `libvirt_domain_interface_addresses` data source. A domain " +
			"that does not exist is an error naming what was looked up.",
		Ways: [][]string{{"name"}, {"uuid"}},
		Args: map[string]treeresource.Arg{
			"name": {Description: "Name of the domain to look up (`<name>`). Give this or `uuid`; when `uuid` is given, it is the domain's name."},
			"uuid": {Description: "UUID of the domain to look up (`<uuid>`). Give this or `name`; when `name` is given, it is the domain's UUID.",
				Check: treeresource.CheckUUID},
		},
		Reported: map[string]string{
			"id":            "The domain's UUID.",
			attrRunning:     "Whether the domain is running (or paused) now.",
			attrAutostart:   "Whether the domain starts when libvirtd starts.",
			attrConsoleURLs: "Graphical console URLs of the running domain, read from its live definition (vnc://host:port, spice://host:port; host is the connection's host); empty when it is not running.",
		},
		Find: func(ctx context.Context, c *libvirtconn.Client, by map[string]string) (string, error) {
			return libvirtops.Domains(c).Find(ctx, by)
		},

		Fetch: fetchDomain,
	}
}
