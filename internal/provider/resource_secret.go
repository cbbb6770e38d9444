package provider

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

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
	_ resource.ResourceWithImportState    = (*secretResource)(nil)
	_ resource.ResourceWithConfigure      = (*secretResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*secretResource)(nil)
	_ resource.ResourceWithValidateConfig = (*secretResource)(nil)
)

// secretUsageTypes maps the XML usage types to the usage attribute that
// holds each type's usage id.
var secretUsageTypes = map[string]struct {
	field string
}{
	"volume": {"volume"},
	"ceph":   {"name"},
	"iscsi":  {"target"},
	"tls":    {"name"},
	"vtpm":   {"name"},
}

// NewSecretResource returns the libvirt_secret resource.
func NewSecretResource() resource.Resource {
	r := &secretResource{}
	r.Base = treeresource.NewBase(treeresource.Spec[libvirtxml.Secret]{
		Routing:  hostroute.Attributes("secret"),
		Name:     "secret",
		Identity: uuidIdentity("secret"),
		Model:    xmlschema.Secret(),
		Description: "A libvirt secret (https://libvirt.org/formatsecret.html): a passphrase or key that libvirt hands to " +
			"QEMU for an encrypted volume (LUKS), a Ceph or iSCSI pool, TLS or a vTPM, without putting it into domain or volume XML. " +
			"The attributes mirror the secret XML one to one; the value is set with `value` (text), `value_base64` (bytes) or " +
			"`value_wo` (text, write-only: never in plan or state), all sensitive. The provider chooses the UUID when `uuid` is not set. " +
			"Changing the value (`value_wo`: with `value_wo_version`), `description`, `private` from `no` to `yes` or " +
			"`ephemeral` from `yes` to `no` is applied in place (same UUID; the value is kept across a redefinition); changing " +
			"`uuid` or `usage`, turning `private` from `yes` back to `no` (libvirt refuses that), turning `ephemeral` from `no` " +
			"to `yes` (libvirt 9.0 would keep the persistent file, and the secret would come back after a libvirtd restart) or " +
			"removing the value (libvirt cannot unset one) replaces the secret. " +
			"Creating a secret whose usage (type and volume path or name) another secret already has fails and names that " +
			"secret's UUID to import it with. " +
			"Reading the value: libvirt returns the value of a secret that is not private, so a value changed outside this " +
			"configuration (`virsh secret-set-value`) shows as a change back to the configured value. libvirt never returns the " +
			"value of a private secret (`private = \"yes\"`): its value in state is the one last applied, and a change made " +
			"outside is not detected. " +
			"A new value does not re-key what was encrypted with the old one: a LUKS volume formatted with it keeps its " +
			"passphrase and no longer opens with the secret (libvirt does not re-key volumes); replace such a volume, or add " +
			"the new key to it outside libvirt first. " +
			"An `ephemeral = \"yes\"` secret exists only in memory: after libvirtd restarts it is gone " +
			"and the next plan creates it again. " +
			"Import by UUID or by usage id (the volume path, or the Ceph/iSCSI/TLS/vTPM name); an imported secret has no value " +
			"in state (the configuration's value is then set in place by the next apply). " +
			"How any libvirt XML is written as attributes: see the guide \"Writing libvirt XML as attributes\".",
		ImportID: "UUID or usage id",
		Own: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The secret's UUID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"value": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				Description: "The secret's value as text: its UTF-8 bytes are stored, without a trailing newline. Use it for " +
					"passphrases (a LUKS volume's). Never shown in plans or logs, but stored in the state. Conflicts with `value_base64`. " +
					"Changes apply in place; libvirt refuses an empty value. When neither is set the secret is defined without a value " +
					"(set it outside, e.g. with `virsh secret-set-value`).",
			},
			"value_base64": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				Description: "The secret's value as standard base64 of its bytes, for binary keys: a Ceph key " +
					"(`ceph auth get-key` prints the base64 libvirt expects here) or random key material " +
					"(`random_bytes.x.base64`): a text attribute cannot carry arbitrary bytes, and plain `value` would store the " +
					"base64 text itself. libvirt stores the decoded bytes. Conflicts with `value`; changes apply in place.",
			},
			"value_wo": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				WriteOnly: true,
				Description: "The secret's value as text, write-only: it is sent to libvirt but never stored in the plan or the " +
					"state (OpenTofu and Terraform 1.11 or later; it accepts ephemeral values). As the state holds nothing to " +
					"compare with, a new `value_wo` alone plans no change: change `value_wo_version` with it to set it in place. " +
					"A value changed outside is never detected. Conflicts with `value` and `value_base64`.",
			},
			"value_wo_version": schema.Int64Attribute{
				Optional: true,
				Description: "Any number; changing it sets `value_wo` again, in place (the usual trigger of a write-only value). " +
					"Needs `value_wo`.",
			},
		},
		// libvirt refuses another usage id for a UUID; a new usage type is
		// accepted only with the same id, which is rarely what is meant:
		// both replace (private yes -> no is added in ModifyPlan)
		ReplaceOnChange: []string{"uuid", "usage"},
	}, r)
	return r
}

