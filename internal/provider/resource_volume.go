package provider

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

var (
	_ resource.ResourceWithImportState = (*volumeResource)(nil)
	_ resource.ResourceWithConfigure   = (*volumeResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*volumeResource)(nil)
)

const volumeCreateTimeout = 30 * time.Minute

// NewVolumeResource returns the libvirt_volume resource.
func NewVolumeResource() resource.Resource {
	r := &volumeResource{}
	r.Base = treeresource.NewBase(treeresource.Spec[libvirtxml.StorageVolume]{
		Routing:  hostroute.Attributes("volume"),
		Name:     "volume",
		Model:    xmlschema.StorageVolume(),
		ImportID: "key or \"pool/name\"",
		Identity: volumeIdentity(),
		Description: "A libvirt storage volume. The attributes mirror the libvirt volume XML " +
			"(https://libvirt.org/formatstorage.html#storage-volume-xml) one to one, plus `pool`, `create` and `path`. " +
			"A volume is either empty (set `capacity`), an overlay on a base image (`backing_store`), or filled from " +
			"`create.content.url`, streamed into the pool without a temporary copy. Growing `capacity` resizes the volume " +
			"in place; a volume that running domains use is grown through QEMU (block resize), so the guests see the new size at once, " +
			"without a restart. Shrinking is refused; any other change replaces the volume. Deleting a volume that other volumes use " +
			"as backing file fails. " +
			"How any libvirt XML is written as attributes: see the guide \"Writing libvirt XML as attributes\".",
		Own: mergeAttributes(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The volume's key (its path for file-based pools).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"pool": schema.StringAttribute{
				Required:      true,
				Description:   "Name of the storage pool holding the volume.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"path": schema.StringAttribute{
				Computed:      true,
				Description:   "Path of the volume on the libvirt host (the target path), for use in domain disks.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
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
			"timeouts":         timeouts.Attributes(context.Background(), timeouts.Opts{Create: true}),
		}, contentSourceAttributes()),
		// growing applies in place; any other change needs a new volume
		ReplaceOnChange: []string{treeresource.AllDocument},
		InPlace:         []string{"capacity", "capacity_unit"},
	}, r)
	return r
}

type volumeResource struct {
	treeresource.Base[libvirtxml.StorageVolume]
}

