package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The first-boot files (libvirt_cloudinit_disk, libvirt_ignition,
// libvirt_combustion) take each secret-bearing input either as a plain
// attribute, kept in state so that a lost file can be written again, or as a
// write-only twin "<input>_wo" with a version "<input>_wo_version", the
// ecosystem's convention (libvirt_secret.value_wo). A write-only value is in
// the configuration only while apply runs: the file's name cannot be derived
// from it at plan, so a file built from one is named after its identity (the
// plain inputs and the versions, identityDigest), and its checksum and size
// are known only once apply has written it.

// writeOnlyInput is one input of a first-boot file that has a write-only twin.
type writeOnlyInput struct {
	plain string // "user_data"
}

func (w writeOnlyInput) wo() string      { return w.plain + "_wo" }
func (w writeOnlyInput) version() string { return w.plain + "_wo_version" }

// schema returns the twin and its version attribute; what names the content
// ("the `user-data` file"), effect points at what changing the version does.
func (w writeOnlyInput) schema(what, effect string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		w.wo(): schema.StringAttribute{
			Optional:  true,
			Sensitive: true,
			WriteOnly: true,
			Description: fmt.Sprintf("Write-only variant of `%s`: %s, taken from the configuration while apply runs and never "+
				"stored in the plan or the state (OpenTofu and Terraform 1.11 or later; it accepts ephemeral values). Set one of "+
				"`%s` and `%s`; `%s` is required with it. As the state holds nothing to compare with, a new value alone plans "+
				"no change: change `%s` with it. %s",
				w.plain, what, w.plain, w.wo(), w.version(), w.version(), effect),
		},
		w.version(): schema.Int64Attribute{
			Optional: true,
			Description: fmt.Sprintf("Any number, required with `%s` and only with it; the file is named after it instead of "+
				"the write-only content, so changing it replaces the resource and writes the file again from `%s`. %s",
				w.wo(), w.wo(), effect),
			PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
		},
	}
}

// validate reports a plain value beside its write-only twin, a twin without
// its version and a version without its twin, each at its attribute path. A
// value not known yet counts as set.
func (w writeOnlyInput) validate(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) {
	var plain, wo types.String
	var version types.Int64
	diags.Append(cfg.GetAttribute(ctx, path.Root(w.plain), &plain)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root(w.wo()), &wo)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root(w.version()), &version)...)
	if diags.HasError() {
		return
	}
	switch {
	case !plain.IsNull() && !wo.IsNull():
		diags.AddAttributeError(path.Root(w.wo()), "Conflicting "+w.plain+" values",
			fmt.Sprintf("Set one of %s (stored in state) or %s (write-only, never stored), not both.", w.plain, w.wo()))
	case !wo.IsNull() && version.IsNull():
		diags.AddAttributeError(path.Root(w.wo()), w.wo()+" without "+w.version(),
			fmt.Sprintf("%s needs %s (any number): the file is named after the version, and changing it writes the file again from %s.",
				w.wo(), w.version(), w.wo()))
	case wo.IsNull() && !version.IsNull():
		diags.AddAttributeError(path.Root(w.version()), w.version()+" without "+w.wo(),
			fmt.Sprintf("%s versions the write-only %s; set %s too (or remove %s).", w.version(), w.wo(), w.wo(), w.version()))
	}
}

// configValue returns the twin's value from the configuration at apply ("" when null).
func (w writeOnlyInput) configValue(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) string {
	var wo types.String
	diags.Append(cfg.GetAttribute(ctx, path.Root(w.wo()), &wo)...)
	return wo.ValueString()
}

// identityDigest is the hex SHA-256 of named parts, each written with its
// length so that no two lists of parts give the same bytes. A file built
// from write-only content is named after the digest of its plain inputs and
// the versions, never of the write-only content (which plan does not see).
func identityDigest(parts ...[2]string) string {
	h := sha256.New()
	fmt.Fprint(h, "write-only first-boot file v1\n")
	for _, p := range parts {
		fmt.Fprintf(h, "%s %d:%s\n", p[0], len(p[1]), p[1])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// versionPart is a version attribute as a part of identityDigest.
func versionPart(name string, v types.Int64) [2]string {
	if v.IsNull() {
		return [2]string{name, ""}
	}
	return [2]string{name, fmt.Sprintf("v%d", v.ValueInt64())}
}
