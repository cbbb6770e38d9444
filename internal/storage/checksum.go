package storage

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/digitalocean/go-libvirt"
)

// Checksum is an expected digest of content as published (the bytes the
// server sends or the file holds, before any decompression), which is what
// SHA256SUMS files list.
type Checksum struct {
	// Algorithm is "sha256" or "sha512".
	Algorithm string
	// Hex is the digest in lower-case hexadecimal.
	Hex string
}

// String is the "algorithm:hex" form used in configurations and state.
func (c Checksum) String() string { return c.Algorithm + ":" + c.Hex }

// hexLen is the digest length in hex digits of each algorithm supported.
var hexLen = map[string]int{"sha256": 64, "sha512": 128}

func newHash(algorithm string) hash.Hash {
	if algorithm == "sha512" {
		return sha512.New()
	}
	return sha256.New()
}

// ParseChecksum reads "sha256:<hex>" or "sha512:<hex>".
func ParseChecksum(s string) (Checksum, error) {
	alg, digest, ok := strings.Cut(strings.TrimSpace(s), ":")
	alg = strings.ToLower(alg)
	want, known := hexLen[alg]
	if !ok || !known {
		return Checksum{}, fmt.Errorf("%q is not a checksum: write \"sha256:<64 hex digits>\" or \"sha512:<128 hex digits>\"", s)
	}
	digest = strings.ToLower(digest)
	if _, err := hex.DecodeString(digest); err != nil || len(digest) != want {
		return Checksum{}, fmt.Errorf("%q: a %s digest is %d hexadecimal digits", s, alg, want)
	}
	return Checksum{Algorithm: alg, Hex: digest}, nil
}

// FileName is the name a checksum file lists content under: the last
// element of the URL's path, or of a local path.
func FileName(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && strings.Contains(raw, "://") {
		return path.Base(u.Path)
	}
	return path.Base(strings.ReplaceAll(raw, "\\", "/"))
}

// ParseChecksumFile finds name in a checksum file and returns its digest.
// It reads the formats distributions publish: GNU coreutils lines
// ("<hex>  name" or "<hex> *name", Debian's and Ubuntu's SHA256SUMS) and BSD
// tagged lines ("SHA256 (name) = <hex>", Fedora's CHECKSUM), ignoring
// comments and a PGP signature around them. A listed name with directories
// matches by its last element.
func ParseChecksumFile(r io.Reader, name string) (Checksum, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	listed := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		alg, file, digest, ok := parseChecksumLine(line)
		if !ok {
			continue
		}
		listed++
		if path.Base(file) != name {
			continue
		}
		return ParseChecksum(alg + ":" + digest)
	}
	if err := sc.Err(); err != nil {
		return Checksum{}, err
	}
	if listed == 0 {
		return Checksum{}, errors.New("it lists no checksums (expected lines like \"<hex>  name\" or \"SHA256 (name) = <hex>\")")
	}
	return Checksum{}, fmt.Errorf("it lists %d files but not %q", listed, name)
}

func parseChecksumLine(line string) (alg, file, digest string, ok bool) {
	// BSD: SHA256 (name) = hex
	if tag, rest, found := strings.Cut(line, " ("); found {
		if file, digest, found := strings.Cut(rest, ") = "); found {
			alg = strings.ToLower(tag)
			if _, known := hexLen[alg]; known {
				return alg, file, strings.TrimSpace(digest), true
			}
		}
	}
	// GNU: hex, one or two spaces, optional '*' (binary mode), name
	digest, file, found := strings.Cut(line, " ")
	if !found {
		return "", "", "", false
	}
	if _, err := hex.DecodeString(digest); err != nil {
		return "", "", "", false
	}
	for a, n := range hexLen {
		if len(digest) == n {
			alg = a
		}
	}
	if alg == "" {
		return "", "", "", false
	}
	file = strings.TrimPrefix(strings.TrimPrefix(file, " "), "*")
	return alg, file, digest, file != ""
}