// ModifyPlan refuses shrinking and plans a replacement for every change
// Update cannot apply.
func (r *volumeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	config := treeresource.ObjectAttrs(req.Config.Raw)
	// a new volume needs its size from somewhere; an existing one (imported,
	// or moved from another provider) has one
	if !checkCreateChoice(config, &resp.Diagnostics) {
		return
	}
	if checkContentOptions(config, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() && config["capacity"].IsNull() && config["create"].IsNull() && config["backing_store"].IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("capacity"), "Missing volume capacity",
			"capacity is required unless create.content.url or create.clone gives the volume its content (and size) "+
				"or backing_store names the image an overlay takes its size from.")
		return
	}
	if req.State.Raw.IsNull() {
		r.checkContentFits(ctx, treeresource.ObjectAttrs(req.Plan.Raw), &resp.Diagnostics)
		r.planCheckRBDContent(ctx, treeresource.ObjectAttrs(req.Plan.Raw), &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	plan := r.PlanUpdate(req, &resp.RequiresReplace)
	if plan == nil {
		return
	}
	state := treeresource.ObjectAttrs(req.State.Raw)
	// create: replacing content needs a new volume; recording it for an
	// imported volume (state has none) does not
	if sc := state["create"]; !sc.IsNull() && !withoutTransport(plan["create"]).Equal(withoutTransport(sc)) {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("create"))
	}
	// a volume found altered at refresh (verify_content) gets its content again
	planReplaceAltered(state, plan, &resp.RequiresReplace)
	// a "latest" image whose file changed on the server gets its new content
	planUpstreamChange(ctx, state, plan, &resp.RequiresReplace, &resp.Diagnostics)
	// recording it is only true when the volume holds it
	r.verifyAdoptedContent(ctx, state, plan, resp.Private, &resp.RequiresReplace, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if want, ok := sizeBytes(plan, "capacity"); ok {
		if have, ok := sizeBytes(state, "capacity"); ok && want < have {
			resp.Diagnostics.AddAttributeError(path.Root("capacity"), "Volume cannot shrink",
				fmt.Sprintf("capacity %d bytes is smaller than the volume's current %d bytes. Shrinking a disk loses data, so it is refused; "+
					"grow it, or replace the volume (e.g. with a new name).", want, have))
			return
		}
	}
	treeresource.SetPlan(resp, plan)
}

func (r *volumeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	var to timeouts.Value
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("timeouts"), &to)...)
	if resp.Diagnostics.HasError() {
		return
	}
	createTimeout, diags := to.Create(ctx, volumeCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, createTimeout)
	defer cancel()

	model := r.Model()
	doc, err := model.FromValues(treeresource.DocValues(model.AttributeTypes(), plan))
	if err != nil {
		treeresource.AddConversionError(&resp.Diagnostics, "Invalid volume definition", err)
		return
	}
	poolName, _ := treeresource.String(plan, "pool")
	url := contentURL(plan)
	volumes := libvirtops.Volumes(r.Client())
	if err := volumes.FindPool(ctx, poolName); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("pool"), "Cannot find storage pool", fmt.Sprintf("pool %q: %v", poolName, err))
		return
	}
	// A volume of this name that is not in state is not taken over: it may
	// be the half-written leftover of an interrupted apply. Knowing that it
	// did not exist before is also what lets a create whose answer the
	// connection lost find out whether it happened.
	if exists, _ := volumes.Exists(ctx, poolName, doc.Name); exists {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Volume already exists",
			fmt.Sprintf("Pool %q already has a volume %q that is not in this state; an earlier apply may have been interrupted while writing it, "+
				"so its content is not trusted. If it is complete and yours, adopt it with an import block (id = \"%s/%s\"); "+
				"otherwise delete it: virsh vol-delete --pool %s %s", poolName, doc.Name, poolName, doc.Name, poolName, doc.Name))
		return
	}
	clone := cloneSource(plan)
	// volumes getting the same content on this host share one transfer
	share := joinSharedDownload(r.Client().URI(), plan)
	if share != nil {
		defer share.Release()
		if from, digest, ok := share.Wait(ctx); ok {
			clone = &libvirtops.CloneSource{Volume: from}
			tflog.Info(ctx, "volume content copied on the host from a volume that downloaded it in this apply",
				map[string]any{"volume": poolName + "/" + doc.Name, "from": from, "url": redactedURL(url)})
			defer func() {
				resp.State.Raw = withUpstream(withContentDigest(resp.State.Raw, digest), plan, share.Fingerprint())
				resp.State.Raw = withContentSource(resp.State.Raw, contentSourceCopy, 0)
			}()
			if doc.Target == nil || doc.Target.Format == nil { // the copy holds the same bytes
				resp.Diagnostics.Append(recordWritten(ctx, share.Written(), resp.Private)...)
			}
		}
	}
	c := volumeCreate{r: r, volumes: volumes, poolName: poolName, doc: doc, plan: plan, private: resp.Private}
	defer c.close()
	defer func() {
		if c.src != nil {
			resp.State.Raw = withUpstream(withContentDigest(resp.State.Raw, c.src.Digest()), plan, c.src.Fingerprint)
			resp.State.Raw = withContentSource(resp.State.Raw, c.src.Origin(), c.src.Received())
		}
	}()
	ending := treeresource.Ending{Op: "create", Plan: req.Plan.Raw, Prior: plan,
		Undo: func() (string, bool) { return c.undo(ctx) }}
	switch {
	case clone != nil:
		ending.Attr = path.Root("create").AtName("clone")
		ending.Apply = func(*diag.Diagnostics) (string, error) { return c.clone(ctx, *clone) }
	case url != "":
		ending.Attr = path.Root("create").AtName("content")
		ending.Apply = func(diags *diag.Diagnostics) (string, error) { return c.content(ctx, share, diags) }
	default:
		ending.Apply = func(*diag.Diagnostics) (string, error) { return c.empty(ctx) }
	}
	r.Finish(ctx, ending, &resp.State, &resp.Diagnostics)
}

