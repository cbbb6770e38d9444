package storage

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// Source is image content opened for streaming.
type Source struct {
	// URL is what the user gave, for messages (a password in it is masked).
	URL string
	// Size is the content length in bytes, -1 when the server sent none.
	Size int64
	// Format is "qcow2" when the content starts with the qcow2 magic, else "raw".
	Format string
	// VirtualSize is the disk size a qcow2 image declares in its header (0 for raw).
	VirtualSize uint64
	// HTTPStatus is the response status of an http(s) source (0 for files).
	HTTPStatus int
	// Compression is "gzip", "xz" or "zstd" when the bytes sent are
	// compressed (recognised by their magic, not by the name): the content
	// is then the decompressed stream, Size is -1 and WireSize the length
	// sent (-1 when unknown).
	Compression string
	WireSize    int64

	body   io.ReadCloser
	raw    io.Reader // the content before peeking
	reader *countingReader
	file   *os.File        // a local file's handle, for its data extents
	wire   *countingReader // the compressed bytes, when Compression is set
	dec    io.Closer       // the decompressor, when it needs closing
	stall  context.CancelFunc
	digest *digestReader // hashes the bytes as sent, when a checksum is expected
	cache  *cacheWriter  // copies the bytes into the content cache, when one is set
	// Fingerprint is the server's description of the file (ETag,
	// Last-Modified, length), "" for files.
	Fingerprint string
	// FromCache is the cache file the content was read from, "" when it
	// was not.
	FromCache string
	written   hash.Hash // hashes the decompressed bytes, when compressed content has a checksum
}

// peekSize is how much of the content is looked at before uploading: enough
// for the qcow2 header fields used here, small enough to never matter.
const peekSize = 64 << 10

// httpClient is shared so that connections are reused; it has no overall
// timeout (images are large) but bounds connecting and waiting for headers,
// and stalled bodies are caught by the stall timer in countingReader.
var httpClient = &http.Client{
	Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   30 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		MaxIdleConnsPerHost:   4,
		// Compressed transfer would hide the real length and cost CPU.
		DisableCompression: true,
	},
}

// StallTimeout aborts a download that delivers no byte for this long.
var StallTimeout = 2 * time.Minute

// Open opens content from an http:// or https:// URL, a file:// URL or a
// local path, and peeks at its first bytes to find its format. Close it.
func Open(ctx context.Context, raw string) (*Source, error) {
	return OpenWith(ctx, raw, FetchOptions{})
}

// OpenWith is Open with download options: TLS settings, and an expected
// checksum of the bytes as sent, checked while they stream (the reader
// fails at the end when the digest differs).
func OpenWith(ctx context.Context, raw string, opts FetchOptions) (*Source, error) {
	from := raw
	cached := false
	if opts.Checksum != nil && opts.CacheDir != "" {
		if st, err := os.Stat(cachePath(opts.CacheDir, *opts.Checksum)); err == nil && st.Mode().IsRegular() {
			from, cached = cachePath(opts.CacheDir, *opts.Checksum), true
		}
	}
	s, err := openRaw(ctx, from, opts)
	if err != nil {
		return nil, err
	}
	if cached {
		s.URL, s.FromCache = s.URL+" (cached for "+redact(raw)+")", from
		// used now: the last to be evicted
		_ = touchCached(from)
		_ = EvictCache(opts.CacheDir, opts.CacheMaxBytes, from)
	}
	if opts.Checksum != nil {
		if opts.CacheDir != "" && !cached {
			s.cache = newCacheWriter(opts.CacheDir, *opts.Checksum)
			s.cache.maxBytes = opts.CacheMaxBytes
			s.raw = io.TeeReader(s.raw, s.cache)
		}
		s.digest = newDigestReader(s.raw, *opts.Checksum, s.Size)
		s.digest.onMatch = s.commitCache
		s.raw = s.digest
		s.file = nil // every byte is read (and hashed), holes included
	}
	if err := s.peek(); err != nil {
		s.Close()
		return nil, err
	}
	if s.digest != nil && s.Compression != "" {
		// what the volume holds is the decompressed stream: hashed too,
		// so that the volume can be verified later
		s.written = newHash(opts.Checksum.Algorithm)
		s.reader.r = io.TeeReader(s.reader.r, s.written)
	}
	return s, nil
}

