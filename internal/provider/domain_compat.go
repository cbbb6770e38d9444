package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// dmacvicar/libvirt 0.9.x configures starting, stopping for an update and
// destroying a domain with three nested attributes. They are accepted here
// with the same shape, so that its configurations work with only the
// provider source changed; each maps onto this provider's own options.
const (
	attrCreate  = "create"
	attrDestroy = "destroy"
	attrUpdate  = "update"
)

func shutdownAttribute(when string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional:    true,
		Description: "A graceful (ACPI) shutdown " + when + " (dmacvicar/libvirt 0.9.x's spelling).",
		Attributes: map[string]schema.Attribute{
			"timeout": schema.Int64Attribute{
				Optional:    true,
				Description: "Seconds to wait for the guest to shut down before forcing it off. Overrides `shutdown_timeout` " + when + ".",
			},
		},
	}
}

// compatAttributes are the domain's 0.9.x-shaped own attributes.
func compatAttributes() map[string]schema.Attribute {
	flag := func(desc string) schema.Attribute { return schema.BoolAttribute{Optional: true, Description: desc} }
	return map[string]schema.Attribute{
		attrCreate: schema.SingleNestedAttribute{
			Optional: true,
			Description: "Start flags, in dmacvicar/libvirt 0.9.x's shape (VIR_DOMAIN_START_*), used whenever the provider starts the domain. " +
				"`paused` and `force_boot` are `start_paused` and `start_force_boot` (set one spelling, not both).",
			Attributes: map[string]schema.Attribute{
				"paused":       flag("Same as `start_paused`."),
				"force_boot":   flag("Same as `start_force_boot`."),
				"bypass_cache": flag("Start without using the host's file system cache (VIR_DOMAIN_START_BYPASS_CACHE)."),
				"reset_nvram":  flag("Re-create the UEFI variable store from its template at each start (VIR_DOMAIN_START_RESET_NVRAM)."),
				"validate":     flag("Validate the definition against libvirt's schema when starting (VIR_DOMAIN_START_VALIDATE)."),
				"autodestroy": flag("Refused when true: libvirt would destroy the domain as soon as the provider's connection closes, " +
					"that is right after apply."),
			},
		},
		attrDestroy: schema.SingleNestedAttribute{
			Optional:    true,
			Description: "How the domain is stopped when it is destroyed, in dmacvicar/libvirt 0.9.x's shape.",
			Attributes: map[string]schema.Attribute{
				"graceful": flag("Force off with VIR_DOMAIN_DESTROY_GRACEFUL (SIGTERM only, no SIGKILL) when the shutdown times out."),
				"shutdown": shutdownAttribute("before the domain is destroyed"),
			},
		},
		attrUpdate: schema.SingleNestedAttribute{
			Optional:    true,
			Description: "How the domain is stopped when an update must stop it (rename, `restart_on_change`, `running = false`), in dmacvicar/libvirt 0.9.x's shape.",
			Attributes: map[string]schema.Attribute{
				"shutdown": shutdownAttribute("when an update stops the domain"),
			},
		},
	}
}

// ValidateConfig refuses what the compatibility attributes cannot mean
// here: autodestroy, and a start flag written in both spellings.
func (r *domainResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	cfg := treeresource.ObjectAttrs(req.Config.Raw)
	create := cfg[attrCreate]
	if b, ok := nestedBool(create, "autodestroy"); ok && b {
		resp.Diagnostics.AddAttributeError(path.Root(attrCreate).AtName("autodestroy"), "autodestroy is not supported",
			"create.autodestroy = true would make libvirt destroy the domain when the provider's connection closes, right after apply. "+
				"Remove it, or set it to false.")
	}
	for own, alias := range map[string]string{attrStartPaused: "paused", attrStartForceBoot: "force_boot"} {
		if _, set := nestedBool(create, alias); set {
			if v := cfg[own]; v.Type() != nil && !v.IsNull() {
				resp.Diagnostics.AddAttributeError(path.Root(attrCreate).AtName(alias), "Start flag set twice",
					fmt.Sprintf("create.%s and %s are the same flag (the first is dmacvicar/libvirt 0.9.x's spelling). Set one of them.", alias, own))
			}
		}
	}
	validateIPWaits(cfg, &resp.Diagnostics)
	for _, name := range []string{attrDestroy, attrUpdate} {
		if n, ok := shutdownTimeoutOf(cfg[name]); ok && n < 0 {
			p := path.Root(name).AtName("shutdown").AtName("timeout")
			resp.Diagnostics.AddAttributeError(p, "Invalid shutdown timeout", fmt.Sprintf("%s must be 0 or more seconds, got %d.", p, n))
		}
	}
}

// applyDomainCompat reads the compatibility attributes into o.
func applyDomainCompat(o *libvirtops.DomainOptions, attrs map[string]tftypes.Value) {
	create := attrs[attrCreate]
	if b, ok := nestedBool(create, "paused"); ok {
		o.Paused = b
	}
	if b, ok := nestedBool(create, "force_boot"); ok {
		o.ForceBoot = b
	}
	o.BypassCache, _ = nestedBool(create, "bypass_cache")
	o.ResetNVRAM, _ = nestedBool(create, "reset_nvram")
	o.Validate, _ = nestedBool(create, "validate")
	o.Graceful, _ = nestedBool(attrs[attrDestroy], "graceful")
	o.DestroyShutdown, o.UpdateShutdown = o.ShutdownTimeout, o.ShutdownTimeout
	if n, ok := shutdownTimeoutOf(attrs[attrDestroy]); ok && n >= 0 {
		o.DestroyShutdown = time.Duration(n) * time.Second
	}
	if n, ok := shutdownTimeoutOf(attrs[attrUpdate]); ok && n >= 0 {
		o.UpdateShutdown = time.Duration(n) * time.Second
	}
}

// nestedBool reads bool attribute name of an object value; set is false
// when the object or the attribute is null or unknown.
func nestedBool(obj tftypes.Value, name string) (value, set bool) {
	if obj.Type() == nil || obj.IsNull() || !obj.IsKnown() {
		return false, false
	}
	return treeresource.Bool(treeresource.ObjectAttrs(obj), name)
}

// shutdownTimeoutOf reads shutdown.timeout of a destroy or update object.
func shutdownTimeoutOf(obj tftypes.Value) (int64, bool) {
	return treeresource.Int64(treeresource.ObjectAttrs(treeresource.Nested(obj, "shutdown")), "timeout")
}
