package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

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
		Name:  "nwfilter",
		Model: xmlschema.NWFilter(),
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
	uuid, err := libvirtops.ParseUUID(doc.UUID)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("uuid"), "Invalid network filter UUID", err.Error())
		return
	}
	xml, err := doc.Marshal()
	if err != nil {
		resp.Diagnostics.AddError("Cannot write network filter XML", err.Error())
		return
	}
	// a filter of this name that is not ours: never redefine it (a
	// redefinition would change the traffic of every guest using it)
	err = r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		existing, err := l.NwfilterLookupByName(doc.Name)
		if err == nil {
			return fmt.Errorf("a network filter named %q already exists (UUID %s) and is not in this state; adopt it with "+
				"an import block (id = %q) or `tofu import <address> %s`, or choose another name",
				doc.Name, libvirtops.UUIDString(existing.UUID), doc.Name, doc.Name)
		}
		if libvirtconn.IsNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Cannot create network filter", err.Error())
		return
	}
	err = r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		if _, err := l.NwfilterDefineXMLFlags(xml, uint32(libvirt.NwfilterDefineValidate)); err != nil {
			return fmt.Errorf("defining network filter %q: %w", doc.Name, err)
		}
		return nil
	})
	filter := libvirt.Nwfilter{Name: doc.Name, UUID: uuid}
	if err != nil {
		resp.Diagnostics.AddError("Cannot create network filter", err.Error()+r.removeAfterFailure(ctx, filter))
		return
	}
	state, found, err := r.ReadBack(ctx, req.Plan.Raw.Type(), doc.UUID, plan)
	if err != nil || !found {
		resp.Diagnostics.AddError("Cannot read network filter after create", fmt.Sprint(err)+r.removeAfterFailure(ctx, filter))
		return
	}
	resp.State.Raw = state
}

// removeAfterFailure undefines a filter a failed create left behind (a
// define that succeeded before the connection broke), and says so for the
// error message.
func (r *nwfilterResource) removeAfterFailure(ctx context.Context, f libvirt.Nwfilter) string {
	err := r.Client().Do(ctx, func(l *libvirt.Libvirt) error { return l.NwfilterUndefine(f) })
	switch {
	case err == nil:
		return " (the partly created network filter was removed)"
	case libvirtconn.IsNotFound(err):
		return ""
	default:
		return fmt.Sprintf(" (removing the partly created network filter %q failed too: %v; remove it with virsh nwfilter-undefine)", f.Name, err)
	}
}

// Fetch reads the filter's definition.
func (r *nwfilterResource) Fetch(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.NWFilter], error) {
	f, err := nwfilterRef(id)
	if err != nil {
		return nil, err
	}
	var xml string
	err = c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		xml, err = l.NwfilterGetXMLDesc(f, 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	var doc libvirtxml.NWFilter
	if err := doc.Unmarshal(xml); err != nil {
		return nil, fmt.Errorf("parsing network filter XML: %w", err)
	}
	return &treeresource.Fetched[libvirtxml.NWFilter]{Doc: &doc, Own: map[string]tftypes.Value{
		"id": treeresource.StringValue(doc.UUID),
	}}, nil
}

// LookUp resolves a filter's UUID or name.
func (r *nwfilterResource) LookUp(ctx context.Context, c *libvirtconn.Client, importID string) (string, error) {
	return libvirtops.Nwfilters(c).LookUp(ctx, importID)
}

func nwfilterRef(id string) (libvirt.Nwfilter, error) {
	u, err := libvirtops.ParseUUID(id)
	if err != nil {
		return libvirt.Nwfilter{}, err
	}
	return libvirt.Nwfilter{UUID: u}, nil
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
	xml, err := doc.Marshal()
	if err != nil {
		resp.Diagnostics.AddError("Cannot write network filter XML", err.Error())
		return
	}
	// the same document defined twice is harmless: client.Do may repeat it
	err = r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		_, err := l.NwfilterDefineXMLFlags(xml, uint32(libvirt.NwfilterDefineValidate))
		return err
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot update network filter", fmt.Sprintf("redefining network filter %q: %v", doc.Name, err))
		return
	}
	state, found, err := r.ReadBack(ctx, req.Plan.Raw.Type(), id, plan)
	if err != nil || !found {
		resp.Diagnostics.AddError("Cannot read network filter after update", fmt.Sprint(err))
		return
	}
	resp.State.Raw = state
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
	f, err := nwfilterRef(id)
	if err != nil {
		resp.Diagnostics.AddError("Invalid network filter id", err.Error())
		return
	}
	var users nwfilterUsers
	var undefineErr error
	err = r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		cur, err := l.NwfilterLookupByUUID(f.UUID)
		if err != nil {
			return err
		}
		if users, err = nwfilterUsersOf(l, cur.Name); err != nil {
			return err
		}
		// libvirt decides what blocks the undefine; its refusal is
		// explained below, not retried
		undefineErr = l.NwfilterUndefine(cur)
		return nil
	})
	switch {
	case libvirtconn.IsNotFound(err) || (err == nil && libvirtconn.IsNotFound(undefineErr)):
		return
	case err != nil:
		resp.Diagnostics.AddError("Cannot delete network filter", err.Error())
	case undefineErr != nil && len(users.domains) > 0:
		resp.Diagnostics.AddError("Network filter is in use", fmt.Sprintf("libvirt cannot undefine network filter %q "+
			"while running domains use it: %s. Stop those domains or remove their interfaces' filter_ref first (libvirt: %v).",
			users.name, strings.Join(users.domains, ", "), undefineErr))
	case undefineErr != nil:
		resp.Diagnostics.AddError("Cannot delete network filter", undefineErr.Error())
	case len(users.filters) > 0:
		resp.Diagnostics.AddWarning("Network filter still referenced", fmt.Sprintf("Network filter %q was undefined, but "+
			"these network filters still reference it: %s. Guests whose interfaces use them cannot start until it is defined again.",
			users.name, strings.Join(users.filters, ", ")))
	}
}

