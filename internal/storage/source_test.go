package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func qcow2Head(virtualSize uint64) []byte {
	h := make([]byte, 512)
	copy(h, qcow2Magic)
	binary.BigEndian.PutUint32(h[4:8], 3)
	binary.BigEndian.PutUint64(h[24:32], virtualSize)
	return h
}

func TestParseQcow2Header(t *testing.T) {
	if vs, ok := ParseQcow2Header(qcow2Head(10 << 30)); !ok || vs != 10<<30 {
		t.Fatalf("got %d %v, want %d true", vs, ok, 10<<30)
	}
	bad := qcow2Head(1)
	binary.BigEndian.PutUint32(bad[4:8], 7)
	for name, head := range map[string][]byte{"short": qcow2Magic, "raw": make([]byte, 512), "version 7": bad} {
		if _, ok := ParseQcow2Header(head); ok {
			t.Errorf("%s: recognised as qcow2", name)
		}
	}
}

func TestOpenFileAndURL(t *testing.T) {
	dir := t.TempDir()
	content := append(qcow2Head(1<<30), bytes.Repeat([]byte("x"), 100_000)...)
	p := filepath.Join(dir, "a.qcow2")
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{p, "file://" + p} {
		s, err := Open(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(s.Reader())
		s.Close()
		if err != nil || !bytes.Equal(got, content) || s.Format != "qcow2" || s.VirtualSize != 1<<30 || s.Size != int64(len(content)) || s.Transferred() != int64(len(content)) {
			t.Errorf("%s: err %v, %d bytes (equal %v), format %s, virtual %d, size %d, transferred %d",
				u, err, len(got), bytes.Equal(got, content), s.Format, s.VirtualSize, s.Size, s.Transferred())
		}
	}
	if _, err := Open(context.Background(), "ftp://host/x"); err == nil || !strings.Contains(err.Error(), "unsupported URL scheme") {
		t.Errorf("ftp: %v", err)
	}
}

func TestOpenHTTP(t *testing.T) {
	content := bytes.Repeat([]byte("0123456789"), 50_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/len":
			w.Header().Set("Content-Length", fmt.Sprint(len(content)))
			w.Write(content)
		case "/nolen":
			w.Write(content[:1000])
			w.(http.Flusher).Flush()
			w.Write(content[1000:])
		case "/short":
			w.Header().Set("Content-Length", fmt.Sprint(len(content)))
			w.Write(content[:len(content)/2])
			w.(http.Flusher).Flush()
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		default:
			http.Error(w, "nope", http.StatusForbidden)
		}
	}))
	defer srv.Close()
	for _, path := range []string{"/len", "/nolen"} {
		s, err := Open(context.Background(), srv.URL+path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(s.Reader())
		s.Close()
		if err != nil || !bytes.Equal(got, content) || s.Format != "raw" {
			t.Errorf("%s: err %v, %d bytes, format %s", path, err, len(got), s.Format)
		}
	}
	if _, err := Open(context.Background(), srv.URL+"/forbidden"); err == nil || !strings.Contains(err.Error(), "HTTP status 403") {
		t.Errorf("403: %v", err)
	}
	s, err := Open(context.Background(), srv.URL+"/short")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(s.Reader())
	s.Close()
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("of %d bytes", len(content))) {
		t.Errorf("truncated body: %v", err)
	}
}

func TestOpenHTTPStall(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2000000")
		w.Write(make([]byte, 1000))
		w.(http.Flusher).Flush()
		select { // then nothing until the client gives up
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	old := StallTimeout
	StallTimeout = 200 * time.Millisecond
	defer func() { StallTimeout = old }()
	s, err := Open(context.Background(), srv.URL+"/slow")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	_, err = io.ReadAll(s.Reader())
	if err == nil || !strings.Contains(err.Error(), "no data for 200ms") || time.Since(start) > 5*time.Second {
		t.Fatalf("stalled download: err %v after %s", err, time.Since(start))
	}
}
