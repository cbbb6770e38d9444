// Package listing lists the objects of a host for adopting them: the list
// resources (Terraform 1.14 and later: `list` blocks, `terraform query`)
// and the plural data sources (libvirt_domains, ...: the OpenTofu path),
// one of each per tree resource, with the same filters. Its one job is
// selecting objects and handing out their identity and adoption view; what
// a kind's object looks like comes from the provider's resources
// (Catalog), the listing itself from internal/libvirtops.
package listing

import (
	"context"
	"fmt"
	"path"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	fwpath "github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// List resources (Terraform 1.14 and later: `list` blocks in *.tfquery.hcl,
// `terraform query`): one per tree resource, of the same name, listing the
// objects of that kind on one host with the filters below. Each result is
// the object's identity (treeresource's, identity.go) and, with
// include_resource, the value the resource would hold after importing it
// (its adoption view: what libvirt fills in by itself left out, see
// internal/provider/shorten.go).

// Catalog is what the provider hands the listing.
type Catalog struct {
	// TypeName is the provider's type name, the prefix of every type name.
	TypeName string
	// Resources are the tree resources by kind ("domain", "volume", ...):
	// an object's read through its resource gives its adoption view.
	Resources map[string]func() resource.Resource
	// Tree is the tree resources' protocol layer, which holds their
	// schemas and identities; nil until the protocol server is built.
	Tree func() *treeresource.Server
}

// listFilter holds the list block's configuration.
type listFilter struct {
	host, name, state, pool, domain string
}

// filterDef is a filter of a kind besides host and name; the list resource
// and the plural data source both offer it.
type filterDef struct {
	description string
	oneOf       []string // the values allowed; nil: any
}

// listKind is one kind of object a list resource lists.
type listKind struct {
	name string // the type name after the provider's
	noun string
	// extra are the kind's own filters (state, pool, domain)
	extra map[string]filterDef
	list  func(ctx context.Context, c *libvirtconn.Client, f listFilter) ([]libvirtops.Listed, error)
	// identity are the identity attributes a listed object gives
	identity func(o libvirtops.Listed) map[string]tftypes.Value
	// newResource is the resource of the same name, whose read gives the
	// object's value for include_resource (Catalog.Resources)
	newResource func() resource.Resource
}

func uuidListed(o libvirtops.Listed) map[string]tftypes.Value {
	return map[string]tftypes.Value{"id": treeresource.StringValue(o.ID)}
}

// kinds are the kinds listed, with their resources from the catalog.
func (c Catalog) kinds() []listKind {
	all := func(f func(context.Context, *libvirtconn.Client) ([]libvirtops.Listed, error)) func(context.Context, *libvirtconn.Client, listFilter) ([]libvirtops.Listed, error) {
		return func(ctx context.Context, c *libvirtconn.Client, _ listFilter) ([]libvirtops.Listed, error) {
			return f(ctx, c)
		}
	}
	kinds := []listKind{
		{name: "domain", noun: "domains", identity: uuidListed,
			extra: map[string]filterDef{"state": {oneOf: []string{"running", "stopped"},
				description: "Only domains in this state: `running` (running or paused) or `stopped` (defined, not running)."}},
			list: func(ctx context.Context, c *libvirtconn.Client, f listFilter) ([]libvirtops.Listed, error) {
				doms, err := libvirtops.ListDomains(ctx, c)
				if err != nil || f.state == "" {
					return doms, err
				}
				out := doms[:0]
				for _, d := range doms {
					if d.Running == (f.state == "running") {
						out = append(out, d)
					}
				}
				return out, nil
			}},
		{name: "network", noun: "networks", identity: uuidListed, list: all(libvirtops.ListNetworks)},
		{name: "pool", noun: "storage pools", identity: uuidListed, list: all(libvirtops.ListPools)},
		{name: "nwfilter", noun: "network filters", identity: uuidListed, list: all(libvirtops.ListNWFilters)},
		{name: "secret", noun: "secrets", identity: uuidListed, list: all(libvirtops.ListSecrets)},
		{name: "volume", noun: "volumes",
			identity: func(o libvirtops.Listed) map[string]tftypes.Value {
				return map[string]tftypes.Value{"id": treeresource.StringValue(o.ID), "pool": treeresource.StringValue(o.Pool), "name": treeresource.StringValue(o.Name)}
			},
			extra: map[string]filterDef{"pool": {
				description: "Only the volumes of this storage pool (it must be running). Unset: the volumes of every running pool."}},
			list: func(ctx context.Context, c *libvirtconn.Client, f listFilter) ([]libvirtops.Listed, error) {
				return libvirtops.ListVolumes(ctx, c, f.pool)
			}},
		{name: "domain_snapshot", noun: "domain snapshots", identity: uuidListed,
			extra: map[string]filterDef{"domain": {
				description: "Only the snapshots of this domain (UUID or name). Unset: the snapshots of every domain."}},
			list: func(ctx context.Context, c *libvirtconn.Client, f listFilter) ([]libvirtops.Listed, error) {
				return libvirtops.ListSnapshots(ctx, c, f.domain)
			}},
	}
	for i := range kinds {
		kinds[i].newResource = c.Resources[kinds[i].name]
	}
	return kinds
}

// filters are the kind's filters, host and name included.
func (k listKind) filters() map[string]filterDef {
	out := map[string]filterDef{
		hostroute.Attr: {description: "The host to list: a key of the provider's `hosts`. Unset: the provider's `uri`."},
		"name": {description: "Only objects whose name matches this shell pattern (`*`, `?`, `[a-z]`; Go's path.Match), e.g. `web-*`. " +
			"A volume's name is its name in its pool; a secret's is its usage id."},
	}
	for n, f := range k.extra {
		out[n] = f
	}
	return out
}

// selected lists the kind's objects the filter selects.
func (k listKind) selected(ctx context.Context, c *libvirtconn.Client, f listFilter) ([]libvirtops.Listed, error) {
	found, err := k.list(ctx, c, f)
	if err != nil || f.name == "" {
		return found, err
	}
	out := found[:0]
	for _, o := range found {
		if ok, _ := path.Match(f.name, o.Name); ok {
			out = append(out, o)
		}
	}
	return out, nil
}

// ListResources are the list resources, one per tree resource.
func (c Catalog) ListResources() []func() list.ListResource {
	var out []func() list.ListResource
	for _, k := range c.kinds() {
		out = append(out, func() list.ListResource { return &treeList{kind: k, catalog: c} })
	}
	return out
}

// treeList is the list resource of one kind.
type treeList struct {
	kind    listKind
	catalog Catalog
	hosts   *hostroute.Set
}

var (
	_ list.ListResourceWithConfigure    = (*treeList)(nil)
	_ list.ListResourceWithRawV6Schemas = (*treeList)(nil)
)

func (l *treeList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + l.kind.name
}

func (l *treeList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	attrs := map[string]lschema.Attribute{}
	for n, f := range l.kind.filters() {
		a := lschema.StringAttribute{Optional: true, Description: f.description}
		if f.oneOf != nil {
			a.Validators = []validator.String{stringvalidator.OneOf(f.oneOf...)}
		}
		attrs[n] = a
	}
	resp.Schema = lschema.Schema{
		Description: fmt.Sprintf("Lists the %s of a host, for `terraform query`: each one's identity, and with `include_resource` its short configuration.", l.kind.noun),
		Attributes:  attrs,
	}
}

func (l *treeList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.hosts = hostsOf(req.ProviderData, &resp.Diagnostics)
}

// hostsOf is the provider's host set, which the provider hands the list
// resources and the data sources as their data (nil before it is
// configured).
func hostsOf(providerData any, diags *diag.Diagnostics) *hostroute.Set {
	if providerData == nil {
		return nil
	}
	hosts, ok := providerData.(*hostroute.Set)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *hostroute.Set, got %T; this is a provider bug", providerData))
	}
	return hosts
}

