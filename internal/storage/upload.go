package storage

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"
)

// VolumeRequest describes a volume to create from content.
type VolumeRequest struct {
	Pool libvirt.StoragePool
	// LockKey names the pool for PoolLocks (connection URI + pool name).
	LockKey string
	// Def is the volume as configured. Its format is set from the content
	// when not given; its capacity is replaced by the content's size.
	Def *libvirtxml.StorageVolume
	// Capacity is the configured capacity in bytes, 0 when not configured:
	// the volume is grown to it after the upload when the content is smaller.
	Capacity uint64
}

// CreateVolume creates a volume holding src's content: it creates the volume
// with the content's format and size (a qcow2 image keeps its format and
// virtual size), streams the content in, and grows the volume to the
// configured capacity. Any failure deletes the half-made volume; the error
// names the URL, the HTTP status and the bytes transferred. When that
// deletion fails too (the connection broke), the volume is returned with the
// error.
func CreateVolume(ctx context.Context, l *libvirt.Libvirt, locks *PoolLocks, req VolumeRequest, src *Source) (libvirt.StorageVol, error) {
	def := *req.Def
	if def.Target == nil {
		def.Target = &libvirtxml.StorageVolumeTarget{}
	} else {
		t := *def.Target
		def.Target = &t
	}
	format := src.Format
	if def.Target.Format != nil && def.Target.Format.Type != "" {
		format = def.Target.Format.Type
		if format == "qcow2" && src.Format != "qcow2" {
			return libvirt.StorageVol{}, src.errorf("target.format.type is qcow2 but the content is not a qcow2 image")
		}
	} else {
		def.Target.Format = &libvirtxml.StorageVolumeTargetFormat{Type: format}
	}

	// contentSize is the disk size the content gives the volume: a qcow2
	// image's virtual size, else the byte length (unknown: -1).
	contentSize := src.Size
	if format == "qcow2" {
		contentSize = int64(src.VirtualSize)
	}
	if req.Capacity > 0 && contentSize > 0 && uint64(contentSize) > req.Capacity {
		return libvirt.StorageVol{}, src.errorf("capacity %d is smaller than the content's size %d bytes; a volume cannot shrink its image", req.Capacity, contentSize)
	}
	createSize := uint64(0)
	if contentSize > 0 {
		createSize = uint64(contentSize)
	}
	def.Capacity = &libvirtxml.StorageVolumeSize{Unit: "bytes", Value: createSize}
	if def.Allocation == nil {
		// sparse: the upload writes the data, preallocating first would write it twice
		def.Allocation = &libvirtxml.StorageVolumeSize{Unit: "bytes", Value: 0}
	}
	xml, err := def.Marshal()
	if err != nil {
		return libvirt.StorageVol{}, fmt.Errorf("writing volume XML: %w", err)
	}

	// content that cannot fit fails before anything is created or streamed
	if src.Size > 0 {
		if _, _, _, free, err := l.StoragePoolGetInfo(req.Pool); err == nil && uint64(src.Size) > free {
			return libvirt.StorageVol{}, src.errorf("the content is %s but pool %q has %s free; nothing was created", HumanBytes(uint64(src.Size)), req.Pool.Name, HumanBytes(free))
		}
	}

	unlock := locks.Lock(req.LockKey)
	vol, err := l.StorageVolCreateXML(req.Pool, xml, 0)
	unlock()
	if err != nil {
		return libvirt.StorageVol{}, fmt.Errorf("creating volume %q in pool %q: %w", def.Name, req.Pool.Name, err)
	}
	// fail returns the volume with the error while it still exists (its
	// deletion failed too), so that the caller can record or remove it
	fail := func(err error) (libvirt.StorageVol, error) {
		unlock := locks.Lock(req.LockKey)
		defer unlock()
		if derr := l.StorageVolDelete(vol, 0); derr != nil {
			return vol, fmt.Errorf("%w; deleting the incomplete volume %s also failed: %v", err, vol.Key, derr)
		}
		return libvirt.StorageVol{}, err
	}

	// zeros are skipped only for raw content into a raw file: holes in other
	// formats' files are not the same as zeros
	sparse := format == "raw" && src.Format == "raw" && sparseTarget(l, req.Pool)
	if err := upload(ctx, l, vol, src, sparse); err != nil {
		return fail(err)
	}

	// The size the content gave the volume. libvirt's own figure can be stale
	// here (its pool refresh after an upload runs asynchronously), so it
	// comes from the header or from the bytes counted.
	capacity := uint64(src.Transferred())
	if contentSize >= 0 {
		capacity = uint64(contentSize)
	}
	if req.Capacity > 0 && capacity > req.Capacity {
		return fail(src.errorf("capacity %d is smaller than the uploaded content's size %d bytes", req.Capacity, capacity))
	}
	if req.Capacity > capacity {
		if err := l.StorageVolResize(vol, req.Capacity, 0); err != nil {
			return fail(fmt.Errorf("growing volume %s to %d bytes after upload: %w", vol.Key, req.Capacity, err))
		}
	}
	return vol, nil
}

