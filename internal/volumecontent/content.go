package volumecontent

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	neturl "net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// contentDownloadAttributes are the create.content attributes that say how
// content is checked and fetched (besides url and staging_pool).
func contentDownloadAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"checksum": schema.StringAttribute{
			Optional: true,
			Description: "The digest the content must have, `sha256:<64 hex digits>` or `sha512:<128 hex digits>`: the digest of the " +
				"bytes as published (the file or the server's response, before any decompression), as SHA256SUMS files list it. It is " +
				"computed while the content streams, without a second read; when it differs the create fails and leaves no volume " +
				"behind. The digest is recorded in `content_digest`. At most one of `checksum` and `checksum_url`.",
		},
		"checksum_url": schema.StringAttribute{
			Optional: true,
			Description: "A checksum file listing the content's digest under its file name (the last element of `url`), as " +
				"Debian, Ubuntu (`SHA256SUMS`, `SHA512SUMS`: `<hex>  <name>`) and Fedora (`CHECKSUM`: `SHA256 (<name>) = <hex>`, a " +
				"PGP signature around it is ignored) publish them: `http(s)://`, `file://` or a local path, fetched with the same " +
				"TLS settings. The digest found is checked like `checksum` and recorded in `content_digest`.",
		},
		"cache_dir": schema.StringAttribute{
			Optional: true,
			Description: "A folder on the machine running OpenTofu that keeps content by its digest (`sha256-<hex>`), for content " +
				"with `checksum` or `checksum_url`: content found there is read from it instead of downloaded (still checked " +
				"against the digest), so a second apply, another host or a replaced volume does not download it again; content " +
				"downloaded is written there once its digest matched (a partial file beside it until then, removed on failure). " +
				"Nothing is evicted unless `cache_max_size` bounds it. Errors writing the cache only stop caching. `TF_LOG=INFO` logs " +
				"the file read. Changing it does not replace the volume. It is named `cache_dir` inside `create.content` (where a " +
				"`content_cache_dir` would repeat \"content\"), beside the checksum it is keyed by, and set per volume rather than " +
				"per provider block because a provider block is one host while the cache serves every host: give the volumes of " +
				"all hosts the same folder (a `local` value) and each image is downloaded once for all of them.",
		},
		"cache_max_size": schema.StringAttribute{
			Optional: true,
			Description: "Bounds the size of `cache_dir`: a number of bytes with an optional unit as libvirt writes them " +
				"(`\"20GiB\"`, `\"500 MiB\"`, `\"10G\"`; `KiB`/`K` are 1024, `KB` 1000). Whenever content enters the cache or is " +
				"read from it, the cache files used least recently (the modification time, set at each use) are removed until " +
				"the folder's cache files fit; the file just used is kept even when it alone is larger, and files being written " +
				"and files not named by a digest are never removed. Unset: nothing is evicted. Needs `cache_dir`. Changing it " +
				"does not replace the volume.",
		},
		"track_upstream": schema.BoolAttribute{
			Optional: true,
			Description: "For an `http(s)://` `url` whose file changes under the same name (\"latest\" images): the server's " +
				"ETag, Last-Modified and size are recorded at create (`content_upstream`) and asked again (HEAD) at every plan; " +
				"when they differ, the volume is replaced with the new content, with a warning. Off by default; with a fixed " +
				"`checksum` the new content would fail it, so use `checksum_url` or no checksum.",
		},
		"tls_ca_file": schema.StringAttribute{
			Optional: true,
			Description: "A PEM file of the certificate authorities that `https://` servers of `url` and `checksum_url` are " +
				"verified against, instead of the system's. Changing it does not replace the volume.",
		},
		"tls_insecure": schema.BoolAttribute{
			Optional: true,
			Description: "Skip the verification of `https://` servers' certificates (a warning says so at plan). Prefer " +
				"`tls_ca_file`, or a checksum, which proves the content whatever the server. Changing it does not replace the volume.",
		},
	}
}

// contentDigestAttribute is the top-level record of the digest checked.
func contentDigestAttribute() schema.Attribute {
	return schema.StringAttribute{
		Computed:      true,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		Description: "The digest of the content checked when the volume was created (`sha256:<hex>` or `sha512:<hex>`), from " +
			"`create.content.checksum` or `create.content.checksum_url`; null when none was given.",
	}
}

// contentSourceCopy is content_source for a volume copied on the host from
// one that downloaded the same content in the same apply; the other values
// are storage.Source's Origin.
const contentSourceCopy = "copy"

