package storage

import (
	"fmt"
	"os"
	"path/filepath"
)

// Content cache: with FetchOptions.CacheDir and a checksum, content is kept
// on the machine running OpenTofu under its digest ("sha256-<hex>"), so a
// later apply, or another host, reads it from there instead of downloading
// it again. A file enters the cache only once its digest matched: it is
// written beside as ".partial" while the content streams and renamed at the
// end; a failed or mismatching download leaves nothing in the cache. Cache
// write errors (a full disk) only stop the caching, never the upload.

// cachePath is where content with this digest is kept in dir.
func cachePath(dir string, c Checksum) string {
	return filepath.Join(dir, c.Algorithm+"-"+c.Hex)
}

// cacheWriter copies the content into a partial cache file.
type cacheWriter struct {
	f    *os.File
	path string // the final name
	err  error
}

func newCacheWriter(dir string, c Checksum) *cacheWriter {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &cacheWriter{err: err}
	}
	f, err := os.CreateTemp(dir, c.Algorithm+"-"+c.Hex+".*.partial")
	return &cacheWriter{f: f, path: cachePath(dir, c), err: err}
}

func (w *cacheWriter) Write(p []byte) (int, error) {
	if w.err == nil {
		_, w.err = w.f.Write(p)
	}
	return len(p), nil // never fails the download
}

// commit moves the complete, verified file into the cache.
func (w *cacheWriter) commit() error {
	if w.f == nil {
		return w.err
	}
	name := w.f.Name()
	cerr := w.f.Close()
	w.f = nil
	if w.err == nil {
		w.err = cerr
	}
	if w.err != nil {
		os.Remove(name)
		return fmt.Errorf("caching the content: %w", w.err)
	}
	return os.Rename(name, w.path)
}

// discard removes a partial file that never completed.
func (w *cacheWriter) discard() {
	if w.f != nil {
		name := w.f.Name()
		w.f.Close()
		w.f = nil
		os.Remove(name)
	}
}