// nwfilterUsers are the references to one filter.
type nwfilterUsers struct {
	name    string
	filters []string // filters with a <filterref> to it
	// running domains whose interfaces use it, directly or through filters
	// that reference it ("dom (through f)")
	domains []string
}

// nwfilterUsersOf finds the filters that reference the filter called name,
// and the running domains that use it directly or through them.
func nwfilterUsersOf(l *libvirt.Libvirt, name string) (nwfilterUsers, error) {
	users := nwfilterUsers{name: name}
	filters, _, err := l.ConnectListAllNwfilters(1, 0)
	if err != nil {
		return users, fmt.Errorf("listing network filters: %w", err)
	}
	refs := map[string][]string{} // filter -> filters it references
	for _, f := range filters {
		x, err := l.NwfilterGetXMLDesc(f, 0)
		if libvirtconn.IsNotFound(err) {
			continue // undefined meanwhile
		}
		if err != nil {
			return users, fmt.Errorf("reading network filter %q: %w", f.Name, err)
		}
		var doc libvirtxml.NWFilter
		if err := doc.Unmarshal(x); err != nil {
			return users, fmt.Errorf("parsing network filter %q: %w", f.Name, err)
		}
		for _, e := range doc.Entries {
			if e.Ref != nil {
				refs[f.Name] = append(refs[f.Name], e.Ref.Filter)
				if e.Ref.Filter == name && !slices.Contains(users.filters, f.Name) {
					users.filters = append(users.filters, f.Name)
				}
			}
		}
	}
	// via[f]: the filter through which f reaches name ("" for name itself)
	via := map[string]string{name: ""}
	for changed := true; changed; {
		changed = false
		for f, targets := range refs {
			if _, done := via[f]; done {
				continue
			}
			for _, t := range targets {
				if _, ok := via[t]; ok {
					via[f], changed = f, true
					break
				}
			}
		}
	}
	doms, _, err := l.ConnectListAllDomains(1, libvirt.ConnectListDomainsActive)
	if err != nil {
		return users, fmt.Errorf("listing running domains: %w", err)
	}
	for _, d := range doms {
		x, err := l.DomainGetXMLDesc(d, 0)
		if libvirtconn.IsNotFound(err) {
			continue // stopped meanwhile
		}
		if err != nil {
			return users, fmt.Errorf("reading domain %q: %w", d.Name, err)
		}
		var doc libvirtxml.Domain
		if err := doc.Unmarshal(x); err != nil {
			return users, fmt.Errorf("parsing domain %q: %w", d.Name, err)
		}
		if doc.Devices == nil {
			continue
		}
		for _, iface := range doc.Devices.Interfaces {
			if iface.FilterRef == nil {
				continue
			}
			if through, ok := via[iface.FilterRef.Filter]; ok {
				if through != "" {
					users.domains = append(users.domains, fmt.Sprintf("%s (through filter %s)", d.Name, through))
				} else {
					users.domains = append(users.domains, d.Name)
				}
				break
			}
		}
	}
	sort.Strings(users.filters)
	sort.Strings(users.domains)
	return users, nil
}
