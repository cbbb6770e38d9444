package storage

import (
	"context"
	"sync"
)

// SharedDownloads lets volumes that get the same content on the same host
// share one transfer: the first to ask downloads and uploads it (the
// leader), the others that ask while it does wait for its volume and copy
// it on the host (libvirt's create-from), so the content crosses the network
// once per host. The leader returns only after those copies ended, so that
// nothing (a domain booting from it) writes to its volume while it is read.
// A volume that asks after the leader returned transfers the content again.
var SharedDownloads = &Shares{m: map[string]*share{}}

// Shares is a registry of transfers in progress, keyed by host and content.
type Shares struct {
	mu sync.Mutex
	m  map[string]*share
}

type share struct {
	done   chan struct{} // closed when the leader's volume is ready or it failed
	volume string        // the leader's volume key, "" when it failed
	digest *Checksum     // the checksum verified while uploading, nil when none
	wrote  *VolumeDigest // what the leader's volume held after the upload
	fprint string        // the server's description of the file (Source.Fingerprint)
	copies sync.WaitGroup
}

// Share is one volume's part in a shared transfer.
type Share struct {
	reg    *Shares
	key    string
	s      *share
	leader bool
	ended  bool
}

// Join registers a volume that wants the content named by contentKey on
// the host named by hostKey. The first becomes the leader (Leader is true).
func (r *Shares) Join(hostKey, contentKey string) *Share {
	key := hostKey + "\x00" + contentKey
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.m[key]; ok {
		s.copies.Add(1)
		return &Share{reg: r, key: key, s: s}
	}
	s := &share{done: make(chan struct{})}
	r.m[key] = s
	return &Share{reg: r, key: key, s: s, leader: true}
}

// Leader reports whether this volume transfers the content itself.
func (sh *Share) Leader() bool { return sh.leader }

// Wait, for a follower, waits until the leader's volume is ready and returns
// its key and the digest verified, ok false when the leader failed (or ctx
// ended): then the follower transfers the content itself.
func (sh *Share) Wait(ctx context.Context) (volume string, digest *Checksum, ok bool) {
	if sh.leader {
		return "", nil, false
	}
	select {
	case <-sh.s.done:
		return sh.s.volume, sh.s.digest, sh.s.volume != ""
	case <-ctx.Done():
		return "", nil, false
	}
}

// Written is what the leader's volume held after its upload (see
// Source.Written), for a follower whose Wait succeeded.
func (sh *Share) Written() *VolumeDigest { return sh.s.wrote }

// Fingerprint is the server's description of the leader's file.
func (sh *Share) Fingerprint() string { return sh.s.fprint }

// Publish, for the leader, offers its volume to the waiting followers.
func (sh *Share) Publish(volumeKey string, src *Source) {
	if !sh.leader || sh.ended {
		return
	}
	sh.s.volume, sh.s.digest, sh.s.wrote, sh.s.fprint = volumeKey, src.Digest(), src.Written(), src.Fingerprint
	sh.end()
}

func (sh *Share) end() {
	sh.ended = true
	sh.reg.mu.Lock()
	if sh.reg.m[sh.key] == sh.s {
		delete(sh.reg.m, sh.key) // later volumes start a transfer of their own
	}
	sh.reg.mu.Unlock()
	close(sh.s.done)
}

// Release ends this volume's part: a follower's copy is done; a leader that
// did not publish has failed (its followers transfer the content
// themselves), and a leader that did waits until its followers' copies
// ended.
func (sh *Share) Release() {
	if !sh.leader {
		sh.s.copies.Done()
		return
	}
	if !sh.ended {
		sh.end() // failed: nobody copies from it
		return
	}
	sh.s.copies.Wait()
}
