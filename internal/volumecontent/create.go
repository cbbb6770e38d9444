package volumecontent

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// NewCreate prepares the create of volume doc in pool poolName from the
// plan's attributes; private is the create's private state, removalSaid
// the resource's wording of a removal (treeresource.Base.RemovalSaid).
func NewCreate(c *libvirtconn.Client, poolName string, doc *libvirtxml.StorageVolume, plan map[string]tftypes.Value,
	private PrivateSetter, removalSaid func(err error, name, byHand string) string) *Create {
	return &Create{volumes: libvirtops.Volumes(c), hostURI: c.URI(), poolName: poolName, doc: doc, plan: plan, private: private, removalSaid: removalSaid}
}

// copiedContent is what a volume copied from one that downloaded the same
// content in this apply records.
type copiedContent struct {
	digest *storage.Checksum
}

// Ending is the create as treeresource.Base.Finish runs it: the way the
// volume is made (a copy, content, empty) is its Apply, reported on create
// when the volume is copied or filled (tofu points at the create line; it
// finds no line for create.clone or create.content written inline), and
// what a failed step left is its Undo.
// Volumes getting the same content on this host share one transfer: a
// volume that waits for another's download is copied from it.
func (c *Create) Ending(ctx context.Context, plan tftypes.Value, diags *diag.Diagnostics) treeresource.Ending {
	clone := cloneSource(c.plan)
	url := contentURL(c.plan)
	c.share = joinSharedDownload(c.hostURI, c.plan)
	if c.share != nil {
		if from, digest, ok := c.share.Wait(ctx); ok {
			clone = &libvirtops.CloneSource{Volume: from}
			tflog.Info(ctx, "volume content copied on the host from a volume that downloaded it in this apply",
				map[string]any{"volume": c.poolName + "/" + c.doc.Name, "from": from, "url": redactedURL(url)})
			c.copied = &copiedContent{digest: digest}
			if c.doc.Target == nil || c.doc.Target.Format == nil { // the copy holds the same bytes
				diags.Append(recordWritten(ctx, c.share.Written(), c.private)...)
			}
		}
	}
	ending := treeresource.Ending{Op: "create", Plan: plan, Prior: c.plan,
		Undo: func() (string, bool) { return c.undo(ctx) }}
	if clone != nil || url != "" {
		ending.Attr = path.Root("create")
	}
	switch {
	case clone != nil:
		ending.Apply = func(*diag.Diagnostics) (string, error) { return c.clone(ctx, *clone) }
	case url != "":
		ending.Apply = func(diags *diag.Diagnostics) (string, error) { return c.content(ctx, diags) }
	default:
		ending.Apply = func(*diag.Diagnostics) (string, error) { return c.empty(ctx) }
	}
	return ending
}

// Create is one libvirt_volume create: it makes the volume in one of
// three ways (a copy of another volume, content uploaded from a URL or
// file, empty) and knows what a failure left behind. Its errors and its
// clean-up go through the tree resources' one ending (Base.Finish), so every
// failed create reads "Cannot create volume" with the same words about what
// was removed or recorded as tainted.
type Create struct {
	volumes  libvirtops.Volume
	hostURI  string
	poolName string
	doc      *libvirtxml.StorageVolume
	plan     map[string]tftypes.Value
	private  PrivateSetter
	// removalSaid words the removal of what a failed create left
	// (treeresource.Base.RemovalSaid)
	removalSaid func(err error, name, byHand string) string
	// share is the download this volume shares with others of the apply
	share *storage.Share
	// copied is set when the content was copied from a volume that
	// downloaded it in this apply: what the state records of it
	copied *copiedContent

	src *storage.Source    // the content, once opened
	up  *libvirtops.Upload // the upload's own connection, once opened
	key string             // the volume's key once libvirt answered
	// left deals with what a failed create left (Ending.Undo); nil: nothing
	left func() (said string, remains bool)
}

// undo is the Ending's Undo: what the failed step left, or, when the create
// succeeded and the read-back failed, the new volume itself (not in state
// means nobody would delete it).
func (c *Create) undo(ctx context.Context) (string, bool) {
	if c.left != nil {
		return c.left()
	}
	if c.key == "" {
		return "", false
	}
	err := c.volumes.RemoveKey(ctx, c.key)
	return c.removalSaid(err, c.doc.Name, c.vacuum()), err != nil && !libvirtconn.IsNotFound(err)
}

// vacuum is the command that removes the volume by hand.
func (c *Create) vacuum() string {
	return fmt.Sprintf("virsh vol-delete --pool %s %s", c.poolName, c.doc.Name)
}

