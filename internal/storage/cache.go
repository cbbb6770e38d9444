package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Content cache: with FetchOptions.CacheDir and a checksum, content is kept
// on the machine running OpenTofu under its digest ("sha256-<hex>"), so a
// later apply, or another host, reads it from there instead of downloading
// it again. A file enters the cache only once its digest matched: it is
// written beside as ".partial" while the content streams and renamed at the
// end; a failed or mismatching download leaves nothing in the cache. Cache
// write errors (a full disk) only stop the caching, never the upload.

// With FetchOptions.CacheMaxBytes the cache is bounded: whenever content
// enters it or is read from it, the files used least recently are removed
// until the folder's cache files fit. "Used" is the file's modification
// time, which is set at each use: access times are not reliable (relatime,
// noatime mounts). A file being written (".partial") is never removed, nor
// the file just used, even when it alone is larger than the bound: the
// volumes of the same apply and the other hosts still read it.

// cachePath is where content with this digest is kept in dir.
func cachePath(dir string, c Checksum) string {
	return filepath.Join(dir, c.Algorithm+"-"+c.Hex)
}

// cacheWriter copies the content into a partial cache file.
type cacheWriter struct {
	f        *os.File
	path     string // the final name
	err      error
	maxBytes int64 // evict down to this after the commit; 0: unbounded
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
	if err := os.Rename(name, w.path); err != nil {
		return err
	}
	return EvictCache(filepath.Dir(w.path), w.maxBytes, w.path)
}

// touchCached marks a cache file as used now.
func touchCached(file string) error {
	now := time.Now()
	return os.Chtimes(file, now, now)
}

// isCacheFile reports whether name is a complete cache file
// ("<algorithm>-<hex>"), not a partial one or anything else in the folder.
func isCacheFile(name string) bool {
	alg, hex, ok := strings.Cut(name, "-")
	if !ok || strings.Contains(hex, ".") {
		return false
	}
	want, known := hexLen[alg]
	return known && len(hex) == want
}

// EvictCache removes the cache files of dir used least recently until the
// cache files together are at most maxBytes (nothing when maxBytes <= 0),
// never keep (the file just used). It returns the first removal error.
func EvictCache(dir string, maxBytes int64, keep string) error {
	if maxBytes <= 0 || dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	type cached struct {
		path string
		size int64
		used time.Time
	}
	var files []cached
	var total int64
	for _, e := range entries {
		if !e.Type().IsRegular() || !isCacheFile(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		files = append(files, cached{filepath.Join(dir, e.Name()), info.Size(), info.ModTime()})
		total += info.Size()
	}
	sort.Slice(files, func(i, j int) bool { return files[i].used.Before(files[j].used) })
	var first error
	for _, f := range files {
		if total <= maxBytes {
			break
		}
		if f.path == keep {
			continue
		}
		if err := os.Remove(f.path); err != nil && !os.IsNotExist(err) {
			if first == nil {
				first = err
			}
			continue
		}
		total -= f.size
	}
	return first
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
