package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

var (
	_ resource.ResourceWithImportState = (*nwfilterResource)(nil)
	_ resource.ResourceWithConfigure   = (*nwfilterResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*nwfilterResource)(nil)

	_ resource.ResourceWithValidateConfig = (*nwfilterResource)(nil)
)

// NewNWFilterResource returns the libvirt_nwfilter resource.
func NewNWFilterResource() resource.Resource {
	r := &nwfilterResource{}
	r.Base = treeresource.NewBase(treeresource.Spec[libvirtxml.NWFilter]{
		Routing:  hostroute.Attributes("network filter"),
		Name:     "nwfilter",
		Noun:     "network filter",
		Identity: uuidIdentity("network filter"),
		Model:    xmlschema.NWFilter(),
		Description: "A libvirt network filter (https://libvirt.org/formatnwfilter.html); the attributes mirror its XML " +
			"one to one. `entries` are the filter's `<rule>` and `<filterref>` elements in order: each entry sets `rule` " +
			"(with `action`, `direction`, an optional `priority` and one protocol match such as `ip`, `tcp`, `udp`, `icmp`, " +
			"`mac`, `arp` or `all`) or `filter_ref` (another filter by name, with `parameters`). Match values are strings, " +
			"so variables (`$IP`) and hexadecimal values (`0x1f`) are written as libvirt reads them. " +
			"A domain interface uses the filter through its `filter_ref = { filter = libvirt_nwfilter.x.name }`. " +
			"Any change but `name` or `uuid` redefines the filter in place, and libvirt applies the new rules at once to " +
			"the running guests that use it, without restarting them; the redefinition starts from the definition libvirt " +
			"holds then. Changing `name` or `uuid` replaces the filter. " +
			"Destroying a filter fails while a running guest uses it, directly or through another filter, and the error names " +
			"the guests; libvirt does let a filter go that only other filters reference, and a warning then names those filters. " +
			"Import by name or UUID. " +
			"How any libvirt XML is written as attributes: see the guide \"Writing libvirt XML as attributes\".",
		Own: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The filter's UUID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		// libvirt cannot rename a filter or change its UUID
		ReplaceOnChange: []string{"name", "uuid"},
	}, r)
	return r
}

type nwfilterResource struct {
	treeresource.Base[libvirtxml.NWFilter]
}

// ModifyPlan plans a replacement for a new name or UUID; every other change
// is an in-place redefinition.
func (r *nwfilterResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan := r.PlanUpdate(req, &resp.RequiresReplace)
	if plan == nil {
		return // create or destroy
	}
	treeresource.SetPlan(resp, plan)
}

// ValidateConfig refuses entries libvirt would silently cut short: an entry
// is one <rule> or one <filterref> (libvirtxml writes only the rule of an
// entry with both, nothing of an entry with neither), and libvirt reads one
// protocol match per rule and drops the others.
func (r *nwfilterResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	for _, p := range nwfilterEntryProblems(treeresource.ObjectAttrs(req.Config.Raw)) {
		resp.Diagnostics.AddAttributeError(path.Root("entries"), "Invalid network filter entry", p) // p names the path
	}
}

// nwfilterEntryProblems checks the configured entries; values not known yet
// are skipped.
func nwfilterEntryProblems(config map[string]tftypes.Value) []string {
	var entries []tftypes.Value
	if v, ok := config["entries"]; !ok || !v.IsKnown() || v.IsNull() || v.As(&entries) != nil {
		return nil
	}
	set := func(attrs map[string]tftypes.Value, name string) bool {
		v, ok := attrs[name]
		return ok && (!v.IsKnown() || !v.IsNull())
	}
	var problems []string
	for i, e := range entries {
		var attrs map[string]tftypes.Value
		if !e.IsKnown() || e.IsNull() || e.As(&attrs) != nil {
			continue
		}
		rule, ref := set(attrs, "rule"), set(attrs, "filter_ref")
		switch {
		case rule && ref:
			problems = append(problems, fmt.Sprintf("entries[%d]: rule and filter_ref are alternatives: one entry is one <rule> "+
				"or one <filterref>; write two entries", i))
			continue
		case !rule && !ref:
			problems = append(problems, fmt.Sprintf("entries[%d]: set rule or filter_ref", i))
			continue
		case ref:
			continue
		}
		var ruleAttrs map[string]tftypes.Value
		if v := attrs["rule"]; !v.IsKnown() || v.As(&ruleAttrs) != nil {
			continue
		}
		var matches []string
		for name, v := range ruleAttrs {
			if _, isObject := v.Type().(tftypes.Object); isObject && (!v.IsKnown() || !v.IsNull()) {
				matches = append(matches, name)
			}
		}
		if len(matches) > 1 {
			sort.Strings(matches)
			problems = append(problems, fmt.Sprintf("entries[%d].rule: %s are alternatives: libvirt reads one protocol match "+
				"per rule and ignores the others; write one rule per protocol", i, strings.Join(matches, " and ")))
		}
	}
	return problems
}

