package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/digitalocean/go-libvirt"
)

// VerifyChunk is how much of the volume one download call reads while
// comparing; the comparison stops at the first chunk that differs.
var VerifyChunk = 16 << 20

// Difference is where a volume's bytes stop matching its content.
type Difference struct {
	// Offset is the first byte that differs; when the volume is shorter it is
	// the volume's length.
	Offset int64
	// VolumeEnded is true when the volume has fewer bytes than the content.
	VolumeEnded bool
}

func (d *Difference) String() string {
	if d.VolumeEnded {
		return fmt.Sprintf("the volume ends after %d bytes, before the content does", d.Offset)
	}
	return fmt.Sprintf("the volume differs from the content at byte %d", d.Offset)
}

// Compare reads vol through libvirt's download stream and src from its first
// byte, and reports the first difference, nil when the volume begins with the
// whole content (a volume grown beyond its content still matches). It reads
// no further than the first difference, one VerifyChunk at a time; memory use
// is two chunks whatever the size.
func Compare(ctx context.Context, l *libvirt.Libvirt, vol libvirt.StorageVol, src *Source) (*Difference, error) {
	want := make([]byte, VerifyChunk)
	var have bytes.Buffer
	r := src.Reader()
	var offset int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, rerr := io.ReadFull(r, want)
		if rerr != nil && !errors.Is(rerr, io.EOF) && !errors.Is(rerr, io.ErrUnexpectedEOF) {
			return nil, src.errorf("reading the content to compare: %w", rerr)
		}
		if n == 0 {
			return nil, nil // the whole content matched
		}
		have.Reset()
		if err := l.StorageVolDownload(vol, &have, uint64(offset), uint64(n), 0); err != nil {
			return nil, fmt.Errorf("reading volume %s at byte %d: %w", vol.Key, offset, err)
		}
		got := have.Bytes()
		if len(got) >= n && bytes.Equal(got[:n], want[:n]) {
			offset += int64(n)
			if rerr != nil {
				return nil, nil
			}
			continue
		}
		for i := 0; i < n; i++ {
			if i >= len(got) {
				return &Difference{Offset: offset + int64(i), VolumeEnded: true}, nil
			}
			if got[i] != want[i] {
				return &Difference{Offset: offset + int64(i)}, nil
			}
		}
		offset += int64(n)
		if rerr != nil { // EOF: the content ended inside this chunk
			return nil, nil
		}
	}
}