// Upload streams src into vol from offset 0. Memory use is flat: the content
// passes through go-libvirt's stream buffer, nothing is spooled.
func Upload(ctx context.Context, l *libvirt.Libvirt, vol libvirt.StorageVol, src *Source) error {
	return upload(ctx, l, vol, src, false)
}

// upload streams src into vol; with sparse (a new volume whose unwritten
// ranges read as zeros), holes and runs of zeros are skipped instead of sent.
func upload(ctx context.Context, l *libvirt.Libvirt, vol libvirt.StorageVol, src *Source, sparse bool) error {
	if sparse {
		err := uploadSparse(ctx, l, vol, src)
		if rerr := src.ReadError(); rerr != nil {
			return src.errorf("upload aborted: %w", rerr)
		}
		if err != nil {
			return src.errorf("libvirt upload stream into %s: %w", vol.Key, err)
		}
		if src.Size >= 0 && src.Transferred() != src.Size {
			return src.errorf("uploaded %d of %d bytes", src.Transferred(), src.Size)
		}
		return nil
	}
	length := uint64(0) // 0: until the end of the stream
	if src.Size > 0 {
		length = uint64(src.Size)
	}
	r := &ctxReader{ctx: ctx, r: src.Reader(), max: UploadChunk}
	err := l.StorageVolUpload(vol, r, 0, length, 0)
	// The source's own failure explains a libvirt stream abort best.
	if rerr := src.ReadError(); rerr != nil {
		return src.errorf("upload aborted: %w", rerr)
	}
	if r.err != nil {
		return src.errorf("upload aborted: %w", r.err)
	}
	if err != nil {
		return src.errorf("libvirt upload stream into %s: %w", vol.Key, err)
	}
	if src.Size >= 0 && src.Transferred() != src.Size {
		return src.errorf("uploaded %d of %d bytes", src.Transferred(), src.Size)
	}
	return nil
}

// ctxReader ends the stream when ctx is done (timeouts, interrupts).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	max int
	err error
}

// UploadChunk bounds the data of one stream packet.
var UploadChunk = 256 << 10

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		c.err = err
		return 0, err
	}
	if c.max > 0 && len(p) > c.max {
		p = p[:c.max]
	}
	// fill the packet: network bodies return a few KiB per read, and each
	// read would otherwise become its own stream packet
	n := 0
	var err error
	for n < len(p) && err == nil {
		var m int
		m, err = c.r.Read(p[n:])
		n += m
	}
	if errors.Is(err, io.EOF) && n > 0 {
		err = nil // deliver the data now, EOF on the next read
	}
	if err != nil && !errors.Is(err, io.EOF) && c.err == nil && c.ctx.Err() != nil {
		c.err = c.ctx.Err()
	}
	return n, err
}

// HumanBytes writes a byte count the way people read it: "235.0 GiB (252329328640 bytes)".
func HumanBytes(n uint64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	f, i := float64(n)/1024, 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s (%d bytes)", f, units[i], n)
}
