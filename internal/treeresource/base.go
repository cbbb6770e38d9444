package treeresource

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// Spec describes one tree resource type.
type Spec[T any] struct {
	// Name is the type name after the provider's ("network" for
	// libvirt_network) and the noun in messages, unless Noun is set.
	Name string
	// Noun names the object in messages when Name does not read as words
	// ("network filter" for nwfilter).
	Noun string
	// Model is the engine model of the document.
	Model *xmlschema.Model[T]
	// Description is the resource's schema description.
	Description string
	// Own are the resource's attributes beside the document tree.
	Own map[string]schema.Attribute
	// ImportID says what `import` accepts, for messages ("UUID or name" when empty).
	ImportID string
	// ReplaceOnChange lists the top-level document attributes libvirt cannot
	// change in place. AllDocument means every one of them except InPlace.
	ReplaceOnChange []string
	// InPlace lists the document attributes Update applies when
	// ReplaceOnChange is AllDocument.
	InPlace []string
	// Identity is the resource's identity (identity.go); nil: none.
	Identity *Identity
	// Routing are attributes that route the resource's requests, read and
	// set by the protocol layer in front of this one (the host:
	// internal/hostroute). They join Own unless Own declares one of the
	// same name itself, and an import sets them beside the id.
	Routing map[string]schema.Attribute
}

// withRouting adds the routing attributes to the own ones that do not
// declare them themselves.
func withRouting(own, routing map[string]schema.Attribute) map[string]schema.Attribute {
	if len(routing) == 0 {
		return own
	}
	out := make(map[string]schema.Attribute, len(own)+len(routing))
	for k, v := range routing {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}

// AllDocument in Spec.ReplaceOnChange: any document change replaces.
const AllDocument = "*"

// Fetched is what Hooks.Fetch read from libvirt.
type Fetched[T any] struct {
	Doc *T
	// Own are the own attributes libvirt reports (id, running, autostart...).
	// Every other own attribute keeps the prior state's value, or its schema
	// default when there is none (after an import).
	Own map[string]tftypes.Value
}

// Hooks are the parts of a tree resource that are its own.
type Hooks[T any] interface {
	// LookUp resolves the ID given to `import` (UUID, name, key...) to the
	// resource id; a libvirt not-found error when there is no such object.
	LookUp(ctx context.Context, c *libvirtconn.Client, importID string) (id string, err error)
	// Fetch reads the object with this id; an error for which
	// libvirtconn.IsNotFound holds means it is gone.
	Fetch(ctx context.Context, c *libvirtconn.Client, id string) (*Fetched[T], error)
}

// FixUp is an optional hook: it adjusts what libvirt reports before it is
// reconciled with the prior state (prior is the document part).
type FixUp[T any] interface {
	FixUp(prior map[string]tftypes.Value, doc *T)
}

// PruneImported is an optional hook: on the read after an import it removes
// what libvirt reports that configurations rarely write, so that a short
// configuration plans no change.
type PruneImported[T any] interface {
	PruneImported(doc *T)
}

// Base implements what tree resources share; a resource embeds it, adds its
// Create, Update, Delete and ModifyPlan, and passes its hooks to NewBase.
type Base[T any] struct {
	spec   Spec[T]
	hooks  Hooks[T]
	client *libvirtconn.Client
	// defaults are the schema defaults of the own attributes, computed once:
	// every Read falls back on them
	defaults map[string]tftypes.Value
}

// The methods Base gives a resource; the resource adds Create, Update,
// Delete (and usually ModifyPlan).
type baseMethods interface {
	Metadata(context.Context, resource.MetadataRequest, *resource.MetadataResponse)
	Schema(context.Context, resource.SchemaRequest, *resource.SchemaResponse)
	Configure(context.Context, resource.ConfigureRequest, *resource.ConfigureResponse)
	Read(context.Context, resource.ReadRequest, *resource.ReadResponse)
	ImportState(context.Context, resource.ImportStateRequest, *resource.ImportStateResponse)
	UpgradeState(context.Context) map[int64]resource.StateUpgrader
	Document() Document
}

var _ baseMethods = (*Base[struct{}])(nil)

// NewBase returns the base of a resource with these hooks.
func NewBase[T any](spec Spec[T], hooks Hooks[T]) Base[T] {
	spec.Own = withRouting(spec.Own, spec.Routing)
	defaults := map[string]tftypes.Value{}
	for name, a := range spec.Own {
		if d, ok, _ := defaultValue(context.Background(), a); ok {
			defaults[name] = d
		}
	}
	return Base[T]{spec: spec, hooks: hooks, defaults: defaults}
}

// noun names the object in messages.
func (b *Base[T]) noun() string {
	if b.spec.Noun != "" {
		return b.spec.Noun
	}
	return b.spec.Name
}

// Client is the configured connection (nil before Configure or while the
// provider's uri is unknown).
func (b *Base[T]) Client() *libvirtconn.Client { return b.client }

// Model is the resource's engine model.
func (b *Base[T]) Model() *xmlschema.Model[T] { return b.spec.Model }

// Document is the model as the protocol layer sees it.
func (b *Base[T]) Document() Document { return b.spec.Model }

func (b *Base[T]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + b.spec.Name
}

func (b *Base[T]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = b.SchemaDefinition()
}

// SchemaDefinition is the document tree's attributes plus the own ones.
func (b *Base[T]) SchemaDefinition() schema.Schema {
	tree := b.spec.Model.Attributes()
	attrs := make(map[string]schema.Attribute, len(tree)+len(b.spec.Own))
	for k, v := range tree {
		attrs[k] = v
	}
	for k, v := range b.spec.Own {
		if _, dup := attrs[k]; dup {
			panic(fmt.Sprintf("%s: own attribute %q clashes with a document attribute", b.spec.Name, k))
		}
		attrs[k] = v
	}
	return schema.Schema{Version: SchemaVersion, Description: b.spec.Description, Attributes: attrs}
}

func (b *Base[T]) Configure(ctx context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.client = ClientFromContext(ctx, req.ProviderData, &resp.Diagnostics)
}

// Read refreshes the state from libvirt; an object libvirt no longer has
// leaves the state.
func (b *Base[T]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if !RequireClient(b.client, &resp.Diagnostics) {
		return
	}
	prior := ObjectAttrs(req.State.Raw)
	id, _ := String(prior, "id")
	if Importing(prior, b.spec.Routing) {
		prior = nil
	}
	v, found, err := b.ReadBack(ctx, req.State.Raw.Type(), id, prior)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Cannot read "+b.spec.Name, err.Error())
	case !found:
		resp.State.RemoveResource(ctx)
	default:
		resp.State.Raw = v
	}
}

