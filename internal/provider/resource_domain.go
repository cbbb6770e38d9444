package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

var (
	_ resource.ResourceWithImportState    = (*domainResource)(nil)
	_ resource.ResourceWithConfigure      = (*domainResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*domainResource)(nil)
	_ resource.ResourceWithValidateConfig = (*domainResource)(nil)
)

// NewDomainResource returns the libvirt_domain resource.
func NewDomainResource() resource.Resource {
	r := &domainResource{}
	r.Base = treeresource.NewBase(domainSpec(), r)
	return r
}

type domainResource struct {
	treeresource.Base[libvirtxml.Domain]
	hosts *hostroute.Set // the provider's hosts, for a move (domain_move.go)
}

// The domain's own (provider-level) attributes, beside the XML tree.
const (
	attrRunning         = "running"
	attrAutostart       = "autostart"
	attrStartPaused     = "start_paused"
	attrStartForceBoot  = "start_force_boot"
	attrShutdownTimeout = "shutdown_timeout"
	attrRestartOnChange = "restart_on_change"
	attrConsoleURLs     = "console_urls"
)

// defaultShutdownTimeout is shutdown_timeout's default.
const defaultShutdownTimeout = libvirtops.DefaultShutdownTimeout

func domainSpec() treeresource.Spec[libvirtxml.Domain] {
	spec := domainOwnSpec()
	for name, a := range compatAttributes() {
		spec.Own[name] = a
	}
	return spec
}

func domainOwnSpec() treeresource.Spec[libvirtxml.Domain] {
	return treeresource.Spec[libvirtxml.Domain]{
		Routing:  hostroute.Attributes("domain"),
		Name:     "domain",
		Identity: uuidIdentity("domain"),
		Model:    xmlschema.Domain(),
		Description: "A libvirt domain (virtual machine). The attributes mirror the libvirt domain XML " +
			"(https://libvirt.org/formatdomain.html) one to one; `running`, `autostart` and the start and " +
			"shutdown options are the provider's own. vCPU (`vcpu_current`) and memory (`current_memory`) changes, " +
			"disk and interface hot-plug, `running` and `autostart` apply live; other changes are written to the " +
			"persistent definition and take effect at the next boot (the plan warns), or at once with `restart_on_change`. " +
			"An update is applied to the definition libvirt holds at that moment: what the configuration does not mention " +
			"(addresses and controllers libvirt added, a description set with virsh) is kept, and on an existing domain " +
			"adopted by import, attributes the configuration leaves out keep their values. " +
			"A MAC address in the configuration that another domain on the host already uses is warned about at plan. " +
			"A console password kept out of the state: `devices.graphics[].vnc.passwd_wo` (or `.spice.passwd_wo`, write-only) " +
			"with `passwd_wo_version`, see the guide \"Secrets that never reach the state\". " +
			"How any libvirt XML is written as attributes: see the guide \"Writing libvirt XML as attributes\". " +
			"Recipes for common tasks (a second NIC, a bridge to the host's br0, macvtap, a virtio-scsi disk with a WWN, " +
			"UEFI with Secure Boot and a TPM, a host-passthrough CPU, PCI passthrough, virtiofs shared folders): " +
			"see the guide \"Domain recipes\".",
		Own: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The domain's UUID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			attrRunning: schema.BoolAttribute{
				Optional: true, Computed: true, PlanModifiers: []planmodifier.Bool{treeresource.KeepOrDefaultBool(false)},
				Description: "Start the domain after defining it and keep it started; false stops it (graceful shutdown, then force off after `shutdown_timeout`). A domain found stopped while this is true plans a start. " +
					"Default: false for a domain this configuration creates; when unset on an existing domain (imported, or moved from another provider), the domain keeps the state it has.",
			},
			attrAutostart: schema.BoolAttribute{
				Optional: true, Computed: true, PlanModifiers: []planmodifier.Bool{treeresource.KeepOrDefaultBool(false)},
				Description: "Start the domain when libvirtd starts. Default: false for a domain this configuration creates; when unset on an existing domain, its flag is kept.",
			},
			attrStartPaused: schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "Start the domain's CPUs paused (VIR_DOMAIN_START_PAUSED). Default: false.",
			},
			attrStartForceBoot: schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "Boot afresh, discarding any managed-save image (VIR_DOMAIN_START_FORCE_BOOT). Default: false.",
			},
			attrShutdownTimeout: schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(defaultShutdownTimeout),
				Description: "How long to wait for a graceful (ACPI) shutdown when stopping or deleting the domain before forcing it off, as a Go duration (\"90s\", \"5m\"). \"0s\" forces off at once. " +
					"A domain that cannot receive the request (paused, or with neither `features.acpi` nor a QEMU guest agent channel) is forced off without waiting. Default: \"" + defaultShutdownTimeout + "\".",
			},
			attrRestartOnChange: schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				Description: "When a change to a running domain only takes effect at its next boot, restart it (graceful shutdown, then start) during apply. When false, the change waits for the next boot and the plan shows a warning. Default: false.",
			},
			hostroute.Attr: domainHostAttribute(),
			attrConsoleURLs: schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				Description: "Graphical console URLs of the running domain, read from its live definition (vnc://host:port, spice://host:port; host is the connection's host).",
			},
		},
		// libvirt cannot change a domain's type in place
		ReplaceOnChange: []string{"type"},
	}
}