// Written is what the volume holds after a complete upload of verified
// content: the digest and length of the bytes written (the decompressed
// stream when the content was compressed); nil without a verified checksum.
func (s *Source) Written() *VolumeDigest {
	d := s.Digest()
	if d == nil {
		return nil
	}
	w := &VolumeDigest{Digest: *d, Length: s.Transferred()}
	if s.written != nil {
		w.Digest.Hex = hex.EncodeToString(s.written.Sum(nil))
	}
	return w
}

// openRaw opens the bytes at raw without looking at them.
func openRaw(ctx context.Context, raw string, opts FetchOptions) (*Source, error) {
	s := &Source{URL: raw, Size: -1}
	u, err := url.Parse(raw)
	if err == nil && u.User != nil {
		s.URL = u.Redacted() // never repeat a password in messages
	}
	switch {
	case err == nil && (u.Scheme == "http" || u.Scheme == "https"):
		if err := s.openHTTP(ctx, u, opts); err != nil {
			return nil, err
		}
	case err == nil && u.Scheme == "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("%s: file URLs must name a local file (file:///path), not host %q", raw, u.Host)
		}
		if err := s.openFile(u.Path); err != nil {
			return nil, err
		}
	case strings.Contains(raw, "://"):
		return nil, fmt.Errorf("%s: unsupported URL scheme; use http://, https://, file:// or a local path", s.URL)
	default:
		if err := s.openFile(raw); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Digest is the checksum the bytes as sent were verified to have: set once
// the content was read to its end and matched the one OpenWith was given.
func (s *Source) Digest() *Checksum {
	if s.digest == nil || s.digest.got == nil || *s.digest.got != s.digest.want {
		return nil
	}
	return s.digest.got
}

func (s *Source) openFile(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("opening %s: %w", s.URL, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("opening %s: %w", s.URL, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("%s is not a regular file", s.URL)
	}
	s.Size = st.Size()
	s.body, s.raw, s.file = f, f, f
	return nil
}

func (s *Source) openHTTP(ctx context.Context, u *url.URL, opts FetchOptions) error {
	client, err := clientFor(opts)
	if err != nil {
		return fmt.Errorf("%s: %w", s.URL, err)
	}
	b := &resumingBody{ctx: ctx, client: client, url: u.String(), shown: s.URL, size: -1}
	resp, err := b.get(0)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", s.URL, err)
	}
	s.HTTPStatus = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		resp.Body.Close()
		b.stop()
		return fmt.Errorf("downloading %s: HTTP status %s", s.URL, resp.Status)
	}
	s.Size = resp.ContentLength // -1 when unknown
	s.Fingerprint = fingerprintOf(resp.Header, resp.ContentLength)
	b.body, b.size, b.validor = resp.Body, resp.ContentLength, validatorOf(resp.Header)
	s.body, s.raw, s.stall = b, b, b.stop
	return nil
}

// peek reads the first bytes into a small buffer (never the whole image) and
// recognises qcow2.
func (s *Source) peek() error {
	br := bufio.NewReaderSize(s.raw, peekSize)
	s.reader = &countingReader{r: &drainThen{first: br, rest: s.raw}, expected: s.Size, stall: s.stall}
	magic, err := br.Peek(maxMagicLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return s.errorf("reading the first bytes: %w", err)
	}
	if kind := compressionOf(magic); kind != "" {
		// the bytes sent keep their own count and length check; the content
		// is what the decompressor yields, peeked again below
		s.wire = s.reader
		dec, closer, err := decompressor(kind, s.wire)
		if err != nil {
			return s.errorf("reading the %s header: %w", kind, err)
		}
		s.Compression, s.WireSize, s.Size, s.dec = kind, s.Size, -1, closer
		br = bufio.NewReaderSize(dec, peekSize)
		s.reader = &countingReader{r: &drainThen{first: br, rest: dec}, expected: -1}
	}
	head, err := br.Peek(qcow2HeaderLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return s.errorf("reading the first bytes: %w", err)
	}
	s.Format = "raw"
	if vs, ok := ParseQcow2Header(head); ok {
		s.Format = "qcow2"
		s.VirtualSize = vs
	}
	return nil
}

// Reader returns the content from its first byte. It fails with an error
// naming the URL when the content is shorter or longer than the announced
// length, or when the transfer stalls.
func (s *Source) Reader() io.Reader { return s.reader }

// Transferred is the number of content bytes read so far.
func (s *Source) Transferred() int64 { return s.reader.n.Load() }

// Received is the number of bytes read from where the content comes from:
// the compressed bytes for compressed content, else Transferred.
func (s *Source) Received() int64 {
	if s.wire != nil {
		return s.wire.n.Load()
	}
	return s.Transferred()
}

// Where the content of a Source was read from (Origin).
const (
	OriginDownload = "download" // an http(s) server
	OriginFile     = "file"     // a local file
	OriginCache    = "cache"    // the content cache (FetchOptions.CacheDir)
)

// Origin says where the content was read from: OriginDownload,
// OriginFile or OriginCache.
func (s *Source) Origin() string {
	switch {
	case s.FromCache != "":
		return OriginCache
	case s.HTTPStatus != 0:
		return OriginDownload
	}
	return OriginFile
}

// commitCache moves verified content into the cache.
func (s *Source) commitCache() {
	if s.cache != nil {
		_ = s.cache.commit() // a cache that cannot be written is only slower
		s.cache = nil
	}
}

// redact masks a password in a URL.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	return raw
}

