package listing

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/virtxml/terraform-provider-libvirt/internal/hclgen"
	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

// The plural data sources (libvirt_domains, libvirt_networks, ...): the
// OpenTofu path to adopting a host, which has neither list resources nor
// import by identity. Each lists the objects of its kind with the list
// resource's filters and gives, per object, the import id, and for all of
// them `configuration`: resource blocks in the short form `terraform query`
// generates, plus one import block each, ready to be written to a file.

// hostObjectsDataSource lists the objects of one kind.
type hostObjectsDataSource struct {
	kind    listKind
	catalog Catalog
	hosts   *hostroute.Set
}

// DataSources are the plural data sources, one per list resource.
func (c Catalog) DataSources() []func() datasource.DataSource {
	var out []func() datasource.DataSource
	for _, k := range c.kinds() {
		out = append(out, func() datasource.DataSource { return &hostObjectsDataSource{kind: k, catalog: c} })
	}
	return out
}

var objectAttrTypes = map[string]attr.Type{
	"id": types.StringType, "name": types.StringType, "resource_name": types.StringType,
	"running": types.BoolType, "pool": types.StringType, "domain": types.StringType,
}

func (d *hostObjectsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + d.kind.name + "s"
}

func (d *hostObjectsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]dschema.Attribute{}
	for n, f := range d.kind.filters() {
		a := dschema.StringAttribute{Optional: true, Description: f.description}
		if f.oneOf != nil {
			a.Validators = []validator.String{stringvalidator.OneOf(f.oneOf...)}
		}
		attrs[n] = a
	}
	attrs["objects"] = dschema.ListNestedAttribute{Computed: true,
		Description: "The " + d.kind.noun + " found, ordered by name.",
		NestedObject: dschema.NestedAttributeObject{Attributes: map[string]dschema.Attribute{
			"id":            dschema.StringAttribute{Computed: true, Description: "The import id (`HOST/ID` when `host` is set): the `id` of an import block."},
			"name":          dschema.StringAttribute{Computed: true, Description: "The object's name (a volume's name in its pool, a secret's usage id)."},
			"resource_name": dschema.StringAttribute{Computed: true, Description: "The resource name `configuration` gives the object."},
			"running":       dschema.BoolAttribute{Computed: true, Description: "Domains: whether it runs. Null for other kinds."},
			"pool":          dschema.StringAttribute{Computed: true, Description: "Volumes: the pool."},
			"domain":        dschema.StringAttribute{Computed: true, Description: "Snapshots: the domain's name."},
		}},
	}
	attrs["configuration"] = dschema.StringAttribute{Computed: true,
		Description: "A `resource` block per object in the short form (what libvirt fills in by itself left out; the first plan keeps it) " +
			"and an `import` block per object: write it to a file (`tofu output -raw ...`) to adopt them all."}
	resp.Schema = dschema.Schema{
		Description: fmt.Sprintf("Lists the %s of a host, with their import ids and the configuration that adopts them (the OpenTofu path of the guide \"Adopting a whole host\").", d.kind.noun),
		Attributes:  attrs,
	}
}

func (d *hostObjectsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.hosts = hostsOf(req.ProviderData, &resp.Diagnostics)
}

func (d *hostObjectsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var f listFilter
	resp.Diagnostics.Append(readFilter(ctx, d.kind, req.Config.GetAttribute, &f)...)
	if resp.Diagnostics.HasError() {
		return
	}
	c := hostClient(d.hosts, f.host, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	found, err := d.kind.selected(ctx, c, f)
	if err != nil {
		resp.Diagnostics.AddError("Cannot list "+d.kind.noun, err.Error())
		return
	}
	typeName := d.catalog.TypeName + "_" + d.kind.name
	sch, err := d.resourceSchema(ctx, typeName)
	if err != nil {
		resp.Diagnostics.AddError("Cannot list "+d.kind.noun, err.Error())
		return
	}
	conf, objects, err := d.configuration(ctx, c, sch, typeName, f.host, found)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read "+d.kind.noun, err.Error())
		return
	}
	state := req.Config.Raw.Copy()
	resp.State.Raw = state
	list, diags := types.ListValue(types.ObjectType{AttrTypes: objectAttrTypes}, objects)
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("objects"), list)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("configuration"), conf)...)
}

// resourceSchema is the protocol schema of the kind's resource (the
// configuration is written from it).
func (d *hostObjectsDataSource) resourceSchema(ctx context.Context, typeName string) (*tfprotov6.Schema, error) {
	tree := d.catalog.Tree()
	if tree == nil {
		return nil, fmt.Errorf("no protocol server; this is a provider bug")
	}
	resp, err := tree.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	sch := resp.ResourceSchemas[typeName]
	if sch == nil {
		return nil, fmt.Errorf("no schema for %s; this is a provider bug", typeName)
	}
	return sch, nil
}

// configuration writes the resource and import blocks of the objects and
// returns the objects attribute's elements.
func (d *hostObjectsDataSource) configuration(ctx context.Context, c *libvirtconn.Client, sch *tfprotov6.Schema, typeName, host string, found []libvirtops.Listed) (string, []attr.Value, error) {
	var b strings.Builder
	var objects []attr.Value
	used := map[string]bool{}
	for _, o := range found {
		label := o.Name
		if o.Pool != "" || o.Domain != "" {
			label = o.Pool + o.Domain + "_" + o.Name
		}
		name := hclgen.Name(label)
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s_%d", hclgen.Name(label), i)
		}
		used[name] = true
		v, ok, err := d.kind.adoption(ctx, c, sch.ValueType(), host, o)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", o.Name, err)
		}
		if !ok {
			continue // vanished while listed
		}
		importID := o.ID
		if host != "" {
			importID = host + "/" + o.ID
		}
		b.WriteString(hclgen.Resource(typeName, name, sch, v))
		fmt.Fprintf(&b, "\nimport {\n  to = %s.%s\n  id = %q\n}\n\n", typeName, name, importID)
		running := types.BoolNull()
		if d.kind.name == "domain" {
			running = types.BoolValue(o.Running)
		}
		obj, diags := types.ObjectValue(objectAttrTypes, map[string]attr.Value{
			"id": types.StringValue(importID), "name": types.StringValue(o.Name), "resource_name": types.StringValue(name),
			"running": running, "pool": optionalString(o.Pool), "domain": optionalString(o.Domain),
		})
		if diags.HasError() {
			return "", nil, fmt.Errorf("%v", diags)
		}
		objects = append(objects, obj)
	}
	return b.String(), objects, nil
}

func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
