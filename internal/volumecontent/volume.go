package volumecontent

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
)

// What libvirt_volume asks of this package, one entry point per step of
// the resource: its schema, its plan, its read, its update (Create is in
// create.go).

// WithAttributes adds to the volume's own attributes those of its content:
// create (clone and content), content_digest, verify_content,
// content_upstream, content_source and content_bytes.
func WithAttributes(own map[string]schema.Attribute) map[string]schema.Attribute {
	return mergeAttributes(own, map[string]schema.Attribute{
		"create": schema.SingleNestedAttribute{
			Optional: true,
			Description: "Fill the volume when it is created. A change replaces the volume. After an import, adding it records the " +
				"source in state if the volume holds that content (compared at plan, up to the first differing byte); a volume " +
				"that does not, such as a half-written upload, is replaced, with a warning naming the byte where it differs. Content " +
				"with `checksum` or `checksum_url` is also checked against its digest then, and the digest recorded in " +
				"`content_digest`, so that `verify_content` covers the adopted volume.",
			Attributes: map[string]schema.Attribute{
				"clone": schema.SingleNestedAttribute{
					Optional: true,
					Description: "Make the volume a full, independent copy of another volume on the same host (libvirt copies it " +
						"there, also on a remote host; nothing passes through the machine running OpenTofu). The copy has no backing " +
						"chain: an overlay is flattened. Its format is the source's unless `target.format.type` is given, its size the " +
						"source's unless `capacity` is larger (then it is grown after the copy). Progress is logged at INFO every 5 " +
						"seconds. Exactly one of `content` and `clone` is set.",
					Attributes: map[string]schema.Attribute{
						"volume": schema.StringAttribute{
							Required:    true,
							Description: "The volume to copy: its name (in `pool`), or its key (its path for file-based pools).",
						},
						"pool": schema.StringAttribute{
							Optional:    true,
							Description: "The pool of the volume to copy, when `volume` is a name. Default: the pool of the new volume.",
						},
					},
				},
				"content": schema.SingleNestedAttribute{
					Optional:    true,
					Description: "Content to upload. Exactly one of `content` and `clone` is set.",
					Attributes: mergeAttributes(contentDownloadAttributes(), map[string]schema.Attribute{
						"url": schema.StringAttribute{
							Required: true,
							Description: "Where the content comes from: `http://` or `https://` URL, `file://` URL or a local path " +
								"(on the machine running OpenTofu, e.g. `libvirt_cloudinit_disk.x.path`). It is streamed into the " +
								"volume with flat memory use; a server need not send Content-Length. Content compressed with gzip, xz or " +
								"zstd (recognised by its first bytes, whatever the name) is decompressed while it streams, and the " +
								"volume holds the decompressed image. Raw content going into a raw volume of a file-based pool (dir, fs, netfs) is " +
								"uploaded sparse: a local file's holes and any content's runs of zeros of 16 MiB or more are skipped, not sent, " +
								"and the volume stays sparse in the pool. With `TF_LOG=INFO`, the upload's progress (bytes done, total, rate) is " +
								"logged every 5 seconds, and its final figure when it ends. A qcow2 image keeps its format " +
								"(`target.format.type` is set to `qcow2` unless given) and gives the volume its virtual size unless " +
								"`capacity` is larger (then the volume is grown after the upload). A failed download or upload " +
								"leaves no volume behind. A request that fails (no connection, HTTP 5xx or 429) or a connection lost " +
								"mid-stream is retried up to 4 times, after 1, 2, 4 and 8 seconds; a lost connection resumes from the " +
								"byte reached with an HTTP Range request (If-Range on the ETag or Last-Modified, so changed content is " +
								"never spliced on), and a server that cannot resume fails the create. Errors name the URL (a password in " +
								"it masked) and the bytes reached. `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` are honoured. Volumes of " +
								"one apply with the same `url`, `checksum` and `checksum_url` on the same host share one download: the " +
								"first downloads it, the others (those created while it downloads) are copies made by libvirt on the " +
								"host, in any pool but `rbd` ones; each host downloads once. `content_source` and `content_bytes` record " +
								"which volume downloaded and which were copied (and `TF_LOG=INFO` logs \"volume content transferred\" and " +
								"\"volume content copied\"). Into an `rbd` pool (Ceph), whose libvirt driver takes no upload, the content is " +
								"uploaded into a staging volume of `staging_pool` first and then copied into the RBD image by QEMU (a block " +
								"copy in a paused transient domain); the RBD image is raw (a qcow2 image is converted), the staging volume " +
								"is deleted afterwards, and a failure leaves neither of them nor the domain behind. Both steps log their " +
								"progress with `TF_LOG=INFO`.",
						},
						"staging_pool": schema.StringAttribute{
							Optional: true,
							Description: "Only for a volume in an `rbd` pool, and required there: a `dir`, `fs` or `netfs` pool on the same " +
								"host with room for the image, which holds the content while it is copied into RBD " +
								"(volume `<name>.rbd-staging`, deleted afterwards). A change replaces the volume.",
						},
					}),
				},
			},
		},
		"content_digest":   contentDigestAttribute(),
		"verify_content":   verifyContentAttribute(),
		"content_upstream": contentUpstreamAttribute(),
	}, contentSourceAttributes())
}

