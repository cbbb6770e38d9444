package treeresource

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// Lookup data sources: a tree resource's document and reported attributes,
// read-only, for an object found by name, UUID or key that the
// configuration does not own. They are served by this protocol layer and not
// declared to the framework: their schema is the resource's, with every
// attribute made computed (derived once, in GetProviderSchema, from the
// framework's protocol schema of the resource: the tree is never described
// twice), and their read is one lookup, one fetch and one conversion.

// DataSpec describes one lookup data source. Its type name is the tree
// resource's of the same Name.
type DataSpec[T any] struct {
	// Name is the resource's Name ("network" for libvirt_network) and the
	// noun in messages.
	Name  string
	Model *xmlschema.Model[T]
	// Description is the data source's schema description.
	Description string
	// Ways are the ways to find the object, each a set of lookup arguments
	// given together ({"name"}, {"uuid"}; {"pool", "name"}, {"key"}).
	// Exactly one way must be given.
	Ways [][]string
	// Args describes every lookup argument: a document attribute (name,
	// uuid, key) or an own attribute of the resource (a volume's pool).
	Args map[string]Arg
	// Reported are the resource's own attributes the data source exposes
	// (those Fetch reports), with their descriptions for a data source.
	Reported map[string]string
	// Find resolves the given way (argument name → value) to the id Fetch
	// takes; an error for which libvirtconn.IsNotFound holds when there is
	// no such object.
	Find func(ctx context.Context, c *libvirtconn.Client, by map[string]string) (id string, err error)
	// Fetch is the resource's Hooks.Fetch.
	Fetch func(ctx context.Context, c *libvirtconn.Client, id string) (*Fetched[T], error)
}

// Arg is one lookup argument.
type Arg struct {
	Description string
	// Check, when set, rejects a malformed value at validation.
	Check func(string) error
}

// DataSource is a lookup data source ready for Server.AddDataSources.
type DataSource interface {
	dataSpec() dataSpec
}

// dataSpec is a DataSpec with its document type hidden behind closures.
type dataSpec struct {
	name        string
	description string
	docTypes    map[string]tftypes.Type
	ways        [][]string
	args        map[string]Arg
	reported    map[string]string
	find        func(ctx context.Context, c *libvirtconn.Client, by map[string]string) (string, error)
	// fetch returns the document values and the own attributes libvirt reports
	fetch func(ctx context.Context, c *libvirtconn.Client, id string) (doc, own map[string]tftypes.Value, err error)
}

type dataSource[T any] struct{ spec DataSpec[T] }

var _ DataSource = dataSource[struct{}]{}

// NewDataSource returns the data source described by spec.
func NewDataSource[T any](spec DataSpec[T]) DataSource { return dataSource[T]{spec: spec} }

func (d dataSource[T]) dataSpec() dataSpec {
	s := d.spec
	return dataSpec{
		name: s.Name, description: s.Description, docTypes: s.Model.AttributeTypes(),
		ways: s.Ways, args: s.Args, reported: s.Reported, find: s.Find,
		fetch: func(ctx context.Context, c *libvirtconn.Client, id string) (map[string]tftypes.Value, map[string]tftypes.Value, error) {
			f, err := s.Fetch(ctx, c, id)
			if err != nil {
				return nil, nil, err
			}
			// no reconciliation and no pruning: a data source shows what
			// libvirt reports, all of it
			return s.Model.ToValues(f.Doc), f.Own, nil
		},
	}
}

// dataType is one lookup data source type, prepared once per process.
type dataType struct {
	dataSpec
	typeName string
	// resource is the tree resource of the same name, whose protocol
	// schema the data source's is derived from
	resource string
	objType  tftypes.Object
}

// AddDataSources serves these lookup data sources. Each needs the tree
// resource of the same name (its own attributes give the types of Reported
// and of own lookup arguments). Call it before the first GetProviderSchema.
func (s *Server) AddDataSources(ds ...DataSource) error {
	if s.data == nil {
		s.data = map[string]*dataType{}
	}
	for _, d := range ds {
		spec := d.dataSpec()
		typeName := s.providerName + "_" + spec.name
		if _, dup := s.data[typeName]; dup {
			return fmt.Errorf("data source %s added twice", typeName)
		}
		res, ok := s.types[typeName]
		if !ok {
			return fmt.Errorf("data source %s: no tree resource %s", typeName, typeName)
		}
		resTypes := res.objType.(tftypes.Object).AttributeTypes
		attrs := make(map[string]tftypes.Type, len(spec.docTypes)+len(spec.reported)+1)
		for name, t := range spec.docTypes {
			attrs[name] = t
		}
		own := make([]string, 0, len(spec.reported)+len(spec.args))
		for name := range spec.reported {
			own = append(own, name)
		}
		for name := range spec.args {
			if _, doc := spec.docTypes[name]; !doc {
				own = append(own, name)
			}
		}
		for _, name := range own {
			t, ok := resTypes[name]
			if !ok {
				return fmt.Errorf("data source %s: %q is not an attribute of the resource", typeName, name)
			}
			attrs[name] = t
		}
		if len(spec.ways) == 0 {
			return fmt.Errorf("data source %s: no way to find the object", typeName)
		}
		for _, way := range spec.ways {
			for _, name := range way {
				if _, ok := spec.args[name]; !ok {
					return fmt.Errorf("data source %s: lookup argument %q has no Arg", typeName, name)
				}
				if t := attrs[name]; t == nil || !t.Is(tftypes.String) {
					return fmt.Errorf("data source %s: lookup argument %q is not a string", typeName, name)
				}
			}
		}
		for name := range spec.args {
			inWay := false
			for _, way := range spec.ways {
				inWay = inWay || containsAll(way, []string{name})
			}
			if !inWay {
				return fmt.Errorf("data source %s: argument %q is in no way", typeName, name)
			}
		}
		s.data[typeName] = &dataType{dataSpec: spec, typeName: typeName, resource: typeName, objType: tftypes.Object{AttributeTypes: attrs}}
	}
	return nil
}