func (r *nwfilterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	model := r.Model()
	doc, err := model.FromValues(treeresource.DocValues(model.AttributeTypes(), plan))
	if err != nil {
		treeresource.AddConversionError(&resp.Diagnostics, "Invalid network filter definition", err)
		return
	}
	// Choose the UUID here: when the connection breaks and client.Do runs
	// the define again, it redefines this same filter instead of a second
	// one, and cleanup after a failure removes exactly this filter.
	if doc.UUID == "" {
		doc.UUID = libvirtops.NewUUID()
	}
	if _, err := libvirtops.ParseUUID(doc.UUID); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("uuid"), "Invalid network filter UUID", err.Error())
		return
	}
	if _, err := doc.Marshal(); err != nil {
		resp.Diagnostics.AddError("Cannot write network filter XML", err.Error())
		return
	}
	// a filter of this name that is not ours: never redefine it (a
	// redefinition would change the traffic of every guest using it)
	existing, err := libvirtops.Nwfilters(r.Client()).NameTaken(ctx, doc.Name)
	if err == nil && existing != "" {
		err = fmt.Errorf("a network filter named %q already exists (UUID %s) and is not in this state; %s, or choose another name",
			doc.Name, existing, treeresource.ImportAdvice(doc.Name))
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Cannot create network filter", err.Error())
		return
	}
	r.Finish(ctx, treeresource.Ending{Op: "create", Plan: req.Plan.Raw, ID: doc.UUID, Prior: plan,
		Apply: func(*diag.Diagnostics) (string, error) { return "", r.define(ctx, doc) },
		// a define that succeeded before the connection broke leaves the filter behind
		Undo: func() (string, bool) {
			return r.RemovalSaid(libvirtops.Nwfilters(r.Client()).Remove(ctx, doc.UUID), doc.Name, "virsh nwfilter-undefine"), false
		}}, &resp.State, &resp.Diagnostics)
}

// define defines (or redefines) the filter; the same document defined
// twice is harmless, so client.Do may repeat it.
func (r *nwfilterResource) define(ctx context.Context, doc *libvirtxml.NWFilter) error {
	if err := libvirtops.Nwfilters(r.Client()).Define(ctx, doc); err != nil {
		return fmt.Errorf("defining network filter %q: %w", doc.Name, err)
	}
	return nil
}

// Fetch reads the filter's definition.
func (r *nwfilterResource) Fetch(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.NWFilter], error) {
	doc, err := libvirtops.Nwfilters(c).Fetch(ctx, id)
	if err != nil {
		return nil, err
	}
	return &treeresource.Fetched[libvirtxml.NWFilter]{Doc: doc, Own: map[string]tftypes.Value{
		"id": treeresource.StringValue(doc.UUID),
	}}, nil
}

// LookUp resolves a filter's UUID or name.
func (r *nwfilterResource) LookUp(ctx context.Context, c *libvirtconn.Client, importID string) (string, error) {
	return libvirtops.Nwfilters(c).LookUp(ctx, importID)
}

// Update redefines the filter with the same name and UUID; libvirt
// re-instantiates the rules of every running guest that uses it.
func (r *nwfilterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	prior := treeresource.ObjectAttrs(req.State.Raw)
	id, _ := treeresource.String(prior, "id")
	model := r.Model()
	// the plan is applied to the definition libvirt holds now: what it does
	// not change stays as libvirt has it
	current, err := r.Fetch(ctx, r.Client(), id)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read network filter before update", err.Error())
		return
	}
	doc, err := model.FromValues(model.Patch(
		treeresource.DocValues(model.AttributeTypes(), prior),
		treeresource.DocValues(model.AttributeTypes(), plan),
		model.ToValues(current.Doc)))
	if err != nil {
		treeresource.AddConversionError(&resp.Diagnostics, "Invalid network filter definition", err)
		return
	}
	doc.UUID, doc.Name = current.Doc.UUID, current.Doc.Name
	if _, err := doc.Marshal(); err != nil {
		resp.Diagnostics.AddError("Cannot write network filter XML", err.Error())
		return
	}
	r.Finish(ctx, treeresource.Ending{Op: "update", Plan: req.Plan.Raw, ID: id, Prior: plan,
		Apply: func(*diag.Diagnostics) (string, error) { return "", r.define(ctx, doc) }}, &resp.State, &resp.Diagnostics)
}

// Delete undefines the filter. libvirt refuses while a running guest uses
// it, directly or through another filter; the error names those guests.
// libvirt lets a filter go that only other filters reference: a warning
// names them, since guests using them can no longer start.
func (r *nwfilterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	id, _ := treeresource.String(treeresource.ObjectAttrs(req.State.Raw), "id")
	if _, err := libvirtops.ParseUUID(id); err != nil {
		resp.Diagnostics.AddError("Invalid network filter id", err.Error())
		return
	}
	users, undefineErr, err := libvirtops.Nwfilters(r.Client()).Delete(ctx, id)
	switch {
	case libvirtconn.IsNotFound(err) || (err == nil && libvirtconn.IsNotFound(undefineErr)):
		return
	case err != nil:
		resp.Diagnostics.AddError("Cannot delete network filter", err.Error())
	case undefineErr != nil && len(users.Domains) > 0:
		resp.Diagnostics.AddError("Network filter is in use", fmt.Sprintf("libvirt cannot undefine network filter %q "+
			"while running domains use it: %s. Stop those domains or remove their interfaces' filter_ref first (libvirt: %v).",
			users.Name, strings.Join(users.Domains, ", "), undefineErr))
	case undefineErr != nil:
		resp.Diagnostics.AddError("Cannot delete network filter", undefineErr.Error())
	case len(users.Filters) > 0:
		resp.Diagnostics.AddWarning("Network filter still referenced", fmt.Sprintf("Network filter %q was undefined, but "+
			"these network filters still reference it: %s. Guests whose interfaces use them cannot start until it is defined again.",
			users.Name, strings.Join(users.Filters, ", ")))
	}
}