// ReadBack reads the object with this id and returns the resource value of
// type t: the live document reconciled with prior (the plan after create or
// update, the state on refresh; nil after an import), and the own
// attributes. found is false when libvirt has no such object.
func (b *Base[T]) ReadBack(ctx context.Context, t tftypes.Type, id string, prior map[string]tftypes.Value) (tftypes.Value, bool, error) {
	f, err := b.hooks.Fetch(ctx, b.client, id)
	if libvirtconn.IsNotFound(err) {
		return tftypes.Value{}, false, nil
	}
	if err != nil {
		return tftypes.Value{}, false, err
	}
	return b.State(t, prior, f), true, nil
}

// State builds the resource value from what Fetch read.
func (b *Base[T]) State(t tftypes.Type, prior map[string]tftypes.Value, f *Fetched[T]) tftypes.Value {
	model := b.spec.Model
	var priorDoc map[string]tftypes.Value
	if prior != nil {
		priorDoc = DocValues(model.AttributeTypes(), prior)
		if fx, ok := b.hooks.(FixUp[T]); ok {
			fx.FixUp(priorDoc, f.Doc)
		}
	} else if pr, ok := b.hooks.(PruneImported[T]); ok {
		pr.PruneImported(f.Doc)
	}
	doc := model.Reconcile(priorDoc, model.ToValues(f.Doc))
	return BuildObject(t, doc, b.ownState(t, prior, f.Own))
}

// ownState completes the own attributes libvirt reported with the others:
// the prior value when it has one, else the schema default, else null.
func (b *Base[T]) ownState(t tftypes.Type, prior, reported map[string]tftypes.Value) map[string]tftypes.Value {
	types := t.(tftypes.Object).AttributeTypes
	out := make(map[string]tftypes.Value, len(b.spec.Own))
	for name := range b.spec.Own {
		if v, ok := reported[name]; ok {
			out[name] = v
			continue
		}
		if v, ok := prior[name]; ok && v.IsKnown() && !v.IsNull() {
			out[name] = v
			continue
		}
		if d, ok := b.defaults[name]; ok {
			out[name] = d
			continue
		}
		out[name] = tftypes.NewValue(types[name], nil)
	}
	return out
}

