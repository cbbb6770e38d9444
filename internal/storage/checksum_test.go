package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func sha256Of(b []byte) string { s := sha256.Sum256(b); return "sha256:" + hex.EncodeToString(s[:]) }

func TestParseChecksum(t *testing.T) {
	good := strings.Repeat("ab", 32)
	if c, err := ParseChecksum("SHA256:" + strings.ToUpper(good)); err != nil || c.String() != "sha256:"+good {
		t.Errorf("sha256: %v %v", c, err)
	}
	if c, err := ParseChecksum("sha512:" + strings.Repeat("0f", 64)); err != nil || c.Algorithm != "sha512" {
		t.Errorf("sha512: %v %v", c, err)
	}
	for _, bad := range []string{"", good, "md5:" + good[:32], "sha256:" + good[:63], "sha256:" + good[:62] + "zz", "sha512:" + good} {
		if _, err := ParseChecksum(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseChecksumFile(t *testing.T) {
	a, b := strings.Repeat("1a", 32), strings.Repeat("2b", 32)
	long := strings.Repeat("3c", 64)
	gnu := a + "  debian-12-generic-amd64.qcow2\n" + b + " *debian-12-generic-amd64.raw\n" + long + "  sub/dir/big.img\n"
	fedora := "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n# Fedora-Cloud-Base 40 x86_64\n" +
		"SHA256 (Fedora-Cloud-Base-Generic.x86_64-40-1.14.qcow2) = " + b + "\n" +
		"SHA256 (Fedora-Cloud-Base-Generic.x86_64-40-1.14.raw.xz) = " + a + "\n-----BEGIN PGP SIGNATURE-----\nxyz\n"
	for _, tc := range []struct{ file, name, want string }{
		{gnu, "debian-12-generic-amd64.qcow2", "sha256:" + a},
		{gnu, "debian-12-generic-amd64.raw", "sha256:" + b},
		{gnu, "big.img", "sha512:" + long},
		{fedora, "Fedora-Cloud-Base-Generic.x86_64-40-1.14.raw.xz", "sha256:" + a},
	} {
		c, err := ParseChecksumFile(strings.NewReader(tc.file), tc.name)
		if err != nil || c.String() != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.name, c, err, tc.want)
		}
	}
	if _, err := ParseChecksumFile(strings.NewReader(gnu), "other.qcow2"); err == nil || !strings.Contains(err.Error(), `lists 3 files but not "other.qcow2"`) {
		t.Errorf("missing name: %v", err)
	}
	if _, err := ParseChecksumFile(strings.NewReader("<html>not found</html>"), "x"); err == nil || !strings.Contains(err.Error(), "lists no checksums") {
		t.Errorf("not a checksum file: %v", err)
	}
	if got := FileName("https://u:p@host/images/a%20b.qcow2?x=1"); got != "a b.qcow2" {
		t.Errorf("FileName: %q", got)
	}
}

// imageServer serves one file with Range support (http.ServeContent) at
// /img/<name> and its SHA256SUMS at /SHA256SUMS; /drop-once/ and
// /drop-always/ send the first half and then drop the connection (the
// first request only, or every request); /norange/ drops once and ignores
// Range. It counts requests.
type imageServer struct {
	*httptest.Server
	name     string
	data     []byte
	requests atomic.Int32
	drops    atomic.Int32
}

func newImageServer(t *testing.T, name string, data []byte) *imageServer {
	s := &imageServer{name: name, data: data}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *imageServer) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	mode, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if mode == "SHA256SUMS" {
		fmt.Fprintf(w, "%s  other.img\n%s  %s\n", strings.Repeat("0", 64), strings.TrimPrefix(sha256Of(s.data), "sha256:"), s.name)
		return
	}
	drop := false
	switch mode {
	case "drop-once", "norange":
		drop = s.drops.Load() == 0 && r.Header.Get("Range") == ""
	case "drop-always":
		drop = true
	}
	if mode == "norange" {
		r.Header.Del("Range")
	}
	if drop {
		s.drops.Add(1)
		from := 0
		if rg := r.Header.Get("Range"); rg != "" {
			fmt.Sscanf(rg, "bytes=%d-", &from)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(s.data)-1, len(s.data)))
			w.Header().Set("Content-Length", fmt.Sprint(len(s.data)-from))
			w.WriteHeader(http.StatusPartialContent)
		} else {
			w.Header().Set("Content-Length", fmt.Sprint(len(s.data)))
		}
		w.Write(s.data[from : from+(len(s.data)-from)/2])
		w.(http.Flusher).Flush()
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
		return
	}
	w.Header().Set("ETag", `"v1"`)
	http.ServeContent(w, r, s.name, time.Unix(1700000000, 0), bytes.NewReader(s.data))
}

