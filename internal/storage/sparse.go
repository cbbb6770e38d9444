package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"
)

// Sparse upload: a volume just created in a file-based pool reads as zeros
// wherever nothing was written, so the content's holes (a local file's,
// found with SEEK_DATA/SEEK_HOLE) and its runs of zero blocks (any stream)
// need not cross the connection. Each stretch of data is uploaded at its
// offset with a stream of its own; the file stays sparse in the pool.

// ZeroBlock is the granularity of zero detection in streamed content.
var ZeroBlock = 1 << 20

// MinHole is the smallest hole (or run of zeros) that is skipped; smaller
// ones are sent as data. Each skip starts a new upload stream, and libvirt
// refreshes the pool after every stream: many small skips would cost more
// than the zeros.
var MinHole int64 = 16 << 20

// sparseTarget reports whether vol's pool writes into files that read as
// zeros where unwritten (dir, fs, netfs): only there may zeros be skipped.
func sparseTarget(l *libvirt.Libvirt, pool libvirt.StoragePool) bool {
	xml, err := l.StoragePoolGetXMLDesc(pool, 0)
	if err != nil {
		return false
	}
	var doc libvirtxml.StoragePool
	if doc.Unmarshal(xml) != nil {
		return false
	}
	switch doc.Type {
	case "dir", "fs", "netfs":
		return true
	}
	return false
}

// extent is a stretch of data at an offset.
type extent struct{ off, len int64 }

// dataExtents lists the data of f (size bytes) by SEEK_DATA/SEEK_HOLE,
// merging extents closer than MinHole; ok is false when the file system
// cannot tell (then the content is streamed and zero runs are skipped).
func dataExtents(f *os.File, size int64) (extents []extent, ok bool) {
	const seekData, seekHole = 3, 4
	var off int64
	for off < size {
		start, err := f.Seek(off, seekData)
		if err != nil {
			if errors.Is(err, syscall.ENXIO) {
				break // no data after off
			}
			return nil, false
		}
		end, err := f.Seek(start, seekHole)
		if err != nil {
			return nil, false
		}
		if end > size {
			end = size
		}
		if n := len(extents); n > 0 && start-(extents[n-1].off+extents[n-1].len) < MinHole {
			extents[n-1].len = end - extents[n-1].off
		} else {
			extents = append(extents, extent{start, end - start})
		}
		off = end
	}
	return extents, true
}

func uploadSparse(ctx context.Context, l *libvirt.Libvirt, vol libvirt.StorageVol, src *Source) error {
	if src.file != nil && src.Compression == "" && src.Size >= 0 {
		if extents, ok := dataExtents(src.file, src.Size); ok {
			return uploadExtents(ctx, l, vol, src, extents)
		}
	}
	if err := uploadSkippingZeros(ctx, l, vol, src); err != nil {
		return err
	}
	// a volume created without a size (content of unknown length) ends at
	// the last byte written: zeros skipped at the end still belong to it
	_, capacity, _, err := l.StorageVolGetInfo(vol)
	if err == nil && uint64(src.Transferred()) > capacity {
		err = l.StorageVolResize(vol, uint64(src.Transferred()), 0)
	}
	return err
}

// uploadExtents sends a local file's data extents; the counted bytes
// include the holes, so progress and the length check see the whole file.
func uploadExtents(ctx context.Context, l *libvirt.Libvirt, vol libvirt.StorageVol, src *Source, extents []extent) error {
	var done int64
	for _, e := range extents {
		src.reader.n.Add(e.off - done) // the hole before it
		r := &ctxReader{ctx: ctx, r: &countInto{r: io.NewSectionReader(src.file, e.off, e.len), n: src.reader}, max: UploadChunk}
		if err := l.StorageVolUpload(vol, r, uint64(e.off), uint64(e.len), 0); err != nil {
			if r.err != nil {
				return r.err
			}
			return fmt.Errorf("at byte %d: %w", e.off, err)
		}
		if r.err != nil {
			return r.err
		}
		done = e.off + e.len
	}
	src.reader.n.Add(src.Size - done) // the hole at the end
	return nil
}