// unknownID is the id a volume is recorded under (tainted) when it may
// exist but libvirt never gave its key: "pool/name", which the next apply
// looks up.
func (c *Create) unknownID() string {
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

// Close records in state where the content came from and what it was
// (content_digest, content_upstream, content_source), and closes the
// content and the upload's connection. It runs after the create's ending.
func (c *Create) Close(state *tfsdk.State) {
	if c.copied != nil {
		state.Raw = withUpstream(withContentDigest(state.Raw, c.copied.digest), c.plan, c.share.Fingerprint())
		state.Raw = withContentSource(state.Raw, contentSourceCopy, 0)
	}
	if c.src != nil {
		state.Raw = withUpstream(withContentDigest(state.Raw, c.src.Digest()), c.plan, c.src.Fingerprint)
		state.Raw = withContentSource(state.Raw, c.src.Origin(), c.src.Received())
		c.src.Close()
	}
	if c.up != nil {
		c.up.Close()
	}
	if c.share != nil {
		c.share.Release()
	}
}

// clone copies another volume.
func (c *Create) clone(ctx context.Context, from libvirtops.CloneSource) (string, error) {
	want, _ := SizeBytes(c.plan, "capacity")
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
func (c *Create) empty(ctx context.Context) (string, error) {
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
func (c *Create) content(ctx context.Context, diags *diag.Diagnostics) (string, error) {
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
	capacity, _ := SizeBytes(c.plan, "capacity")
	key, err := up.Create(ctx, c.doc, capacity, src, progressLogger(ctx))
	c.key = key
	if err != nil {
		c.left = c.removeHalfWritten(ctx)
		return c.unknownID(), fmt.Errorf("writing the content: %w", err)
	}
	if c.share != nil {
		c.share.Publish(key, src)
	}
	diags.Append(recordWritten(ctx, src.Written(), c.private)...)
	if src.FromCache != "" {
		tflog.Info(ctx, "volume content read from the content cache", map[string]any{"volume": c.poolName + "/" + c.doc.Name, "file": src.FromCache})
	}
	tflog.Info(ctx, "volume content transferred", map[string]any{"volume": c.poolName + "/" + c.doc.Name, "url": src.URL,
		"bytes": src.Transferred(), "compressed": src.Compression, "digest": fmt.Sprint(src.Digest())})
	return key, nil
}

// rbdContent fills a new volume of an rbd pool from the content on the
// upload's connection.
func (c *Create) rbdContent(ctx context.Context, def *libvirtxml.StoragePool) (string, error) {
	capacity, _ := SizeBytes(c.plan, "capacity")
	key, err := c.up.CreateRBD(ctx, def, c.doc, capacity, stagingPool(c.plan), c.src, progressLogger(ctx))
	c.key = key
	if err == nil {
		return key, nil
	}
	c.left = func() (string, bool) {
		// CreateRBDVolume cleans up on its connection, but that may be
		// closing (a cancelled apply closes it, and go-libvirt notices a
		// moment later): whatever is left is removed on a new one. Every
		// name is this volume's own (the volume did not exist before), so
		// this never removes another's.
		removed, rerr := c.volumes.CleanUpRBDCreate(ctx, c.poolName, stagingPool(c.plan), c.doc.Name)
		said := ""
		if len(removed) > 0 {
			said = "; " + strings.Join(removed, " and ") + " deleted on a new connection"
		}
		if rerr != nil {
			said += fmt.Sprintf("; removing what it left failed (%v): the RBD image may remain half-written", rerr)
		}
		return said, rerr != nil
	}
	return c.unknownID(), fmt.Errorf("copying the content into RBD: %w", err)
}

// removeHalfWritten is the Undo of a failed upload. The create deletes
// what it made, but not through a broken connection, and a SIGINT can close
// the upload's connection while it still reports connected: whatever
// remains is removed on the shared one (a lookup that finds nothing when
// the create cleaned up), on a context of its own (the apply's may be
// cancelled by SIGINT), briefly: tofu is waiting to exit.
func (c *Create) removeHalfWritten(ctx context.Context) func() (string, bool) {
	return func() (string, bool) {
		cleanCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		removed, err := c.volumes.RemoveIfPresent(cleanCtx, c.poolName, c.doc.Name)
		cancel()
		switch {
		case removed:
			return c.removalSaid(nil, c.doc.Name, c.vacuum()), false
		case err != nil:
			return c.removalSaid(err, c.doc.Name, c.vacuum()), true
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

// SizeBytes reads a scaled size (value + unit attribute) in bytes; ok is
// false when the value is null or unknown, or the unit is not libvirt's.
func SizeBytes(attrs map[string]tftypes.Value, name string) (uint64, bool) {
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
func checkContentFits(ctx context.Context, c *libvirtconn.Client, plan map[string]tftypes.Value, diags *diag.Diagnostics) {
	url := contentURL(plan)
	poolName, ok := treeresource.String(plan, "pool")
	if url == "" || !ok || c == nil {
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
	free, err := libvirtops.Volumes(c).PoolFree(ctx, poolName)
	if err == nil && uint64(info.Size()) > free {
		diags.AddAttributeError(path.Root("create").AtName("content").AtName("url"), "Content larger than the pool's free space",
			fmt.Sprintf("%s is %s but pool %q has %s free.", file, storage.HumanBytes(uint64(info.Size())), poolName, storage.HumanBytes(free)))
	}
}