// RawV6Schemas hands the framework the resource's protocol schema and
// identity schema: the tree resources' identity lives in the protocol layer
// (treeresource/identity.go), not in the framework.
func (l *treeList) RawV6Schemas(ctx context.Context, _ list.RawV6SchemaRequest, resp *list.RawV6SchemaResponse) {
	tree := l.catalog.Tree()
	if tree == nil {
		return
	}
	typeName := l.catalog.TypeName + "_" + l.kind.name
	if sch := tree.ResourceSchema(typeName); sch != nil {
		resp.ProtoV6Schema = sch
		resp.ProtoV6IdentitySchema = tree.IdentitySchema(typeName)
	}
}

func (l *treeList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var f listFilter
	diags := readFilter(ctx, l.kind, req.Config.GetAttribute, &f)
	var c *libvirtconn.Client
	if !diags.HasError() {
		c = hostClient(l.hosts, f.host, &diags)
	}
	var found []libvirtops.Listed
	if !diags.HasError() {
		var err error
		if found, err = l.kind.selected(ctx, c, f); err != nil {
			diags.AddError("Cannot list "+l.kind.noun, err.Error())
		}
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	typeName := l.catalog.TypeName + "_" + l.kind.name
	// the object type once: the domain's schema has thousands of attributes
	objType := req.ResourceSchema.Type().TerraformType(ctx)
	stream.Results = func(push func(list.ListResult) bool) {
		n := int64(0)
		for _, o := range found {
			if req.Limit > 0 && n >= req.Limit {
				return
			}
			n++
			if !push(l.result(ctx, req, objType, c, typeName, f.host, o)) {
				return
			}
		}
	}
}

// readFilter reads the filters of a list block or a plural data source
// (get is its configuration's GetAttribute).
func readFilter(ctx context.Context, k listKind, get func(context.Context, fwpath.Path, any) diag.Diagnostics, f *listFilter) diag.Diagnostics {
	var diags diag.Diagnostics
	dst := map[string]*string{hostroute.Attr: &f.host, "name": &f.name, "state": &f.state, "pool": &f.pool, "domain": &f.domain}
	for name := range k.filters() {
		var v *string
		diags.Append(get(ctx, fwpath.Root(name), &v)...)
		if v != nil {
			*dst[name] = *v
		}
	}
	if f.name != "" {
		if _, err := path.Match(f.name, ""); err != nil {
			diags.AddAttributeError(fwpath.Root("name"), "Invalid name pattern",
				fmt.Sprintf("name = %q is not a shell pattern: %v (allowed: text with *, ? and [...] classes)", f.name, err))
		}
	}
	return diags
}

// hostClient is the connection of the host a list block or data source
// names.
func hostClient(hosts *hostroute.Set, host string, diags *diag.Diagnostics) *libvirtconn.Client {
	if hosts == nil {
		diags.AddError("libvirt provider not configured", "listing needs the provider's connection")
		return nil
	}
	ref := hostroute.Ref{Null: true}
	if host != "" {
		ref = hostroute.Ref{Name: host}
	}
	c, err := hosts.Client(ref)
	if err != nil {
		diags.AddAttributeError(fwpath.Root(hostroute.Attr), "Unknown host", err.Error())
		return nil
	}
	if c == nil {
		diags.AddError("libvirt provider not configured", "the provider's uri is not known")
	}
	return c
}

// adoption reads the object's adoption view (treeresource.Base.Adoption)
// through the kind's resource; found is false when it vanished meanwhile.
func (k listKind) adoption(ctx context.Context, c *libvirtconn.Client, objType tftypes.Type, host string, o libvirtops.Listed) (tftypes.Value, bool, error) {
	r, ok := k.newResource().(readBacker)
	if !ok {
		return tftypes.Value{}, false, fmt.Errorf("libvirt_%s has no adoption view; this is a provider bug", k.name)
	}
	var cresp resource.ConfigureResponse
	r.Configure(ctx, resource.ConfigureRequest{ProviderData: c}, &cresp)
	if cresp.Diagnostics.HasError() {
		return tftypes.Value{}, false, fmt.Errorf("%v", cresp.Diagnostics)
	}
	v, found, err := r.Adoption(ctx, objType, o.ID)
	if err != nil || !found {
		return v, found, err
	}
	st := treeresource.ObjectAttrs(v)
	if host != "" {
		st[hostroute.Attr] = treeresource.StringValue(host)
	}
	return tftypes.NewValue(objType, st), true, nil
}

// readBacker is what every tree resource's base gives: the object's value
// for configuration generation (treeresource.Base.Adoption).
type readBacker interface {
	resource.ResourceWithConfigure
	Adoption(ctx context.Context, t tftypes.Type, id string) (tftypes.Value, bool, error)
}

// result is the list result of one object.
func (l *treeList) result(ctx context.Context, req list.ListRequest, objType tftypes.Type, c *libvirtconn.Client, typeName, host string, o libvirtops.Listed) list.ListResult {
	// not req.NewListResult: it derives the object type from the schema for
	// every result
	res := list.ListResult{DisplayName: o.Name}
	if o.Pool != "" {
		res.DisplayName = o.Pool + "/" + o.Name
	} else if o.Domain != "" {
		res.DisplayName = o.Domain + "/" + o.Name
	}
	attrs := l.kind.identity(o)
	if host != "" {
		attrs[hostroute.Attr] = treeresource.StringValue(host)
	}
	var id *tftypes.Value
	if tree := l.catalog.Tree(); tree != nil {
		id = tree.IdentityOfAttrs(typeName, attrs)
	}
	if id == nil {
		res.Diagnostics.AddError("No identity", fmt.Sprintf("%s %s: this is a provider bug", typeName, o.Name))
		return res
	}
	res.Identity = &tfsdk.ResourceIdentity{Schema: req.ResourceIdentitySchema, Raw: *id}
	if !req.IncludeResource {
		return res
	}
	v, found, err := l.kind.adoption(ctx, c, objType, host, o)
	switch {
	case err != nil:
		res.Diagnostics.AddError("Cannot read "+o.Name, err.Error())
		return res
	case !found:
		res.Diagnostics.AddWarning("Gone while listing", fmt.Sprintf("%s %s vanished while it was listed", typeName, o.Name))
		return res
	}
	res.Resource = &tfsdk.Resource{Schema: req.ResourceSchema, Raw: v}
	return res
}
