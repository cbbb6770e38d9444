// Package provider implements the virtxml/libvirt provider: its configuration
// and the resources and data sources it serves. It speaks Terraform (schemas,
// plans, diagnostics, state, the host routing); every libvirt call is
// internal/libvirtops's, and this package does not import go-libvirt.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/virtxml/terraform-provider-libvirt/internal/actions"
	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/listing"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// DefaultURI is used when neither the uri attribute nor LIBVIRT_DEFAULT_URI is set.
const DefaultURI = hostroute.DefaultURI

var (
	_ provider.Provider            = (*libvirtProvider)(nil)
	_ provider.ProviderWithActions = (*libvirtProvider)(nil)
)

type libvirtProvider struct {
	version string
	// hosts are the configured connections (hosts.go), kept for the
	// protocol server's own planning path (ProtocolServer).
	hosts *hostroute.Set
	// tree is the tree resources' protocol layer, which holds their
	// identities; the list resources ask it (internal/listing)
	tree *treeresource.Server
}

// New returns the provider factory used by main and by acceptance tests.
// providerTypeName prefixes every resource and data source type name.
const providerTypeName = "libvirt"

func New(version string) func() provider.Provider {
	return func() provider.Provider { return &libvirtProvider{version: version} }
}

type providerModel struct {
	URI   types.String `tfsdk:"uri"`
	Hosts types.Map    `tfsdk:"hosts"`
}

func (p *libvirtProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = providerTypeName
	resp.Version = p.version
}

func (p *libvirtProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = providerSchema()
}

func providerSchema() schema.Schema {
	return schema.Schema{
		Description: "Manages libvirt domains, storage pools and volumes, networks and cloud-init disks through libvirtd's RPC protocol.",
		Attributes: map[string]schema.Attribute{
			"uri": schema.StringAttribute{
				Optional: true,
				Description: "libvirt connection URI, for example qemu:///system, qemu:///session, test:///default, " +
					"qemu+ssh://user@host:22/system?keyfile=...&known_hosts=..., qemu+tcp://host/system, qemu+tls://host/system?pkipath=..., " +
					"or any of these with ?socket=/path to name the remote socket. " +
					"Defaults to LIBVIRT_DEFAULT_URI, else " + DefaultURI + ". SSH host keys are verified against known_hosts unless no_verify=1. " +
					"Resources without `host` live here.",
			},
			"hosts": hostroute.SchemaAttribute(),
		},
	}
}

// Configure builds the connection clients: the uri's and one per further
// host (hosts.go). A connection is opened on first use, so a uri unknown at
// plan time (computed from another resource) does not fail the plan.
func (p *libvirtProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// With a computed uri, resources on it plan without talking to libvirt.
	hosts := hostroute.NewSet(ctx, cfg.URI.ValueString(), !cfg.URI.IsUnknown(), cfg.Hosts, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	p.hosts = hosts
	resp.ResourceData = hosts
	resp.DataSourceData = hosts
	resp.ActionData = hosts
	resp.ListResourceData = hosts
}

// Actions lists every action the provider serves (internal/actions).
func (p *libvirtProvider) Actions(context.Context) []func() action.Action {
	return actions.All()
}

// Resources lists every resource the provider serves.
func (p *libvirtProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewCloudinitDiskResource,
		NewCombustionResource,
		NewDomainResource,
		NewDomainSnapshotResource,
		NewIgnitionResource,
		NewNetworkResource,
		NewNWFilterResource,
		NewPoolResource,
		NewSecretResource,
		NewVolumeResource,
	}
}

// TreeDataSources lists the lookup data sources: read-only views of the tree
// resources of the same name, served by internal/treeresource's protocol
// layer instead of the framework (see newProtocolServer).
func (p *libvirtProvider) TreeDataSources() []treeresource.DataSource {
	return []treeresource.DataSource{
		NewDomainDataSource(),
		NewNetworkDataSource(),
		NewPoolDataSource(),
		NewVolumeDataSource(),
	}
}

// DataSources lists the data sources the framework serves; the lookup data
// sources are in TreeDataSources.
func (p *libvirtProvider) DataSources(context.Context) []func() datasource.DataSource {
	return append([]func() datasource.DataSource{
		NewDomainInterfaceAddressesDataSource,
		NewNodeDeviceInfoDataSource,
		NewNodeDevicesDataSource,
		NewNodeInfoDataSource,
	}, p.listing().DataSources()...)
}

// ListResources lists the list resources (internal/listing), one per tree
// resource.
func (p *libvirtProvider) ListResources(context.Context) []func() list.ListResource {
	return p.listing().ListResources()
}

// listing is what internal/listing needs of the provider: the tree
// resources by kind, and the protocol layer with their schemas and
// identities.
func (p *libvirtProvider) listing() listing.Catalog {
	return listing.Catalog{
		TypeName: providerTypeName,
		Resources: map[string]func() resource.Resource{
			"domain":          NewDomainResource,
			"domain_snapshot": NewDomainSnapshotResource,
			"network":         NewNetworkResource,
			"nwfilter":        NewNWFilterResource,
			"pool":            NewPoolResource,
			"secret":          NewSecretResource,
			"volume":          NewVolumeResource,
		},
		Tree: func() *treeresource.Server { return p.tree },
	}
}
