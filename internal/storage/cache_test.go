package storage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEvictCache removes the cache files used least recently until the
// bound holds, never the file just used, nor partial or foreign files.
func TestEvictCache(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	name := func(c byte) string { return filepath.Join(dir, "sha256-"+strings.Repeat(string(c), 64)) }
	for i, c := range []byte{'a', 'b', 'c'} {
		if err := os.WriteFile(name(c), make([]byte, 10), 0o644); err != nil {
			t.Fatal(err)
		}
		used := base.Add(time.Duration(i) * time.Minute) // a oldest, c newest
		if err := os.Chtimes(name(c), used, used); err != nil {
			t.Fatal(err)
		}
	}
	others := []string{filepath.Join(dir, "sha256-"+strings.Repeat("d", 64)+".123.partial"), filepath.Join(dir, "notes.txt")}
	for _, o := range others {
		if err := os.WriteFile(o, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	if err := EvictCache(dir, 20, name('c')); err != nil {
		t.Fatal(err)
	}
	if exists(name('a')) || !exists(name('b')) || !exists(name('c')) {
		t.Errorf("bound 20 of 30 bytes: want only the least recently used (a) removed; a %v b %v c %v", exists(name('a')), exists(name('b')), exists(name('c')))
	}
	// b is the one just used: c goes, b stays although alone above the bound
	if err := EvictCache(dir, 5, name('b')); err != nil {
		t.Fatal(err)
	}
	if !exists(name('b')) || exists(name('c')) {
		t.Errorf("bound 5, b just used: want b kept and c removed; b %v c %v", exists(name('b')), exists(name('c')))
	}
	for _, o := range others {
		if !exists(o) {
			t.Errorf("%s is not a complete cache file and was removed", filepath.Base(o))
		}
	}
	if err := EvictCache(dir, 0, ""); err != nil || !exists(name('b')) {
		t.Errorf("no bound removed files (%v)", err)
	}
}

// TestCacheBoundThroughOpen fills a cache bounded to two images with three
// through OpenWith: reading one from the cache makes it the most recently
// used, so the third evicts the other one, and the evicted image is read
// from its source again next time.
func TestCacheBoundThroughOpen(t *testing.T) {
	src, cache := t.TempDir(), t.TempDir()
	images := map[string][]byte{}
	sums := map[string]*Checksum{}
	for _, n := range []string{"a", "b", "c"} {
		data := []byte(strings.Repeat(n, 1000))
		images[n] = data
		sum := sha256.Sum256(data)
		sums[n] = &Checksum{Algorithm: "sha256", Hex: hex.EncodeToString(sum[:])}
		if err := os.WriteFile(filepath.Join(src, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(n string) (fromCache bool) {
		t.Helper()
		s, err := OpenWith(context.Background(), filepath.Join(src, n), FetchOptions{Checksum: sums[n], CacheDir: cache, CacheMaxBytes: 2500})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got, err := io.ReadAll(s.Reader())
		if err != nil || string(got) != string(images[n]) {
			t.Fatalf("reading %s: %d bytes, %v", n, len(got), err)
		}
		time.Sleep(20 * time.Millisecond) // distinct modification times
		return s.FromCache != ""
	}
	inCache := func(n string) bool {
		_, err := os.Stat(cachePath(cache, *sums[n]))
		return err == nil
	}
	read("a")
	read("b")
	if !inCache("a") || !inCache("b") {
		t.Fatalf("two images of 1000 bytes under a bound of 2500: both should be cached (a %v, b %v)", inCache("a"), inCache("b"))
	}
	if !read("a") {
		t.Fatal("a was not read from the cache")
	}
	read("c") // a third image: b, used least recently, goes
	if !inCache("a") || inCache("b") || !inCache("c") {
		t.Errorf("after a third image: want a and c cached, b evicted; a %v b %v c %v", inCache("a"), inCache("b"), inCache("c"))
	}
	if read("b") {
		t.Error("the evicted image was read from the cache")
	}
}