func fastRetries(t *testing.T) {
	old := RetryBackoff
	RetryBackoff = 5 * time.Millisecond
	t.Cleanup(func() { RetryBackoff = old })
}

func readAllWith(t *testing.T, url string, opts FetchOptions) ([]byte, *Source, error) {
	t.Helper()
	s, err := OpenWith(context.Background(), url, opts)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	got, err := io.ReadAll(s.Reader())
	return got, s, err
}

func TestOpenWithChecksum(t *testing.T) {
	data := bytes.Repeat([]byte("image bytes "), 100_000)
	srv := newImageServer(t, "disk.img", data)
	right, _ := ParseChecksum(sha256Of(data))
	wrong, _ := ParseChecksum("sha256:" + strings.Repeat("0", 64))

	got, s, err := readAllWith(t, srv.URL+"/img/disk.img", FetchOptions{Checksum: &right})
	if err != nil || !bytes.Equal(got, data) || s.Digest() == nil || *s.Digest() != right {
		t.Fatalf("right checksum: err %v, %d bytes, digest %v", err, len(got), s.Digest())
	}
	_, s, err = readAllWith(t, srv.URL+"/img/disk.img", FetchOptions{Checksum: &wrong})
	var mismatch *ChecksumMismatchError
	if !errors.As(err, &mismatch) || mismatch.Got != right || mismatch.Bytes != int64(len(data)) || s.Digest() != nil {
		t.Fatalf("wrong checksum: %v", err)
	}
	if !strings.Contains(s.ReadError().Error(), "checksum mismatch") {
		t.Errorf("ReadError: %v", s.ReadError())
	}

	// checksum file from the server, matched by the image's file name
	c, err := ResolveChecksum(context.Background(), srv.URL+"/img/disk.img", "", srv.URL+"/SHA256SUMS", FetchOptions{})
	if err != nil || *c != right {
		t.Fatalf("SHA256SUMS: %v %v", c, err)
	}
	if _, err := ResolveChecksum(context.Background(), srv.URL+"/img/missing.img", "", srv.URL+"/SHA256SUMS", FetchOptions{}); err == nil ||
		!strings.Contains(err.Error(), `not "missing.img"`) {
		t.Errorf("name not listed: %v", err)
	}

	// local files, compressed or not: the digest is of the file's bytes
	dir := t.TempDir()
	p := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, s, err = readAllWith(t, p, FetchOptions{Checksum: &right})
	if err != nil || !bytes.Equal(got, data) || s.Digest() == nil {
		t.Fatalf("local file: %v", err)
	}
	gz := filepath.Join(dir, "disk.img.gz")
	raw := compressWith(t, "gzip", data)
	if err := os.WriteFile(gz, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(raw)
	gzSum, _ := ParseChecksum("sha512:" + hex.EncodeToString(sum[:]))
	got, s, err = readAllWith(t, "file://"+gz, FetchOptions{Checksum: &gzSum})
	if err != nil || !bytes.Equal(got, data) || s.Digest() == nil || s.Digest().Algorithm != "sha512" {
		t.Fatalf("gzip file with the digest of its compressed bytes: %v, %d bytes", err, len(got))
	}
}

func TestOpenHTTPResume(t *testing.T) {
	fastRetries(t)
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i * 7 / 5)
	}
	right, _ := ParseChecksum(sha256Of(data))

	srv := newImageServer(t, "disk.img", data)
	got, s, err := readAllWith(t, srv.URL+"/drop-once/disk.img", FetchOptions{Checksum: &right})
	if err != nil || !bytes.Equal(got, data) || s.Digest() == nil {
		t.Fatalf("dropped once: err %v, %d of %d bytes", err, len(got), len(data))
	}
	if n := srv.requests.Load(); n != 2 {
		t.Errorf("dropped once: %d requests, want 2 (the first and one Range request)", n)
	}

	srv = newImageServer(t, "disk.img", data)
	u := strings.Replace(srv.URL, "http://", "http://user:secret@", 1) + "/drop-always/disk.img"
	_, s, err = readAllWith(t, u, FetchOptions{})
	if err != nil {
		err = s.errorf("upload aborted: %w", s.ReadError()) // as the upload reports it
	}
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "user:xxxxx@") ||
		!strings.Contains(err.Error(), fmt.Sprintf("after %d retries", Retries)) || !strings.Contains(err.Error(), "bytes transferred") {
		t.Fatalf("dropped always: %v", err)
	}
	t.Logf("dropped always: %v", err)
	if n := srv.requests.Load(); n != int32(Retries)+1 {
		t.Errorf("dropped always: %d requests, want %d", n, Retries+1)
	}

	srv = newImageServer(t, "disk.img", data)
	_, _, err = readAllWith(t, srv.URL+"/norange/disk.img", FetchOptions{})
	if err == nil || !strings.Contains(err.Error(), "cannot resume") {
		t.Fatalf("server ignoring Range: %v", err)
	}
}