// volumeCreate is one libvirt_volume create: it makes the volume in one of
// three ways (a copy of another volume, content uploaded from a URL or
// file, empty) and knows what a failure left behind. Its errors and its
// clean-up go through the tree resources' one ending (Base.Finish), so every
// failed create reads "Cannot create volume" with the same words about what
// was removed or recorded as tainted.
type volumeCreate struct {
	r        *volumeResource
	volumes  libvirtops.Volume
	poolName string
	doc      *libvirtxml.StorageVolume
	plan     map[string]tftypes.Value
	private  privateSetter

	src *storage.Source    // the content, once opened
	up  *libvirtops.Upload // the upload's own connection, once opened
	key string             // the volume's key once libvirt answered
	// left deals with what a failed create left (Ending.Undo); nil: nothing
	left func() (said string, remains bool)
}

// undo is the Ending's Undo: what the failed step left, or, when the create
// succeeded and the read-back failed, the new volume itself (not in state
// means nobody would delete it).
func (c *volumeCreate) undo(ctx context.Context) (string, bool) {
	if c.left != nil {
		return c.left()
	}
	if c.key == "" {
		return "", false
	}
	err := c.volumes.RemoveKey(ctx, c.key)
	return c.r.RemovalSaid(err, c.doc.Name, c.vacuum()), err != nil && !libvirtconn.IsNotFound(err)
}

// vacuum is the command that removes the volume by hand.
func (c *volumeCreate) vacuum() string {
	return fmt.Sprintf("virsh vol-delete --pool %s %s", c.poolName, c.doc.Name)
}

// unknownID is the id a volume is recorded under (tainted) when it may
// exist but libvirt never gave its key: "pool/name", which the next apply
// looks up.
func (c *volumeCreate) unknownID() string {
	if c.key != "" {
		return c.key
	}
	return c.poolName + "/" + c.doc.Name
}

// mayRemain is the Undo of a create whose outcome is unknown: it is
// recorded as tainted under unknownID.
func mayRemain(what string) func() (string, bool) {
	return func() (string, bool) { return "; whether the " + what + " was created is unknown", true }
}

func (c *volumeCreate) close() {
	if c.src != nil {
		c.src.Close()
	}
	if c.up != nil {
		c.up.Close()
	}
}

// clone copies another volume.
func (c *volumeCreate) clone(ctx context.Context, from libvirtops.CloneSource) (string, error) {
	want, _ := sizeBytes(c.plan, "capacity")
	key, unknown, err := c.volumes.Clone(ctx, c.poolName, c.doc, want, from, progressLogger(ctx))
	c.key = key
	if err != nil {
		if unknown {
			c.left = mayRemain("copy")
			return c.unknownID(), fmt.Errorf("copying the volume: %w", err)
		}
		c.left = func() (string, bool) { return "", false }
		return "", fmt.Errorf("copying the volume: %w", err)
	}
	return key, nil
}

// empty creates a volume without content.
func (c *volumeCreate) empty(ctx context.Context) (string, error) {
	key, unknown, err := c.volumes.CreateEmpty(ctx, c.poolName, c.doc)
	c.key = key
	if err != nil {
		if unknown {
			// neither the answer nor a look-up says whether it exists
			c.left = mayRemain("volume")
			return c.unknownID(), err
		}
		c.left = func() (string, bool) { return "", false }
		return "", err
	}
	return key, nil
}

