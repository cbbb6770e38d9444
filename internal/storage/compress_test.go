package storage

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

func compressWith(t *testing.T, kind string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	var err error
	switch kind {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "xz":
		w, err = xz.NewWriter(&buf)
	case "zstd":
		w, err = zstd.NewWriter(&buf)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Compressed images are recognised by their magic (the file names here say
// nothing), decompressed while read, and the qcow2 detection sees the
// decompressed bytes.
func TestOpenCompressed(t *testing.T) {
	random := make([]byte, 3<<20)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	qcow := append(qcow2Head(8<<30), make([]byte, 1<<20)...)
	dir := t.TempDir()
	for _, kind := range []string{"gzip", "xz", "zstd"} {
		for _, c := range []struct {
			name, format string
			data         []byte
			virtual      uint64
		}{{"raw", "raw", random, 0}, {"qcow2", "qcow2", qcow, 8 << 30}} {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				packed := compressWith(t, kind, c.data)
				p := filepath.Join(dir, kind+"-"+c.name+".img")
				if err := os.WriteFile(p, packed, 0o600); err != nil {
					t.Fatal(err)
				}
				src, err := Open(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				if src.Compression != kind || src.Format != c.format || src.VirtualSize != c.virtual {
					t.Errorf("compression %q format %q virtual %d, want %q %q %d", src.Compression, src.Format, src.VirtualSize, kind, c.format, c.virtual)
				}
				if src.Size != -1 || src.WireSize != int64(len(packed)) {
					t.Errorf("size %d wire %d, want -1 (unknown until decompressed) and %d", src.Size, src.WireSize, len(packed))
				}
				got, err := io.ReadAll(src.Reader())
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, c.data) {
					t.Errorf("decompressed %d bytes, not the %d of the content", len(got), len(c.data))
				}
				if src.Transferred() != int64(len(c.data)) {
					t.Errorf("Transferred %d, want the decompressed length %d", src.Transferred(), len(c.data))
				}
			})
		}
		t.Run(kind+"/truncated", func(t *testing.T) {
			packed := compressWith(t, kind, random)
			p := filepath.Join(dir, kind+"-cut.img")
			if err := os.WriteFile(p, packed[:len(packed)/2], 0o600); err != nil {
				t.Fatal(err)
			}
			src, err := Open(context.Background(), p)
			if err != nil {
				return // refused at the header: fine
			}
			defer src.Close()
			if _, err := io.ReadAll(src.Reader()); err == nil {
				t.Error("a truncated compressed image read without error")
			}
		})
	}
}