type secretResource struct {
	treeresource.Base[libvirtxml.Secret]
}

// secretValue returns the value bytes the attributes hold (value or
// value_base64) and whether one is set and known.
func secretValue(attrs map[string]tftypes.Value) ([]byte, bool, error) {
	if s, ok := treeresource.String(attrs, "value"); ok {
		return []byte(s), true, nil
	}
	if s, ok := treeresource.String(attrs, "value_base64"); ok {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, false, fmt.Errorf("value_base64 is not standard base64: %w", err)
		}
		return b, true, nil
	}
	return nil, false, nil
}

// hasValueAttr reports whether value, value_base64 or value_wo_version (the
// trace of a write-only value) is set, known or not.
func hasValueAttr(attrs map[string]tftypes.Value) bool {
	for _, n := range []string{"value", "value_base64", "value_wo_version"} {
		if v, ok := attrs[n]; ok && v.Type() != nil && !v.IsNull() {
			return true
		}
	}
	return false
}

func (r *secretResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	model := r.Model()
	doc, err := model.FromValues(treeresource.DocValues(model.AttributeTypes(), plan))
	if err != nil {
		treeresource.AddConversionError(&resp.Diagnostics, "Invalid secret definition", err)
		return
	}
	value, hasValue, err := secretValue(plan)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("value_base64"), "Invalid secret value", err.Error())
		return
	}
	if wo, ok := treeresource.String(treeresource.ObjectAttrs(req.Config.Raw), "value_wo"); ok {
		value, hasValue = []byte(wo), true // write-only: only the configuration has it
	}
	// The UUID is chosen here: when the connection breaks and Do runs the
	// define again, it redefines the same secret instead of adding another.
	userUUID := doc.UUID != ""
	if !userUUID {
		doc.UUID = libvirtops.NewUUID()
	}
	if _, err := libvirtops.ParseUUID(doc.UUID); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("uuid"), "Invalid secret UUID", err.Error())
		return
	}
	if _, err := doc.Marshal(); err != nil {
		resp.Diagnostics.AddError("Cannot write secret XML", err.Error())
		return
	}
	// a secret that is not ours (same UUID, or same usage): never redefine it
	conflict, err := r.secretConflict(ctx, doc, userUUID)
	if err != nil {
		if conflict.Equal(path.Empty()) {
			resp.Diagnostics.AddError("Cannot create secret", err.Error())
		} else {
			resp.Diagnostics.AddAttributeError(conflict, "Cannot create secret", err.Error())
		}
		return
	}
	r.Finish(ctx, treeresource.Ending{Op: "create", Plan: req.Plan.Raw, ID: doc.UUID, Prior: plan,
		// the create undefines a secret whose value it could not set
		Apply: func(*diag.Diagnostics) (string, error) {
			return "", libvirtops.Secrets(r.Client()).Create(ctx, doc, value, hasValue)
		},
		Undo: func() (string, bool) {
			return r.RemovalSaid(libvirtops.Secrets(r.Client()).Remove(ctx, doc.UUID), doc.UUID, "virsh secret-undefine "+doc.UUID), false
		}}, &resp.State, &resp.Diagnostics)
}