// readDomainOptions reads the own attributes that steer operations.
func readDomainOptions(attrs map[string]tftypes.Value) (libvirtops.DomainOptions, error) {
	var o libvirtops.DomainOptions
	o.Running, _ = treeresource.Bool(attrs, attrRunning)
	o.Autostart, _ = treeresource.Bool(attrs, attrAutostart)
	o.Paused, _ = treeresource.Bool(attrs, attrStartPaused)
	o.ForceBoot, _ = treeresource.Bool(attrs, attrStartForceBoot)
	o.RestartOnChange, _ = treeresource.Bool(attrs, attrRestartOnChange)
	o.ShutdownTimeout, _ = time.ParseDuration(defaultShutdownTimeout)
	if s, ok := treeresource.String(attrs, attrShutdownTimeout); ok {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return o, fmt.Errorf("shutdown_timeout %q is not a duration such as \"90s\" or \"5m\"", s)
		}
		o.ShutdownTimeout = d
	}
	applyDomainCompat(&o, attrs)
	return o, nil
}

func (r *domainResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	opts, err := readDomainOptions(plan)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root(attrShutdownTimeout), "Invalid shutdown_timeout", err.Error())
		return
	}
	doc := domainFromPlan(domainWithWriteOnly(plan, req.Config.Raw, nil), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	// The UUID is chosen here, not by libvirt: when the connection breaks
	// and the define runs again on a new one, defining the same name and
	// UUID again is a no-op redefinition instead of "already exists".
	if doc.UUID == "" {
		doc.UUID = libvirtops.NewUUID()
	}
	if !r.Finish(ctx, treeresource.Ending{Op: "create", Plan: req.Plan.Raw, ID: doc.UUID, Prior: plan,
		Apply: func(*diag.Diagnostics) (string, error) {
			_, err := libvirtops.Domains(r.Client()).DefineAndStart(ctx, doc, opts)
			return "", err
		},
		// a failed define or start may have left the domain (a broken
		// connection cannot say): recorded as unfinished, it is looked up
		// and re-created by the next apply
		Undo: func() (string, bool) { return "", r.mayExist(ctx, doc.UUID) },
		// the domain was defined: without a state nobody would remove it
		KeepUnfinished: true}, &resp.State, &resp.Diagnostics) {
		return
	}
	id := doc.UUID
	if opts.Running {
		// the domain exists and is in state: a failed wait taints it, nothing is orphaned
		if err := r.waitForIPs(ctx, id, doc.Name, ipWaits(plan)); err != nil {
			resp.Diagnostics.AddError("wait_for_ip", err.Error())
		}
	}
}

// mayExist tells, after a failed create, whether the domain with the UUID
// this provider chose may exist: it does, or the look-up cannot say (the
// connection is broken). The look-up runs briefly on a context of its own:
// tofu may be stopping.
func (r *domainResource) mayExist(ctx context.Context, uuid string) bool {
	lookCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return libvirtops.Domains(r.Client()).MayExist(lookCtx, uuid)
}

// FixUp restores what libvirt drops from the user's document (keepVCPUCurrent).
func (r *domainResource) FixUp(prior map[string]tftypes.Value, def *libvirtxml.Domain) {
	keepVCPUCurrent(prior, def)
}