// ImportState resolves the import ID with Hooks.LookUp and stores the id;
// the Read that follows fills the rest.
func (b *Base[T]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !RequireClient(b.client, &resp.Diagnostics) {
		return
	}
	id, err := b.hooks.LookUp(ctx, b.client, req.ID)
	if err != nil {
		what := b.spec.ImportID
		if what == "" {
			what = "UUID or name"
		}
		resp.Diagnostics.AddError("Cannot import "+b.spec.Name, fmt.Sprintf("no %s with %s %q: %v", b.spec.Name, what, req.ID, err))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}

// DocumentNames are the document's top-level attribute names, sorted.
func (b *Base[T]) DocumentNames() []string {
	names := make([]string, 0, len(b.spec.Model.AttributeTypes()))
	for name := range b.spec.Model.AttributeTypes() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// PlanUpdate applies the shared rules to an update plan (state and plan both
// present) and returns the planned attributes, which the caller may adjust
// before storing them with SetPlan:
//   - a value libvirt chose (unknown in the plan, not configured) keeps the
//     state's value, except where the policy calls it volatile;
//   - a change of an attribute in Spec.ReplaceOnChange is added to replace.
//
// It returns nil for a create or destroy plan.
func (b *Base[T]) PlanUpdate(req resource.ModifyPlanRequest, replace *path.Paths) map[string]tftypes.Value {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() {
		return nil
	}
	plan, state, config := ObjectAttrs(req.Plan.Raw), ObjectAttrs(req.State.Raw), ObjectAttrs(req.Config.Raw)
	if plan == nil || state == nil {
		return nil
	}
	model := b.spec.Model
	for _, name := range b.DocumentNames() {
		if !model.Volatile(name) {
			plan[name] = KeepChosen(plan[name], state[name], config[name])
		}
	}
	var compare []string
	if len(b.spec.ReplaceOnChange) == 1 && b.spec.ReplaceOnChange[0] == AllDocument {
		inPlace := map[string]bool{}
		for _, n := range b.spec.InPlace {
			inPlace[n] = true
		}
		for _, name := range b.DocumentNames() {
			if !model.Volatile(name) && !inPlace[name] {
				compare = append(compare, name)
			}
		}
	} else {
		compare = b.spec.ReplaceOnChange
	}
	for _, name := range compare {
		if !plan[name].Equal(state[name]) {
			*replace = append(*replace, path.Root(name))
		}
	}
	return plan
}

// SetPlan stores planned attributes into the response.
func SetPlan(resp *resource.ModifyPlanResponse, plan map[string]tftypes.Value) {
	resp.Plan.Raw = tftypes.NewValue(resp.Plan.Raw.Type(), plan)
}

// KeepChosen returns plan with every unknown value that the configuration
// leaves null replaced by the state's value: libvirt chose it once and keeps
// it while the resource is updated in place (UseStateForUnknown for the
// whole tree, in one pass). Values the configuration leaves unknown
// (references to other resources) stay unknown.
func KeepChosen(plan, state, config tftypes.Value) tftypes.Value {
	if isNull(state) || !state.IsKnown() {
		return plan
	}
	if !plan.IsKnown() {
		if isNull(config) {
			return state
		}
		return plan
	}
	if plan.IsNull() || isNull(config) || !config.IsKnown() {
		return plan
	}
	switch t := plan.Type().(type) {
	case tftypes.Object:
		var p, s, c map[string]tftypes.Value
		if plan.As(&p) != nil || state.As(&s) != nil || config.As(&c) != nil {
			return plan
		}
		out := make(map[string]tftypes.Value, len(p))
		for k, v := range p {
			if sv, ok := s[k]; ok {
				if cv, ok := c[k]; ok {
					v = KeepChosen(v, sv, cv)
				}
			}
			out[k] = v
		}
		return tftypes.NewValue(t, out)
	case tftypes.List:
		var p, s, c []tftypes.Value
		if plan.As(&p) != nil || state.As(&s) != nil || config.As(&c) != nil || len(p) != len(s) || len(p) != len(c) {
			return plan
		}
		out := make([]tftypes.Value, len(p))
		for i := range p {
			out[i] = KeepChosen(p[i], s[i], c[i])
		}
		return tftypes.NewValue(t, out)
	}
	return plan
}

// ClientFrom turns the framework's ProviderData into the shared connection
// client. A nil ProviderData (the provider is not configured yet, or its uri
// is unknown during plan) yields nil without an error; callers that need
// libvirt check for nil through RequireClient.
func ClientFrom(data any, diags *diag.Diagnostics) *libvirtconn.Client {
	return ClientFromContext(context.Background(), data, diags)
}

// ClientFromContext is ClientFrom for the host the request's context names,
// when the provider data serves several hosts (Clients).
func ClientFromContext(ctx context.Context, data any, diags *diag.Diagnostics) *libvirtconn.Client {
	if data == nil {
		return nil
	}
	if cs, ok := data.(Clients); ok {
		c, problems := cs.ClientFor(ctx)
		diags.Append(problems...)
		return c
	}
	c, ok := data.(*libvirtconn.Client)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *libvirtconn.Client, got %T; this is a provider bug", data))
		return nil
	}
	return c
}

// RequireClient reports an error when the provider has no connection to use.
func RequireClient(c *libvirtconn.Client, diags *diag.Diagnostics) bool {
	if c == nil {
		diags.AddError("libvirt provider not configured",
			"The provider's uri is not known yet or the provider block was not configured; the operation needs a libvirt connection.")
		return false
	}
	return true
}

// Importing reports whether a state holds only the id set by ImportState
// (and the routing attributes, such as the host an import from another host
// sets): the first Read after an import stores the whole live document.
func Importing(attrs map[string]tftypes.Value, routing map[string]schema.Attribute) bool {
	for name, v := range attrs {
		if _, routes := routing[name]; routes || name == "id" {
			continue
		}
		if !v.IsNull() {
			return false
		}
	}
	return true
}