// secretConflict finds a secret that is not ours with the UUID the plan
// chose (userUUID) or the same usage, and names the attribute and the way out.
func (r *secretResource) secretConflict(ctx context.Context, doc *libvirtxml.Secret, userUUID bool) (path.Path, error) {
	secrets := libvirtops.Secrets(r.Client())
	if userUUID {
		exists, err := secrets.Exists(ctx, doc.UUID)
		if err != nil {
			return path.Empty(), err
		}
		if exists {
			return path.Root("uuid"), fmt.Errorf("a secret with UUID %s already exists and is not in this state; adopt it with an import block "+
				"(id = %q), or remove it: virsh secret-undefine %s", doc.UUID, doc.UUID, doc.UUID)
		}
	}
	if doc.Usage == nil {
		return path.Empty(), nil
	}
	ut, ok := secretUsageTypes[doc.Usage.Type]
	if !ok {
		return path.Empty(), nil // ValidateConfig reported it; libvirt refuses it at define
	}
	usageID := secretUsageID(doc.Usage)
	id, err := secrets.UsageTaken(ctx, doc.Usage.Type, usageID)
	if err != nil || id == "" {
		return path.Empty(), err
	}
	return path.Root("usage"), fmt.Errorf("usage.%s: secret %s already has usage %s %q and is not in this state; libvirt allows one secret per "+
		"usage. Adopt it with an import block (id = %q), or remove it: virsh secret-undefine %s",
		ut.field, id, doc.Usage.Type, usageID, id, id)
}

// secretUsageID is the usage id libvirt indexes the usage by.
func secretUsageID(u *libvirtxml.SecretUsage) string {
	switch u.Type {
	case "volume":
		return u.Volume
	case "iscsi":
		return u.Target
	}
	return u.Name
}

// Fetch reads the secret's definition. The value is not part of it.
func (r *secretResource) Fetch(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.Secret], error) {
	doc, err := libvirtops.Secrets(c).Fetch(ctx, id)
	if err != nil {
		return nil, err
	}
	return &treeresource.Fetched[libvirtxml.Secret]{Doc: doc, Own: map[string]tftypes.Value{
		"id": treeresource.StringValue(doc.UUID),
	}}, nil
}

// PruneImported drops ephemeral='no' and private='no', which libvirt
// reports for every secret: a configuration that leaves them out then plans
// no change after import.
func (r *secretResource) PruneImported(doc *libvirtxml.Secret) {
	if doc.Ephemeral == "no" {
		doc.Ephemeral = ""
	}
	if doc.Private == "no" {
		doc.Private = ""
	}
}