// ResolveChecksum returns the expected digest: checksum when given, else the
// entry for the content's file name in the checksum file at checksumURL
// (http(s), file:// or a local path, fetched with the same TLS options).
// Neither set: nil.
func ResolveChecksum(ctx context.Context, contentURL, checksum, checksumURL string, opts FetchOptions) (*Checksum, error) {
	if checksum != "" {
		c, err := ParseChecksum(checksum)
		if err != nil {
			return nil, err
		}
		return &c, nil
	}
	if checksumURL == "" {
		return nil, nil
	}
	f, err := openRaw(ctx, checksumURL, opts)
	if err != nil {
		return nil, fmt.Errorf("checksum file: %w", err)
	}
	defer f.Close()
	c, err := ParseChecksumFile(io.LimitReader(f.raw, 16<<20), FileName(contentURL))
	if err != nil {
		return nil, fmt.Errorf("checksum file %s: %w", f.URL, err)
	}
	return &c, nil
}

// ChecksumMismatchError is the content's digest differing from the expected one.
type ChecksumMismatchError struct {
	Want, Got Checksum
	Bytes     int64
}

func (e *ChecksumMismatchError) Error() string {
	return fmt.Sprintf("checksum mismatch: the %d bytes received have %s, expected %s", e.Bytes, e.Got, e.Want)
}

// digestReader hashes what passes through it and, at the end, replaces
// io.EOF with a ChecksumMismatchError when the digest is not the expected
// one: the consumer (the upload stream) then fails instead of finishing,
// and the volume is deleted like after any failed upload.
type digestReader struct {
	r    io.Reader
	h    hash.Hash
	want Checksum
	n    int64
	size int64 // the announced length, -1 when unknown
	// onMatch runs once when the content ended with the expected digest
	onMatch func()
	got     *Checksum // set at the end of the content
}

// newDigestReader checks the digest at the end of r: at io.EOF, or once
// size bytes passed when the size is known (>= 0), since a consumer that
// knows the length (the upload) stops reading there without seeing EOF.
func newDigestReader(r io.Reader, want Checksum, size int64) *digestReader {
	return &digestReader{r: r, h: newHash(want.Algorithm), want: want, size: size}
}

func (d *digestReader) Read(p []byte) (int, error) {
	if d.got != nil { // the end was reached: nothing follows
		if *d.got != d.want {
			// again: io.ReadFull drops an error that comes with the last bytes
			return 0, &ChecksumMismatchError{Want: d.want, Got: *d.got, Bytes: d.n}
		}
		return 0, io.EOF
	}
	n, err := d.r.Read(p)
	if n > 0 {
		d.h.Write(p[:n])
		d.n += int64(n)
	}
	if errors.Is(err, io.EOF) || (err == nil && d.size >= 0 && d.n >= d.size) {
		got := Checksum{Algorithm: d.want.Algorithm, Hex: hex.EncodeToString(d.h.Sum(nil))}
		d.got = &got
		if got != d.want {
			return n, &ChecksumMismatchError{Want: d.want, Got: got, Bytes: d.n}
		}
		if d.onMatch != nil {
			d.onMatch()
		}
	}
	return n, err
}

// VolumeDigest is what a volume holds right after its content was written:
// the digest of its first Length bytes. Verify compares it with the volume.
type VolumeDigest struct {
	Digest Checksum `json:"digest"`
	Length int64    `json:"length"`
}

// DigestVolume reads the first length bytes of vol through libvirt's
// download stream and returns their digest. Memory use is flat.
func DigestVolume(ctx context.Context, l *libvirt.Libvirt, vol libvirt.StorageVol, algorithm string, length int64) (Checksum, error) {
	h := newHash(algorithm)
	w := &countingWriter{w: h}
	if err := l.StorageVolDownload(vol, w, 0, uint64(length), 0); err != nil {
		return Checksum{}, fmt.Errorf("reading volume %s: %w", vol.Key, err)
	}
	if err := ctx.Err(); err != nil {
		return Checksum{}, err
	}
	sum := Checksum{Algorithm: algorithm, Hex: hex.EncodeToString(h.Sum(nil))}
	if w.n < length {
		sum.Hex = "" // shorter than what was written: no digest can match
	}
	return sum, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