// contentSourceAttributes record, per volume, what its create transferred:
// the provider cannot print a summary at the end of an apply, but these are
// in the state, in `tofu show` and in outputs.
func contentSourceAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"content_source": schema.StringAttribute{
			Computed:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			Description: "Where the content of `create.content` came from when the volume was created: `download` (from an " +
				"`http(s)://` server), `file` (a file on the machine running OpenTofu), `cache` (a file of " +
				"`create.content.cache_dir`, nothing downloaded) or `copy` (copied by libvirt on the host from a volume of the same " +
				"apply that received the same content: nothing transferred). Null for volumes without content and for imported " +
				"ones. An output over the volumes prints, at the end of an apply, what it transferred and what it copied (see the " +
				"example).",
		},
		"content_bytes": schema.Int64Attribute{
			Computed:      true,
			PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
			Description: "The bytes the provider read for the content when the volume was created: received from the server " +
				"(`download`; the compressed bytes for compressed content), or read from the file (`file`, `cache`); 0 for a " +
				"`copy`. Null like `content_source`.",
		},
	}
}

// withContentSource records in the state where the content came from and
// how many bytes were read for it.
func withContentSource(state tftypes.Value, source string, bytes int64) tftypes.Value {
	attrs := treeresource.ObjectAttrs(state)
	if attrs == nil || !state.IsKnown() {
		return state
	}
	attrs["content_source"] = treeresource.StringValue(source)
	attrs["content_bytes"] = tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(bytes))
	return tftypes.NewValue(state.Type(), attrs)
}

// contentTransportOnly are the create.content attributes that change how
// content is fetched but not which content: changing them replaces nothing.
var contentTransportOnly = []string{"tls_ca_file", "tls_insecure", "cache_dir", "cache_max_size", "track_upstream"}

// withoutTransport returns create with the transport-only attributes
// nulled, for comparing which content two configurations give.
func withoutTransport(create tftypes.Value) tftypes.Value {
	if create.IsNull() || !create.IsKnown() {
		return create
	}
	attrs := treeresource.ObjectAttrs(create)
	content := attrs["content"]
	if content.IsNull() || !content.IsKnown() {
		return create
	}
	ca := treeresource.ObjectAttrs(content)
	ct := content.Type().(tftypes.Object)
	for _, name := range contentTransportOnly {
		if t, ok := ct.AttributeTypes[name]; ok {
			ca[name] = tftypes.NewValue(t, nil)
		}
	}
	attrs["content"] = tftypes.NewValue(ct, ca)
	return tftypes.NewValue(create.Type(), attrs)
}

// contentURL returns create.content.url, "" when not set.
func contentURL(attrs map[string]tftypes.Value) string {
	create := treeresource.ObjectAttrs(attrs["create"])
	content := treeresource.ObjectAttrs(create["content"])
	url, _ := treeresource.String(content, "url")
	return url
}

// contentURLKnown returns create.content.url and whether it is known at plan.
func contentURLKnown(attrs map[string]tftypes.Value) (string, bool) {
	create := attrs["create"]
	if !create.IsKnown() {
		return "", false
	}
	content := treeresource.ObjectAttrs(create)["content"]
	if !content.IsKnown() {
		return "", false
	}
	u := treeresource.ObjectAttrs(content)["url"]
	if !u.IsKnown() {
		return "", false
	}
	return contentURL(attrs), true
}

// contentAttrs returns create.content's attributes, nil when not set.
func contentAttrs(attrs map[string]tftypes.Value) map[string]tftypes.Value {
	return treeresource.ObjectAttrs(treeresource.ObjectAttrs(attrs["create"])["content"])
}

// contentFetchOptions are the TLS settings of create.content.
func contentFetchOptions(attrs map[string]tftypes.Value) storage.FetchOptions {
	c := contentAttrs(attrs)
	ca, _ := treeresource.String(c, "tls_ca_file")
	insecure, _ := treeresource.Bool(c, "tls_insecure")
	cacheDir, _ := treeresource.String(c, "cache_dir")
	maxSize, _ := treeresource.String(c, "cache_max_size")
	maxBytes, _ := parseByteSize(maxSize) // checked at plan
	return storage.FetchOptions{CAFile: ca, Insecure: insecure, CacheDir: cacheDir, CacheMaxBytes: maxBytes}
}

// byteSize is a number of bytes with an optional unit: "20GiB", "500 MiB".
var byteSize = regexp.MustCompile(`^\s*([0-9]+)\s*([A-Za-z]*)\s*$`)

// parseByteSize reads a size written with one of libvirt's units (see
// xmlschema.Units); "" is 0.
func parseByteSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	m := byteSize.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a size: write a whole number of bytes with an optional unit, such as \"20GiB\" or \"500 MiB\"", s)
	}
	factor, ok := xmlschema.UnitFactor(m[2], "bytes")
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q; use B, KiB, MiB, GiB, TiB (powers of 1024; K, M, G, T too) or KB, MB, GB, TB (powers of 1000)", s, m[2])
	}
	n, ok := new(big.Int).SetString(m[1], 10)
	if !ok {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	n.Mul(n, factor)
	if !n.IsInt64() || n.Sign() == 0 {
		return 0, fmt.Errorf("%q: the size must be at least 1 byte and at most %d bytes", s, int64(math.MaxInt64))
	}
	return n.Int64(), nil
}