// Close releases the file or connection.
func (s *Source) Close() error {
	if s.cache != nil {
		s.cache.discard()
	}
	if s.dec != nil {
		s.dec.Close()
	}
	if s.body == nil {
		return nil
	}
	return s.body.Close()
}

// ReadError is the first failure of reading the source (transfer or
// decompression), nil when none happened.
func (s *Source) ReadError() error {
	if s.wire != nil && s.wire.err != nil {
		return s.wire.err
	}
	return s.reader.err
}

func (s *Source) errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	status := ""
	if s.HTTPStatus != 0 {
		status = fmt.Sprintf(", HTTP status %d", s.HTTPStatus)
	}
	return fmt.Errorf("%s: %w (%d bytes transferred%s)", s.URL, err, s.Transferred(), status)
}

// countingReader counts bytes, checks the total against the announced length
// and aborts the transfer (via stall) when no byte arrives for StallTimeout.
type countingReader struct {
	r        io.Reader
	expected int64
	n        atomic.Int64
	stall    context.CancelFunc
	stalled  atomic.Bool
	err      error // the first read error, kept for the final message
}

func (c *countingReader) Read(p []byte) (int, error) {
	var timer *time.Timer
	if c.stall != nil && StallTimeout > 0 {
		timer = time.AfterFunc(StallTimeout, func() { c.stalled.Store(true); c.stall() })
	}
	n, err := c.r.Read(p)
	if timer != nil {
		timer.Stop()
	}
	total := c.n.Add(int64(n))
	if c.expected >= 0 && total > c.expected {
		err = fmt.Errorf("content is longer than the announced %d bytes", c.expected)
	}
	if errors.Is(err, io.EOF) && c.expected >= 0 && total < c.expected {
		err = fmt.Errorf("content ended after %d of %d bytes", total, c.expected)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		if c.stalled.Load() {
			err = fmt.Errorf("no data for %s: %w", StallTimeout, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) && c.expected >= 0 {
			err = fmt.Errorf("connection closed after %d of %d bytes: %w", total, c.expected, err)
		}
		if c.err == nil {
			c.err = err
		}
	}
	return n, err
}

// drainThen reads what the peek buffer holds, then the underlying reader
// directly (no extra copy through the buffer for the bulk of the image).
type drainThen struct {
	first *bufio.Reader
	rest  io.Reader
}

func (d *drainThen) Read(p []byte) (int, error) {
	if d.first != nil {
		if d.first.Buffered() > 0 {
			return d.first.Read(p)
		}
		d.first = nil
	}
	return d.rest.Read(p)
}