// keepVCPUCurrent restores <vcpu current> where libvirt drops it: libvirt
// writes no current attribute when it equals the vCPU count, so a user's
// vcpu_current = vcpu would read back as null (an inconsistent result).
func keepVCPUCurrent(priorDoc map[string]tftypes.Value, def *libvirtxml.Domain) {
	v, ok := priorDoc["vcpu_current"]
	if !ok || !v.IsKnown() || v.IsNull() || def.VCPU == nil || def.VCPU.Current != 0 {
		return
	}
	def.VCPU.Current = def.VCPU.Value
}

func (r *domainResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) || !r.applyMove(ctx, req, resp) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	state := treeresource.ObjectAttrs(req.State.Raw)
	id, _ := treeresource.String(state, "id")
	if _, err := libvirtops.ParseUUID(id); err != nil {
		resp.Diagnostics.AddError("Invalid domain id", err.Error())
		return
	}
	opts, err := readDomainOptions(plan)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root(attrShutdownTimeout), "Invalid shutdown_timeout", err.Error())
		return
	}
	// the plan is applied to the definition libvirt holds now: what the plan
	// does not change stays as it is there (xmlschema.Model.Patch)
	current, err := r.Fetch(ctx, r.Client(), id)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read domain before update", err.Error())
		return
	}
	model := r.Model()
	types := model.AttributeTypes()
	planDoc := treeresource.DocValues(types, domainWithWriteOnly(plan, req.Config.Raw, state))
	newDoc, err := model.FromValues(model.Patch(treeresource.DocValues(types, state), planDoc, model.ToValues(current.Doc)))
	if err != nil {
		treeresource.AddConversionError(&resp.Diagnostics, "Invalid domain definition", err)
		return
	}
	oldDoc := current.Doc
	newDoc.UUID = id
	if !r.Finish(ctx, treeresource.Ending{Op: "update", Plan: req.Plan.Raw, ID: id, Prior: plan,
		Apply: func(*diag.Diagnostics) (string, error) {
			return "", libvirtops.Domains(r.Client()).Update(ctx, id, oldDoc, newDoc, opts)
		}}, &resp.State, &resp.Diagnostics) {
		return
	}
	if wasRunning, _ := treeresource.Bool(state, attrRunning); opts.Running && !wasRunning {
		if err := r.waitForIPs(ctx, id, newDoc.Name, ipWaits(plan)); err != nil {
			resp.Diagnostics.AddError("wait_for_ip", err.Error())
		}
	}
}

// domainWithWriteOnly returns the plan with the configuration's console
// passwords (the write-only twins, xmlschema.Policy.WriteOnly) where the
// document takes them: all of them at create (prior nil), at update those
// whose version changed. Only the document written to libvirt is built
// from it; plan and state keep the passwords null, and libvirt returns them
// to the SECURE read alone, so the state never holds them.
func domainWithWriteOnly(plan map[string]tftypes.Value, config tftypes.Value, prior map[string]tftypes.Value) map[string]tftypes.Value {
	model := xmlschema.Domain()
	types := model.AttributeTypes()
	var priorDoc map[string]tftypes.Value
	if prior != nil {
		priorDoc = treeresource.DocValues(types, prior)
	}
	merged := model.WithWriteOnly(treeresource.DocValues(types, plan), treeresource.DocValues(types, treeresource.ObjectAttrs(config)), priorDoc)
	out := make(map[string]tftypes.Value, len(plan))
	for k, v := range plan {
		out[k] = v
	}
	for k, v := range merged {
		out[k] = v
	}
	return out
}

func (r *domainResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	state := treeresource.ObjectAttrs(req.State.Raw)
	id, _ := treeresource.String(state, "id")
	if _, err := libvirtops.ParseUUID(id); err != nil {
		resp.Diagnostics.AddError("Invalid domain id", err.Error())
		return
	}
	opts, _ := readDomainOptions(state)
	err := libvirtops.Domains(r.Client()).Delete(ctx, id, opts)
	if err != nil && !libvirtconn.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete domain", err.Error())
	}
}

// LookUp resolves a domain's UUID or name.
func (r *domainResource) LookUp(ctx context.Context, c *libvirtconn.Client, importID string) (string, error) {
	return libvirtops.Domains(c).LookUp(ctx, importID)
}