// countInto counts what it reads into a source's counter.
type countInto struct {
	r io.Reader
	n *countingReader
}

func (c *countInto) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.n.Add(int64(n))
	return n, err
}

// uploadSkippingZeros reads the content in ZeroBlock blocks and uploads each
// run of blocks that are not all zero at its offset.
func uploadSkippingZeros(ctx context.Context, l *libvirt.Libvirt, vol libvirt.StorageVol, src *Source) error {
	b := &blocks{r: src.Reader(), buf: make([]byte, ZeroBlock)}
	for {
		// skip zero blocks
		for {
			if err := b.load(); err != nil {
				return err
			}
			if b.n == 0 {
				return nil // the end
			}
			if !b.zero() {
				break
			}
			b.consume()
		}
		start := b.off
		seg := &segment{b: b}
		r := &ctxReader{ctx: ctx, r: seg, max: UploadChunk}
		if err := l.StorageVolUpload(vol, r, uint64(start), 0, 0); err != nil {
			if r.err != nil {
				return r.err
			}
			return fmt.Errorf("at byte %d: %w", start, err)
		}
		if r.err != nil {
			return r.err
		}
		if seg.err != nil {
			return seg.err
		}
	}
}

// blocks reads a stream one ZeroBlock at a time.
type blocks struct {
	r      io.Reader
	buf    []byte
	n      int   // bytes loaded in buf
	pos    int   // bytes of buf already handed out
	off    int64 // the stream offset of buf[pos]
	loaded bool
	eof    bool
}

// load fills buf with the next block unless one is loaded; n is 0 at the end.
func (b *blocks) load() error {
	if b.loaded {
		return nil
	}
	b.n, b.pos, b.loaded = 0, 0, true
	if b.eof {
		return nil
	}
	n, err := io.ReadFull(b.r, b.buf)
	b.n = n
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		b.eof = true
		return nil
	}
	return err
}

func (b *blocks) zero() bool {
	return allZero(b.buf[b.pos:b.n])
}

func allZero(p []byte) bool {
	for len(p) > 0 {
		n := min(len(p), len(zeroes))
		if !bytes.Equal(p[:n], zeroes[:n]) {
			return false
		}
		p = p[n:]
	}
	return true
}

// consume drops the rest of the loaded block.
func (b *blocks) consume() {
	b.off += int64(b.n - b.pos)
	b.loaded = false
}

var zeroes = make([]byte, 1<<20)

// segment reads from blocks until a run of at least MinHole zero bytes or
// the end; shorter runs of zeros are part of the segment.
type segment struct {
	b       *blocks
	pending int64 // zeros of a short run still to hand out
	err     error
}

func (s *segment) Read(p []byte) (int, error) {
	if s.pending > 0 {
		n := int(min(int64(len(p)), s.pending, int64(len(zeroes))))
		copy(p[:n], zeroes)
		s.pending -= int64(n)
		return n, nil
	}
	b := s.b
	if err := b.load(); err != nil {
		s.err = err
		return 0, err
	}
	if b.n == 0 {
		return 0, io.EOF
	}
	if b.pos == 0 && b.zero() {
		// measure the run of zero blocks
		var run int64
		for b.n > 0 && b.pos == 0 && b.zero() {
			run += int64(b.n)
			b.consume()
			if err := b.load(); err != nil {
				s.err = err
				return 0, err
			}
		}
		if b.n == 0 || run >= MinHole {
			return 0, io.EOF // a hole: the next segment starts after it
		}
		s.pending = run
		return s.Read(p)
	}
	n := copy(p, b.buf[b.pos:b.n])
	b.pos += n
	b.off += int64(n)
	if b.pos == b.n {
		b.loaded = false
	}
	return n, nil
}