func TestOpenHTTPRetriesServerErrors(t *testing.T) {
	fastRetries(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("content"))
	}))
	defer srv.Close()
	got, _, err := readAllWith(t, srv.URL+"/x", FetchOptions{})
	if err != nil || string(got) != "content" || calls.Load() != 3 {
		t.Fatalf("err %v, %q after %d requests", err, got, calls.Load())
	}
}

func TestTLSOptions(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secure")) }))
	defer srv.Close()
	fastRetries(t)
	if _, err := Open(context.Background(), srv.URL+"/x"); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("self-signed without options: %v", err)
	}
	if got, _, err := readAllWith(t, srv.URL+"/x", FetchOptions{Insecure: true}); err != nil || string(got) != "secure" {
		t.Fatalf("insecure: %v", err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _, err := readAllWith(t, srv.URL+"/x", FetchOptions{CAFile: ca}); err != nil || string(got) != "secure" {
		t.Fatalf("CA bundle: %v", err)
	}
	if _, err := OpenWith(context.Background(), srv.URL+"/x", FetchOptions{CAFile: filepath.Join(t.TempDir(), "none.pem")}); err == nil ||
		!strings.Contains(err.Error(), "CA bundle") {
		t.Fatalf("missing CA bundle: %v", err)
	}
}

// A consumer that knows the length (the upload) stops after it without
// reading io.EOF: the digest is still checked there.
func TestDigestAtAnnouncedLength(t *testing.T) {
	data := bytes.Repeat([]byte("x"), 1000)
	right, _ := ParseChecksum(sha256Of(data))
	d := newDigestReader(bytes.NewReader(data), right, int64(len(data)))
	if _, err := io.ReadFull(d, make([]byte, len(data))); err != nil || d.got == nil || *d.got != right {
		t.Fatalf("right: err %v, digest %v", err, d.got)
	}
	wrong, _ := ParseChecksum("sha256:" + strings.Repeat("1", 64))
	d = newDigestReader(bytes.NewReader(data), wrong, int64(len(data)))
	var mismatch *ChecksumMismatchError
	// io.ReadFull drops the error that comes with the last bytes; the next
	// read repeats it instead of io.EOF
	_, err := io.ReadFull(d, make([]byte, len(data)))
	if err == nil {
		_, err = d.Read(make([]byte, 1))
	}
	if !errors.As(err, &mismatch) {
		t.Fatalf("wrong: %v", err)
	}
}