// Read refreshes the definition (Base.Read), then the value where libvirt
// returns it: a secret that is not private and whose value the state holds.
// A changed value is stored in state, so the next plan sets the configured
// one again. libvirt never returns a private secret's value: the state keeps
// the value last applied.
func (r *secretResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.Base.Read(ctx, req, resp)
	if resp.Diagnostics.HasError() || resp.State.Raw.IsNull() {
		return
	}
	st := treeresource.ObjectAttrs(resp.State.Raw)
	attr := ""
	for _, n := range []string{"value", "value_base64"} {
		if _, ok := treeresource.String(st, n); ok {
			attr = n
		}
	}
	if attr == "" {
		return // imported, or no value managed
	}
	stored, _, err := secretValue(st)
	if err != nil {
		return // a value_base64 that does not decode was never applied
	}
	id, _ := treeresource.String(st, "id")
	if _, err := libvirtops.ParseUUID(id); err != nil {
		return
	}
	v, err := libvirtops.Secrets(r.Client()).Value(ctx, id)
	private, hasValue, live := v.Private, v.HasValue, v.Value
	if err != nil {
		if libvirtconn.IsNotFound(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		resp.Diagnostics.AddError("Cannot read secret value", err.Error())
		return
	}
	if private || (hasValue && bytes.Equal(live, stored)) {
		return
	}
	// libvirt holds another value (or none): store it, so the plan sets
	// the configured value again; null where it cannot be written as the
	// attribute in use
	nv := tftypes.NewValue(tftypes.String, nil)
	switch {
	case !hasValue:
	case attr == "value_base64":
		nv = treeresource.StringValue(base64.StdEncoding.EncodeToString(live))
	case utf8.Valid(live):
		nv = treeresource.StringValue(string(live))
	}
	st[attr] = nv
	resp.State.Raw = tftypes.NewValue(resp.State.Raw.Type(), st)
}

// LookUp resolves a secret's UUID, or a usage id (volume path or name).
func (r *secretResource) LookUp(ctx context.Context, c *libvirtconn.Client, importID string) (string, error) {
	return libvirtops.Secrets(c).LookUp(ctx, importID)
}

// Update redefines the secret (same UUID) when its document changed, on top
// of what libvirt holds now, and sets a changed value. ModifyPlan replaces
// the secret for the changes libvirt refuses in place.
func (r *secretResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	prior := treeresource.ObjectAttrs(req.State.Raw)
	id, _ := treeresource.String(prior, "id")
	if _, err := libvirtops.ParseUUID(id); err != nil {
		resp.Diagnostics.AddError("Invalid secret id", err.Error())
		return
	}
	model := r.Model()
	planDoc := treeresource.DocValues(model.AttributeTypes(), plan)
	stateDoc := treeresource.DocValues(model.AttributeTypes(), prior)
	redefine := false
	for name, v := range planDoc {
		if !v.Equal(stateDoc[name]) {
			redefine = true
		}
	}
	var redefined *libvirtxml.Secret
	if redefine {
		// the plan is applied to the definition libvirt holds now: what
		// the configuration does not mention stays
		current, err := r.Fetch(ctx, r.Client(), id)
		if err != nil {
			resp.Diagnostics.AddError("Cannot read secret before update", err.Error())
			return
		}
		doc, err := model.FromValues(model.Patch(stateDoc, planDoc, model.ToValues(current.Doc)))
		if err != nil {
			treeresource.AddConversionError(&resp.Diagnostics, "Invalid secret definition", err)
			return
		}
		doc.UUID = id
		if _, err = doc.Marshal(); err != nil {
			resp.Diagnostics.AddError("Cannot write secret XML", err.Error())
			return
		}
		redefined = doc
	}
	value, hasValue, err := secretValue(plan)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("value_base64"), "Invalid secret value", err.Error())
		return
	}
	old, hadValue, _ := secretValue(prior)
	setValue := hasValue && (!hadValue || !bytes.Equal(old, value))
	if wo, ok := treeresource.String(treeresource.ObjectAttrs(req.Config.Raw), "value_wo"); ok {
		// write-only: set when its version changes, or when it takes over
		// from value or value_base64
		if !plan["value_wo_version"].Equal(prior["value_wo_version"]) || hadValue {
			value, setValue = []byte(wo), true
		}
	}
	// a redefinition keeps the value libvirt holds
	r.Finish(ctx, treeresource.Ending{Op: "update", Plan: req.Plan.Raw, ID: id, Prior: plan, Before: prior,
		Apply: func(*diag.Diagnostics) (string, error) {
			return "", libvirtops.Secrets(r.Client()).Update(ctx, id, redefined, value, setValue)
		}}, &resp.State, &resp.Diagnostics)
}

func (r *secretResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	id, _ := treeresource.String(treeresource.ObjectAttrs(req.State.Raw), "id")
	if _, err := libvirtops.ParseUUID(id); err != nil {
		resp.Diagnostics.AddError("Invalid secret id", err.Error())
		return
	}
	err := libvirtops.Secrets(r.Client()).Remove(ctx, id)
	if err != nil && !libvirtconn.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete secret", err.Error())
	}
}

// ModifyPlan adds the replacements libvirt imposes beyond a new UUID or
// usage (Spec.ReplaceOnChange): it refuses to turn a private secret public,
// mishandles a persistent secret turned ephemeral, and cannot remove a value
// once set.
func (r *secretResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan := r.PlanUpdate(req, &resp.RequiresReplace)
	if plan == nil {
		return // create or destroy
	}
	state := treeresource.ObjectAttrs(req.State.Raw)
	wasPrivate, _ := treeresource.String(state, "private")
	if p := plan["private"]; libvirtops.YesWord(wasPrivate) && p.IsKnown() {
		now, _ := treeresource.String(plan, "private")
		if !libvirtops.YesWord(now) {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("private"))
		}
	}
	// libvirt 9.0 keeps the file of a persistent secret redefined ephemeral,
	// and undefining it then leaves the file: the secret would come back
	// when libvirtd restarts. Replacing removes the persistent one first.
	wasEphemeral, _ := treeresource.String(state, "ephemeral")
	if e := plan["ephemeral"]; !libvirtops.YesWord(wasEphemeral) && e.IsKnown() {
		now, _ := treeresource.String(plan, "ephemeral")
		if libvirtops.YesWord(now) {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("ephemeral"))
		}
	}
	// a write-only value is in the configuration only
	cfgWO := treeresource.ObjectAttrs(req.Config.Raw)["value_wo"]
	woConfigured := cfgWO.Type() != nil && !cfgWO.IsNull()
	if hasValueAttr(state) && !hasValueAttr(plan) && !woConfigured {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("value"), path.Root("value_base64"), path.Root("value_wo_version"))
	}
	treeresource.SetPlan(resp, plan)
}

