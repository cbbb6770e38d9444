package storage

import (
	"bytes"
	"compress/gzip"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Magic numbers of the compressed image formats understood. Images are
// often published compressed (.raw.xz, .qcow2.gz, .img.zst); sending the
// compressed bytes to libvirt would make a volume of garbage.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	xzMagic   = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// maxMagicLen is how many bytes compressionOf needs.
const maxMagicLen = 6

// compressionOf names the compression the first bytes announce, "" for none.
func compressionOf(head []byte) string {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return "gzip"
	case bytes.HasPrefix(head, xzMagic):
		return "xz"
	case bytes.HasPrefix(head, zstdMagic):
		return "zstd"
	}
	return ""
}

// decompressor streams the decompressed bytes of r with bounded memory
// (zstd's window is capped, so a hostile frame cannot demand gigabytes).
func decompressor(kind string, r io.Reader) (io.Reader, io.Closer, error) {
	switch kind {
	case "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		return zr, zr, nil
	case "xz":
		xr, err := xz.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		return xr, nil, nil
	case "zstd":
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
		if err != nil {
			return nil, nil, err
		}
		return zr, closerFunc(zr.Close), nil
	}
	return r, nil, nil
}

type closerFunc func()

func (f closerFunc) Close() error { f(); return nil }