// checkContentOptions validates the checksum attributes at plan and warns
// about skipped TLS verification.
func checkContentOptions(config map[string]tftypes.Value, diags *diag.Diagnostics) {
	c := contentAttrs(config)
	if c == nil {
		return
	}
	at := path.Root("create").AtName("content")
	sum, hasSum := treeresource.String(c, "checksum")
	sumURL, hasURL := treeresource.String(c, "checksum_url")
	if hasSum && hasURL && sum != "" && sumURL != "" {
		diags.AddAttributeError(at.AtName("checksum_url"), "Conflicting checksums",
			"create.content: set at most one of checksum (the digest itself) and checksum_url (a file listing it).")
	}
	if hasSum && sum != "" {
		if _, err := storage.ParseChecksum(sum); err != nil {
			diags.AddAttributeError(at.AtName("checksum"), "Invalid checksum", "create.content.checksum: "+err.Error())
		}
	}
	if maxSize, ok := treeresource.String(c, "cache_max_size"); ok && maxSize != "" {
		if _, err := parseByteSize(maxSize); err != nil {
			diags.AddAttributeError(at.AtName("cache_max_size"), "Invalid cache size", "create.content.cache_max_size: "+err.Error())
		}
		if dir, _ := treeresource.String(c, "cache_dir"); dir == "" && c["cache_dir"].IsKnown() {
			diags.AddAttributeError(at.AtName("cache_max_size"), "Cache size without a cache",
				"create.content.cache_max_size bounds create.content.cache_dir, which is not set: set cache_dir too, or remove cache_max_size.")
		}
	}
	if insecure, _ := treeresource.Bool(c, "tls_insecure"); insecure {
		diags.AddAttributeWarning(at.AtName("tls_insecure"), "TLS verification is off",
			"create.content.tls_insecure = true: the certificates of https servers are not verified, so anyone on the path can "+
				"send other content. Set create.content.checksum (or checksum_url from a trusted source) to prove the content, "+
				"or tls_ca_file to trust a private certificate authority instead.")
	}
}

// openContent opens create.content.url with its TLS settings and its
// expected checksum, resolved from checksum or checksum_url.
func openContent(ctx context.Context, plan map[string]tftypes.Value) (*storage.Source, error) {
	c := contentAttrs(plan)
	url, _ := treeresource.String(c, "url")
	sum, _ := treeresource.String(c, "checksum")
	sumURL, _ := treeresource.String(c, "checksum_url")
	opts := contentFetchOptions(plan)
	want, err := storage.ResolveChecksum(ctx, url, sum, sumURL, opts)
	if err != nil {
		if sum != "" {
			return nil, fmt.Errorf("create.content.checksum: %w", err)
		}
		return nil, fmt.Errorf("create.content.checksum_url: %w", err)
	}
	opts.Checksum = want
	src, err := storage.OpenWith(ctx, url, opts)
	if err != nil {
		return nil, fmt.Errorf("create.content.url: %w", err)
	}
	return src, nil
}

// withContentDigest returns the state with content_digest set to the digest
// the content was verified to have (null when none).
func withContentDigest(state tftypes.Value, d *storage.Checksum) tftypes.Value {
	attrs := treeresource.ObjectAttrs(state)
	if attrs == nil || !state.IsKnown() {
		return state
	}
	if d != nil {
		attrs["content_digest"] = treeresource.StringValue(d.String())
	} else {
		attrs["content_digest"] = tftypes.NewValue(tftypes.String, nil)
	}
	return tftypes.NewValue(state.Type(), attrs)
}