// ValidateConfig names the attribute of a value or usage libvirt would
// refuse at apply, and what is allowed.
func (r *secretResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	cfg := treeresource.ObjectAttrs(req.Config.Raw)
	if cfg == nil {
		return
	}
	set := func(n string) bool { v := cfg[n]; return v.Type() != nil && !v.IsNull() }
	var given []string
	for _, n := range []string{"value", "value_base64", "value_wo"} {
		if set(n) {
			given = append(given, n)
		}
	}
	if len(given) > 1 {
		resp.Diagnostics.AddAttributeError(path.Root(given[1]), "Conflicting secret values",
			fmt.Sprintf("Set one of value (text), value_base64 (bytes as base64) or value_wo (text, write-only), not %s.", strings.Join(given, " and ")))
	}
	if set("value_wo_version") && !set("value_wo") {
		resp.Diagnostics.AddAttributeError(path.Root("value_wo_version"), "value_wo_version without value_wo",
			"value_wo_version triggers setting value_wo again; set value_wo too (or remove value_wo_version).")
	}
	if s, ok := treeresource.String(cfg, "value_base64"); ok {
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("value_base64"), "Invalid value_base64",
				"value_base64 must be standard base64 (RFC 4648, with padding), e.g. base64encode(...) or `ceph auth get-key` output: "+err.Error())
		}
	}
	secretValidateUsage(treeresource.ObjectAttrs(cfg["usage"]), &resp.Diagnostics)
}

// secretValidateUsage checks usage.type and that the usage id attribute of
// that type is set (libvirt's grammar requires it).
func secretValidateUsage(usage map[string]tftypes.Value, diags *diag.Diagnostics) {
	if usage == nil {
		return
	}
	typ, ok := treeresource.String(usage, "type")
	if !ok {
		if v := usage["type"]; v.Type() != nil && v.IsNull() {
			diags.AddAttributeError(path.Root("usage"), "Missing secret usage type",
				"usage.type is required in usage: one of "+secretUsageTypeList()+".")
		}
		return
	}
	ut, known := secretUsageTypes[typ]
	if !known {
		diags.AddAttributeError(path.Root("usage"), "Invalid secret usage type",
			fmt.Sprintf("usage.type %q is not a libvirt secret usage type: use one of %s.", typ, secretUsageTypeList()))
		return
	}
	if v := usage[ut.field]; v.Type() != nil && v.IsNull() {
		diags.AddAttributeError(path.Root("usage"), "Missing secret usage id",
			fmt.Sprintf("usage.type %q needs usage.%s (%s).", typ, ut.field, map[string]string{
				"volume": "the absolute path of the encrypted volume",
				"name":   "the name the secret is known by",
				"target": "the iSCSI target",
			}[ut.field]))
	}
	for f := range map[string]bool{"volume": true, "name": true, "target": true} {
		if f == ut.field {
			continue
		}
		if v := usage[f]; v.Type() != nil && !v.IsNull() {
			diags.AddAttributeError(path.Root("usage"), "Secret usage attribute not used by this type",
				fmt.Sprintf("usage.%s is not used by usage.type %q (it takes usage.%s); libvirt would drop it.", f, typ, ut.field))
		}
	}
}

func secretUsageTypeList() string {
	names := make([]string, 0, len(secretUsageTypes))
	for n := range secretUsageTypes {
		names = append(names, "`"+n+"`")
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