// CheckConfig checks the create block of a configuration: exactly one of
// clone and content, and content options that make sense; false after an
// error that ends the plan.
func CheckConfig(config map[string]tftypes.Value, diags *diag.Diagnostics) bool {
	if !checkCreateChoice(config, diags) {
		return false
	}
	checkContentOptions(config, diags)
	return !diags.HasError()
}

// CheckNew checks, at plan, the content of a new volume against its pools:
// a local file that does not fit, and content into an rbd pool without a
// file-based staging pool. c is nil while the provider's uri is unknown.
func CheckNew(ctx context.Context, c *libvirtconn.Client, plan map[string]tftypes.Value, diags *diag.Diagnostics) {
	if c == nil {
		return
	}
	checkContentFits(ctx, c, plan, diags)
	planCheckRBDContent(ctx, c, plan, diags)
}

// PlanChanges plans, for a volume in state, what its content asks: a
// replacement when the content changed, when verify_content found it
// altered at refresh, or when a "latest" image changed upstream; and when
// an adopted volume is given its content, a replacement unless it holds it.
func PlanChanges(ctx context.Context, c *libvirtconn.Client, state, plan map[string]tftypes.Value, private PrivateSetter, replace *path.Paths, diags *diag.Diagnostics) {
	// create: replacing content needs a new volume; recording it for an
	// imported volume (state has none) does not
	if sc := state["create"]; !sc.IsNull() && !withoutTransport(plan["create"]).Equal(withoutTransport(sc)) {
		*replace = append(*replace, path.Root("create"))
	}
	// a volume found altered at refresh (verify_content) gets its content again
	planReplaceAltered(state, plan, replace)
	// a "latest" image whose file changed on the server gets its new content
	planUpstreamChange(ctx, state, plan, replace, diags)
	// recording it is only true when the volume holds it
	verifyAdoptedContent(ctx, c, state, plan, private, replace, diags)
}

// VerifyRecorded runs after a refresh: with verify_content, a volume that
// no longer holds what was written has its content_digest nulled (the plan
// then replaces it).
func VerifyRecorded(ctx context.Context, c *libvirtconn.Client, private PrivateGetter, resp *resource.ReadResponse) {
	verifyRecordedContent(ctx, c, private, resp)
}

// Adopted is content an update compared with an adopted volume: recorded
// after the update (Record).
type Adopted struct{ src *storage.Source }

// VerifyBeforeRecording runs in Update: content the plan could not compare
// with an adopted volume (its URL was unknown then) is compared now, and a
// volume that does not hold it is an error.
func VerifyBeforeRecording(ctx context.Context, c *libvirtconn.Client, prior, plan map[string]tftypes.Value, private PrivateGetter, diags *diag.Diagnostics) Adopted {
	return Adopted{src: verifyBeforeRecording(ctx, c, prior, plan, private, diags)}
}

// Record records, after the update, the digest of adopted content with a
// checksum compared only then, as the plan records it.
func (a Adopted) Record(ctx context.Context, state *tftypes.Value, private PrivateSetter, diags *diag.Diagnostics) {
	if a.src == nil || a.src.Digest() == nil {
		return
	}
	*state = withContentDigest(*state, a.src.Digest())
	diags.Append(recordWritten(ctx, a.src.Written(), private)...)
}