// content creates the volume and fills it from create.content, on a
// connection of its own (the upload's).
func (c *volumeCreate) content(ctx context.Context, share *storage.Share, diags *diag.Diagnostics) (string, error) {
	c.left = func() (string, bool) { return "", false } // until the volume is made
	src, err := openContent(ctx, c.plan)
	if err != nil {
		return "", fmt.Errorf("reading the content: %w", err)
	}
	c.src = src
	up, err := c.volumes.OpenUpload(ctx)
	if err != nil {
		return "", fmt.Errorf("connecting for the upload: %w", err)
	}
	c.up = up
	if err := up.UsePool(c.poolName); err != nil {
		return "", fmt.Errorf("pool %q: %w", c.poolName, err)
	}
	def := checkRBDContent(up.PoolDefinition, c.plan, diags)
	if diags.HasError() {
		return "", nil
	}
	if def != nil && def.Type == "rbd" {
		return c.rbdContent(ctx, def)
	}
	capacity, _ := sizeBytes(c.plan, "capacity")
	key, err := up.Create(ctx, c.doc, capacity, src, progressLogger(ctx))
	c.key = key
	if err != nil {
		c.left = c.removeHalfWritten(ctx)
		return c.unknownID(), fmt.Errorf("writing the content: %w", err)
	}
	if share != nil {
		share.Publish(key, src)
	}
	diags.Append(recordWritten(ctx, src.Written(), c.private)...)
	if src.FromCache != "" {
		tflog.Info(ctx, "volume content read from the content cache", map[string]any{"volume": c.poolName + "/" + c.doc.Name, "file": src.FromCache})
	}
	tflog.Info(ctx, "volume content transferred", map[string]any{"volume": c.poolName + "/" + c.doc.Name, "url": src.URL,
		"bytes": src.Transferred(), "compressed": src.Compression, "digest": fmt.Sprint(src.Digest())})
	return key, nil
}

// removeHalfWritten is the Undo of a failed upload. The create deletes
// what it made, but not through a broken connection, and a SIGINT can close
// the upload's connection while it still reports connected: whatever
// remains is removed on the shared one (a lookup that finds nothing when
// the create cleaned up), on a context of its own (the apply's may be
// cancelled by SIGINT), briefly: tofu is waiting to exit.
func (c *volumeCreate) removeHalfWritten(ctx context.Context) func() (string, bool) {
	return func() (string, bool) {
		cleanCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		removed, err := c.volumes.RemoveIfPresent(cleanCtx, c.poolName, c.doc.Name)
		cancel()
		switch {
		case removed:
			return c.r.RemovalSaid(nil, c.doc.Name, c.vacuum()), false
		case err != nil:
			return c.r.RemovalSaid(err, c.doc.Name, c.vacuum()), true
		}
		return "", false
	}
}

// logProgress logs a long transfer's progress at INFO every
// storage.ProgressInterval (TF_LOG=INFO shows bytes done, total and rate),
// and its final figure; the returned stop ends it.
func logProgress(ctx context.Context, op, volume, from string, done func() int64, total int64) (stop func()) {
	s := storage.ReportProgress(done, total, func(p storage.Progress, final bool) {
		msg := "volume " + op + " progress"
		if final {
			msg = "volume " + op + " ended"
		}
		tflog.Info(ctx, msg, map[string]any{
			"volume": volume, "from": from, "progress": p.String(),
			"bytes_done": p.Done, "bytes_total": p.Total, "bytes_per_second": int64(p.Rate()),
		})
	})
	return func() { s() }
}

// progressLogger reports the transfers of libvirtops with logProgress.
func progressLogger(ctx context.Context) libvirtops.Progress {
	return func(op, volume, from string, done func() int64, total int64) (stop func()) {
		return logProgress(ctx, op, volume, from, done, total)
	}
}