// mergeAttributes returns one map holding the attributes of all.
func mergeAttributes(all ...map[string]schema.Attribute) map[string]schema.Attribute {
	out := map[string]schema.Attribute{}
	for _, m := range all {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// joinSharedDownload registers a volume filled from create.content.url in
// the transfers shared on its host (see storage.SharedDownloads); nil when
// the content is not shared: no URL, or an rbd volume (staging_pool), which
// is filled by a block copy of its own.
func joinSharedDownload(hostURI string, plan map[string]tftypes.Value) *storage.Share {
	c := contentAttrs(plan)
	url, _ := treeresource.String(c, "url")
	if staging, _ := treeresource.String(c, "staging_pool"); url == "" || staging != "" {
		return nil
	}
	if !strings.Contains(url, "://") {
		if abs, err := filepath.Abs(url); err == nil {
			url = abs
		}
	}
	sum, _ := treeresource.String(c, "checksum")
	sumURL, _ := treeresource.String(c, "checksum_url")
	return storage.SharedDownloads.Join(hostURI, strings.Join([]string{url, sum, sumURL}, "\x00"))
}

// redactedURL masks a password in a URL for logs.
func redactedURL(raw string) string {
	if u, err := neturl.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	return raw
}

// privateContentWritten is the private state key holding what a volume held
// right after its verified content was written (storage.VolumeDigest), for
// verify_content.
const privateContentWritten = "content_written"

// verifyContentAttribute is the top-level switch for verification at refresh.
func verifyContentAttribute() schema.Attribute {
	return schema.BoolAttribute{
		Optional: true,
		Description: "Verify at every refresh that the volume still holds the content it was created with: its first bytes " +
			"(as many as were written) are read back through libvirt's download stream and hashed (a read of the whole image, " +
			"off by default). A volume truncated or altered since shows as drift: `content_digest` becomes null, a warning " +
			"says so and the plan replaces the volume. It needs a volume created by this provider from content with `checksum` " +
			"or `checksum_url`. An imported volume gets that record when `create.content` with `checksum` or `checksum_url` is " +
			"added to its configuration: the volume is compared with the content at plan (see `create`), the content's digest " +
			"checked, and, when both match, the digest recorded in `content_digest`; from then on it is verified like a volume " +
			"the provider created. Copies sharing a download that convert its format have no record to compare with. A guest writing to the volume, " +
			"or a qcow2 image grown beyond its virtual size (its header changes), also counts as altered. Changing it " +
			"replaces nothing.",
	}
}

// PrivateSetter is the part of the framework's private state ModifyPlan uses.
type PrivateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

type PrivateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// recordWritten keeps what the new volume holds in private state.
func recordWritten(ctx context.Context, w *storage.VolumeDigest, private PrivateSetter) diag.Diagnostics {
	if w == nil {
		return nil
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil
	}
	return private.SetKey(ctx, privateContentWritten, b)
}

// planReplaceAltered replaces, at plan, a volume whose verification at
// refresh found its content changed (content_digest nulled while a checksum
// is configured): content_digest is planned unknown (the new volume's), the
// change that the replacement is attached to.
func planReplaceAltered(state, plan map[string]tftypes.Value, replace *path.Paths) {
	if on, _ := treeresource.Bool(state, "verify_content"); !on || !state["content_digest"].IsNull() {
		return
	}
	c := contentAttrs(state)
	sum, _ := treeresource.String(c, "checksum")
	sumURL, _ := treeresource.String(c, "checksum_url")
	if sum != "" || sumURL != "" {
		plan["content_digest"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
		*replace = append(*replace, path.Root("content_digest"))
	}
}

// contentUpstreamAttribute records the server's description of the file.
func contentUpstreamAttribute() schema.Attribute {
	return schema.StringAttribute{
		Computed:      true,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		Description: "With `create.content.track_upstream`: the server's description of the file when the volume was " +
			"created (ETag, Last-Modified, size), compared with a HEAD request at every plan.",
	}
}

// withUpstream records the server's description of the file in the state
// when the configuration tracks it.
func withUpstream(state tftypes.Value, plan map[string]tftypes.Value, fingerprint string) tftypes.Value {
	attrs := treeresource.ObjectAttrs(state)
	if attrs == nil || !state.IsKnown() {
		return state
	}
	attrs["content_upstream"] = tftypes.NewValue(tftypes.String, nil)
	if on, _ := treeresource.Bool(contentAttrs(plan), "track_upstream"); on && fingerprint != "" {
		attrs["content_upstream"] = treeresource.StringValue(fingerprint)
	}
	return tftypes.NewValue(state.Type(), attrs)
}

// planUpstreamChange asks the server at plan whether the file changed since
// the volume was created, and replaces the volume when it did.
func planUpstreamChange(ctx context.Context, state, plan map[string]tftypes.Value, replace *path.Paths, diags *diag.Diagnostics) {
	if on, _ := treeresource.Bool(contentAttrs(plan), "track_upstream"); !on {
		return
	}
	recorded, ok := treeresource.String(state, "content_upstream")
	url, known := contentURLKnown(plan)
	if !ok || recorded == "" || !known || url != contentURL(state) {
		return
	}
	now, err := storage.UpstreamFingerprint(ctx, url, contentFetchOptions(plan))
	if err != nil {
		diags.AddAttributeWarning(path.Root("create").AtName("content").AtName("track_upstream"), "Cannot ask for upstream changes", err.Error())
		return
	}
	if now == "" || now == recorded {
		return
	}
	plan["content_upstream"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	*replace = append(*replace, path.Root("content_upstream"))
	diags.AddAttributeWarning(path.Root("create").AtName("content").AtName("url"), "Upstream content changed: the volume will be replaced",
		fmt.Sprintf("%s now answers %q; the volume was created from %q. Applying replaces it with the new content.", redactedURL(url), now, recorded))
}
