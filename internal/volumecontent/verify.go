package volumecontent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// privateContentVerified is the plan's private key saying which
// create.content.url ModifyPlan compared with an adopted volume, so that
// Update does not read both again.
const privateContentVerified = "content_verified"

// recordsContent reports whether the plan gives a volume that has no content
// in state (imported, or adopted from another provider) its
// create.content.url: the content is then compared with what the volume
// holds, because a volume left half-written by an interrupted upload must
// never be taken for complete content.
func recordsContent(prior, plan map[string]tftypes.Value) bool {
	return prior != nil && prior["create"].IsNull() && !plan["create"].IsNull()
}

// verifyAdoptedContent runs at plan: when an adopted volume is given its
// content, a volume that does not hold that content is planned for
// replacement, with a warning saying where it differs and how to keep it.
// Content not known at plan is compared by Update instead.
func verifyAdoptedContent(ctx context.Context, c *libvirtconn.Client, prior, plan map[string]tftypes.Value, private PrivateSetter, replace *path.Paths, diags *diag.Diagnostics) {
	if !recordsContent(prior, plan) {
		return
	}
	if mayHaveChecksum(plan) {
		// the digest is recorded below, or by Update when known only then
		plan["content_digest"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	}
	url, known := contentURLKnown(plan)
	// a checksum (or TLS setting) not known yet is compared by Update, with it
	if !known || url == "" || !treeresource.ObjectAttrs(plan["create"])["content"].IsFullyKnown() {
		return
	}
	key, _ := treeresource.String(prior, "id")
	diff, src, err := compareWithContent(ctx, c, key, plan)
	if err != nil {
		diags.AddAttributeError(path.Root("create").AtName("content").AtName("url"), "Cannot compare the volume with its content",
			fmt.Sprintf("Volume %s has no content recorded in state (it was imported), so it is compared with create.content.url before that is recorded: %v", key, err))
		return
	}
	if diff != nil {
		*replace = append(*replace, path.Root("create"))
		diags.AddAttributeWarning(path.Root("create"), "Volume does not hold its content: it will be replaced",
			fmt.Sprintf("Volume %s has no content recorded in state (it was imported), and it does not hold the content of %s: %s. "+
				"It may be the half-written result of an interrupted upload, or a disk written to since it was created. "+
				"Applying this plan replaces it with the content, and what it holds now is lost. To keep the volume as it is, "+
				"remove create from its configuration, or add lifecycle { ignore_changes = [create] }.", key, url, diff))
		return
	}
	b, _ := json.Marshal(url)
	diags.Append(private.SetKey(ctx, privateContentVerified, b)...)
	// content with a checksum: the digest is recorded as for a volume created
	// from it, so that verify_content checks the adopted volume from now on
	if d := src.Digest(); d != nil {
		plan["content_digest"] = treeresource.StringValue(d.String())
		diags.Append(recordWritten(ctx, src.Written(), private)...)
	}
}

// mayHaveChecksum reports whether create.content has a checksum or
// checksum_url, or one not known yet.
func mayHaveChecksum(attrs map[string]tftypes.Value) bool {
	create := attrs["create"]
	if !create.IsKnown() {
		return true
	}
	content := treeresource.ObjectAttrs(create)["content"]
	if !content.IsKnown() {
		return true
	}
	c := treeresource.ObjectAttrs(content)
	for _, name := range []string{"checksum", "checksum_url"} {
		if v := c[name]; !v.IsKnown() {
			return true
		} else if s, _ := treeresource.String(c, name); s != "" {
			return true
		}
	}
	return false
}

// compareWithContent compares the volume with the plan's create.content,
// opened with its checksum and TLS settings: content that does not match
// its checksum is an error, not a difference.
func compareWithContent(ctx context.Context, c *libvirtconn.Client, key string, plan map[string]tftypes.Value) (*storage.Difference, *storage.Source, error) {
	return libvirtops.Volumes(c).Compare(ctx, key, func() (*storage.Source, error) { return openContent(ctx, plan) })
}

// verifyBeforeRecording runs in Update: content that the plan could not
// compare (its URL was unknown then) is compared now, and a volume that does
// not hold it is not recorded as holding it. It returns the source compared
// when the volume matched (its digest is then recorded), nil when the plan
// had compared it already.
func verifyBeforeRecording(ctx context.Context, c *libvirtconn.Client, prior, plan map[string]tftypes.Value, private PrivateGetter, diags *diag.Diagnostics) *storage.Source {
	if !recordsContent(prior, plan) {
		return nil
	}
	url := contentURL(plan)
	if b, _ := private.GetKey(ctx, privateContentVerified); b != nil {
		var verified string
		if json.Unmarshal(b, &verified) == nil && verified == url {
			return nil
		}
	}
	key, _ := treeresource.String(prior, "id")
	diff, src, err := compareWithContent(ctx, c, key, plan)
	if err != nil {
		diags.AddAttributeError(path.Root("create"), "Cannot compare the volume with its content", fmt.Sprintf("volume %s: %v", key, err))
		return nil
	}
	if diff != nil {
		diags.AddAttributeError(path.Root("create"), "Volume does not hold its content",
			fmt.Sprintf("Volume %s (imported) does not hold the content of %s: %s; it is not recorded as holding it. "+
				"Replace it (tofu apply -replace=<this resource>), or remove create from its configuration to keep it as it is.", key, url, diff))
		return nil
	}
	return src
}

// verifyRecordedContent runs after a refresh: with verify_content, a
// volume that no longer holds what was written has its content_digest
// nulled (ModifyPlan then replaces it).
func verifyRecordedContent(ctx context.Context, c *libvirtconn.Client, private PrivateGetter, resp *resource.ReadResponse) {
	attrs := treeresource.ObjectAttrs(resp.State.Raw)
	if on, _ := treeresource.Bool(attrs, "verify_content"); !on {
		return
	}
	if attrs["content_digest"].IsNull() {
		return
	}
	b, _ := private.GetKey(ctx, privateContentWritten)
	var want storage.VolumeDigest
	if b == nil || json.Unmarshal(b, &want) != nil {
		return
	}
	key, _ := treeresource.String(attrs, "id")
	got, err := libvirtops.Volumes(c).Digest(ctx, key, want.Digest.Algorithm, want.Length)
	if err != nil {
		resp.Diagnostics.AddAttributeWarning(path.Root("verify_content"), "Cannot verify the volume's content", err.Error())
		return
	}
	if got == want.Digest {
		return
	}
	what := fmt.Sprintf("its first %d bytes have %s", want.Length, got)
	if got.Hex == "" {
		what = fmt.Sprintf("it has fewer than the %d bytes recorded", want.Length)
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("content_digest"), "Volume content changed",
		fmt.Sprintf("Volume %s no longer holds the content recorded when it was created or adopted: %s, %s then. It was truncated or "+
			"written to outside of this configuration; the plan replaces it with its content. To keep it as it is, set "+
			"verify_content = false.", key, what, want.Digest))
	attrs["content_digest"] = tftypes.NewValue(tftypes.String, nil)
	resp.State.Raw = tftypes.NewValue(resp.State.Raw.Type(), attrs)
}