// contentURL returns create.content.url, "" when not set.
func contentURL(attrs map[string]tftypes.Value) string {
	create := treeresource.ObjectAttrs(attrs["create"])
	content := treeresource.ObjectAttrs(create["content"])
	url, _ := treeresource.String(content, "url")
	return url
}

// Fetch reads the volume with this key; the pool and path it reports are
// own attributes.
func (r *volumeResource) Fetch(ctx context.Context, c *libvirtconn.Client, key string) (*treeresource.Fetched[libvirtxml.StorageVolume], error) {
	return fetchVolume(ctx, c, key)
}

// fetchVolume is Fetch without a resource: the data source of the same name reads with it too.
func fetchVolume(ctx context.Context, c *libvirtconn.Client, key string) (*treeresource.Fetched[libvirtxml.StorageVolume], error) {
	v, err := libvirtops.Volumes(c).Fetch(ctx, key)
	if err != nil {
		return nil, err
	}
	return &treeresource.Fetched[libvirtxml.StorageVolume]{Doc: v.Doc, Own: map[string]tftypes.Value{
		"id":   treeresource.StringValue(v.Key),
		"pool": treeresource.StringValue(v.Pool),
		"path": treeresource.StringValue(v.Path),
	}}, nil
}

// FixUp keeps a user's format "raw" (see keepRawFormat).
func (r *volumeResource) FixUp(prior map[string]tftypes.Value, doc *libvirtxml.StorageVolume) {
	keepRawFormat(prior, doc)
}

// PruneImported keeps what a configuration sets (name, sizes, format,
// backing store) and the target path libvirt chose: libvirt also reports
// permissions, timestamps and qcow2
// details, which a configuration rarely lists; keeping them would plan a
// replacement right after import.
func (r *volumeResource) PruneImported(doc *libvirtxml.StorageVolume) {
	if t := doc.Target; t != nil {
		// the path is libvirt's choice (computed): kept, as after a create
		doc.Target = &libvirtxml.StorageVolumeTarget{Path: t.Path, Format: t.Format}
	}
	if b := doc.BackingStore; b != nil {
		doc.BackingStore = &libvirtxml.StorageVolumeBackingStore{Path: b.Path, Format: b.Format}
	}
	doc.Type = ""
}

// Read refreshes the volume and, with verify_content, checks that it still
// holds what was written.
func (r *volumeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.Base.Read(ctx, req, resp)
	if resp.Diagnostics.HasError() || resp.State.Raw.IsNull() {
		return
	}
	r.verifyRecordedContent(ctx, req.Private, resp)
}

// Update grows the volume; ModifyPlan replaces it for anything else.
func (r *volumeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	plan := treeresource.ObjectAttrs(req.Plan.Raw)
	prior := treeresource.ObjectAttrs(req.State.Raw)
	key, _ := treeresource.String(prior, "id")
	compared := r.verifyBeforeRecording(ctx, prior, plan, req.Private, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	want, wantOK := sizeBytes(plan, "capacity")
	have, _ := sizeBytes(prior, "capacity")
	if wantOK && want < have {
		resp.Diagnostics.AddAttributeError(path.Root("capacity"), "Volume cannot shrink",
			fmt.Sprintf("capacity %d bytes is smaller than the volume's current %d bytes", want, have))
		return
	}
	if !r.Finish(ctx, treeresource.Ending{Op: "update", Plan: req.Plan.Raw, ID: key, Prior: plan, Attr: path.Root("capacity"),
		Apply: func(*diag.Diagnostics) (string, error) {
			if !wantOK || want == have {
				return "", nil
			}
			volPath, _ := treeresource.String(prior, "path")
			live, err := libvirtops.Volumes(r.Client()).Grow(ctx, key, volPath, want)
			if len(live) > 0 {
				tflog.Info(ctx, "volume grown live in running domains", map[string]any{"volume": key, "disks": live, "bytes": want})
			}
			if err != nil {
				return "", fmt.Errorf("growing %s to %d bytes: %w", key, want, err)
			}
			return "", nil
		}}, &resp.State, &resp.Diagnostics) {
		return
	}
	if compared != nil && compared.Digest() != nil {
		// adopted content with a checksum, compared only now: recorded as at plan
		resp.State.Raw = withContentDigest(resp.State.Raw, compared.Digest())
		resp.Diagnostics.Append(recordWritten(ctx, compared.Written(), resp.Private)...)
	}
}

func (r *volumeResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	if !treeresource.RequireClient(r.Client(), &resp.Diagnostics) {
		return
	}
	key, _ := treeresource.String(treeresource.ObjectAttrs(req.State.Raw), "id")
	err := libvirtops.Volumes(r.Client()).Delete(ctx, key)
	if err != nil && !libvirtconn.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot delete volume", err.Error())
	}
}