// DataTypes lists the lookup data source type names this server answers.
func (s *Server) DataTypes() []string {
	out := make([]string, 0, len(s.data))
	for name := range s.data {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// GetMetadata adds the lookup data sources to the framework's answer.
func (s *Server) GetMetadata(ctx context.Context, req *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	resp, err := s.ProviderServer.GetMetadata(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	for _, name := range s.DataTypes() {
		resp.DataSources = append(resp.DataSources, tfprotov6.DataSourceMetadata{TypeName: name})
	}
	return resp, nil
}

// addDataSchemas adds the lookup data sources' schemas to the framework's
// schema response (called once per process).
func (s *Server) addDataSchemas(resp *tfprotov6.GetProviderSchemaResponse) error {
	if len(s.data) == 0 {
		return nil
	}
	schemas := make(map[string]*tfprotov6.Schema, len(resp.DataSourceSchemas)+len(s.data))
	for k, v := range resp.DataSourceSchemas {
		schemas[k] = v
	}
	for _, name := range s.DataTypes() {
		d := s.data[name]
		if _, dup := schemas[name]; dup {
			return fmt.Errorf("data source %s is also a framework data source", name)
		}
		res, ok := resp.ResourceSchemas[d.resource]
		if !ok || res.Block == nil {
			return fmt.Errorf("data source %s: no schema for resource %s", name, d.resource)
		}
		sch, err := d.schema(res)
		if err != nil {
			return err
		}
		schemas[name] = sch
	}
	resp.DataSourceSchemas = schemas
	return nil
}

// schema derives the data source's schema from its resource's: the same
// attributes (document and reported ones), all computed, the lookup
// arguments optional as well.
func (d *dataType) schema(res *tfprotov6.Schema) (*tfprotov6.Schema, error) {
	byName := make(map[string]*tfprotov6.SchemaAttribute, len(res.Block.Attributes))
	for _, a := range res.Block.Attributes {
		byName[a.Name] = a
	}
	names := make([]string, 0, len(d.objType.AttributeTypes))
	for name := range d.objType.AttributeTypes {
		names = append(names, name)
	}
	sort.Strings(names)
	block := &tfprotov6.SchemaBlock{Description: d.description, DescriptionKind: res.Block.DescriptionKind}
	for _, name := range names {
		ra, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("data source %s: resource %s has no attribute %q", d.typeName, d.resource, name)
		}
		a := readOnly(ra)
		if arg, ok := d.args[name]; ok {
			a.Optional = true
			a.Description = arg.Description
		} else if desc, ok := d.reported[name]; ok {
			a.Description = desc
		}
		block.Attributes = append(block.Attributes, a)
	}
	return &tfprotov6.Schema{Block: block}, nil
}

// readOnly copies a resource attribute as a computed-only one, nested
// attributes included.
func readOnly(a *tfprotov6.SchemaAttribute) *tfprotov6.SchemaAttribute {
	out := *a
	out.Required, out.Optional, out.WriteOnly, out.Computed = false, false, false, true
	out.Description = readOnlyDescription.Replace(a.Description)
	if a.NestedType != nil {
		nested := &tfprotov6.SchemaObject{Nesting: a.NestedType.Nesting, Attributes: make([]*tfprotov6.SchemaAttribute, len(a.NestedType.Attributes))}
		for i, c := range a.NestedType.Attributes {
			nested.Attributes[i] = readOnly(c)
		}
		out.NestedType = nested
	}
	return &out
}

// readOnlyDescription drops what the engine's descriptions say about
// setting a value (xmlschema's node.description): nothing is set in a data
// source. TestLookupShippedDataSources fails when a phrase is left.
var readOnlyDescription = strings.NewReplacer(
	" Chosen by libvirt when not set.", "",
	"; derived from which member is set, and setting it alone creates that member empty.", "; derived from which member is set.",
)

// describeWays names the ways for messages: "`name` or `uuid`",
// "`pool` with `name`, or `key`".
func (d *dataType) describeWays() string {
	parts := make([]string, len(d.ways))
	for i, way := range d.ways {
		parts[i] = "`" + strings.Join(way, "` with `") + "`"
	}
	switch {
	case len(parts) == 1:
		return parts[0]
	case len(parts) == 2 && len(d.ways[0]) == 1:
		return parts[0] + " or " + parts[1]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + ", or " + parts[len(parts)-1]
}

// CheckUUID is an Arg.Check for UUID arguments.
func CheckUUID(s string) error {
	_, err := parseUUID(s)
	return err
}