// LookUp accepts the volume key (its path for file pools) or "pool/name".
func (r *volumeResource) LookUp(ctx context.Context, c *libvirtconn.Client, importID string) (string, error) {
	return libvirtops.Volumes(c).LookUp(ctx, importID)
}

// keepRawFormat keeps a user's format "raw" when libvirt reports the content
// it probed instead (a dir pool reports an uploaded ISO image as "iso"): for
// libvirt both mean the bytes are used as they are.
func keepRawFormat(prior map[string]tftypes.Value, doc *libvirtxml.StorageVolume) {
	if doc.Target == nil || doc.Target.Format == nil || doc.Target.Format.Type != "iso" {
		return
	}
	format := treeresource.Nested(treeresource.Nested(prior["target"], "format"), "type")
	var s string
	if format.IsKnown() && !format.IsNull() && format.As(&s) == nil && s == "raw" {
		doc.Target.Format.Type = "raw"
	}
}

// sizeBytes reads a scaled size (value + unit attribute) in bytes; ok is
// false when the value is null or unknown, or the unit is not libvirt's.
func sizeBytes(attrs map[string]tftypes.Value, name string) (uint64, bool) {
	v, ok := attrs[name]
	if !ok || v.IsNull() || !v.IsKnown() {
		return 0, false
	}
	var f big.Float
	if v.As(&f) != nil {
		return 0, false
	}
	// An unknown unit is one the configuration leaves to libvirt (the unit
	// attribute is computed): storage sizes without a unit are bytes.
	unit := ""
	if u, ok := attrs[name+"_unit"]; ok && u.IsKnown() && !u.IsNull() {
		_ = u.As(&unit)
	}
	factor, ok := xmlschema.UnitFactor(unit, "bytes")
	if !ok {
		return 0, false
	}
	n, _ := f.Int(nil)
	n.Mul(n, factor)
	if !n.IsUint64() {
		return 0, false
	}
	return n.Uint64(), true
}

// checkContentFits refuses at plan a new volume whose content, a file on
// this machine, is larger than the pool's free space. (Content from a URL is
// checked against its Content-Length before anything is created or streamed.)
func (r *volumeResource) checkContentFits(ctx context.Context, plan map[string]tftypes.Value, diags *diag.Diagnostics) {
	url := contentURL(plan)
	poolName, ok := treeresource.String(plan, "pool")
	if url == "" || !ok || r.Client() == nil {
		return
	}
	file := strings.TrimPrefix(url, "file://")
	if strings.Contains(file, "://") {
		return
	}
	info, err := os.Stat(file)
	if err != nil || !info.Mode().IsRegular() {
		return // reported, with the reason, by apply
	}
	free, err := libvirtops.Volumes(r.Client()).PoolFree(ctx, poolName)
	if err == nil && uint64(info.Size()) > free {
		diags.AddAttributeError(path.Root("create").AtName("content").AtName("url"), "Content larger than the pool's free space",
			fmt.Sprintf("%s is %s but pool %q has %s free.", file, storage.HumanBytes(uint64(info.Size())), poolName, storage.HumanBytes(free)))
	}
}
