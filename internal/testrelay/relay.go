// Package testrelay is a test helper: a TCP relay to a unix socket
// (libvirtd's) that can be frozen, as a SIGSTOPped socat relay or a dead
// network path (bytes stop flowing both ways while the connections stay
// open), or killed, as a killed socat relay (every connection closed and new
// ones refused) and started again on the same address. Fault tests point a
// qemu+tcp:// URI at it.
package testrelay

import (
	"net"
	"sync"
	"testing"
)

// Relay forwards every TCP connection it accepts to a unix socket.
type Relay struct {
	socket string
	addr   string
	mu     sync.Mutex
	cond   *sync.Cond
	frozen bool
	// freezeAfter > 0 freezes the relay once that many more bytes passed
	freezeAfter int64
	relayed     int64 // bytes passed, both ways
	ln          net.Listener
	conns       map[net.Conn]struct{}
}

// New starts a relay on a loopback port to socket; it stops (thawed) when
// the test ends.
func New(t testing.TB, socket string) *Relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{socket: socket, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	r.cond = sync.NewCond(&r.mu)
	r.serve(ln)
	t.Cleanup(func() { r.Set(false); r.Kill() })
	return r
}

func (r *Relay) serve(ln net.Listener) {
	r.mu.Lock()
	r.ln = ln
	r.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", r.socket)
			if err != nil {
				c.Close()
				continue
			}
			r.mu.Lock()
			r.conns[c], r.conns[up] = struct{}{}, struct{}{}
			r.mu.Unlock()
			go r.pipe(c, up)
			go r.pipe(up, c)
		}
	}()
}

// Addr is the relay's host:port.
func (r *Relay) Addr() string { return r.addr }

// Set freezes (true) or thaws (false) every connection of the relay.
func (r *Relay) Set(frozen bool) {
	r.mu.Lock()
	r.frozen, r.freezeAfter = frozen, 0
	r.cond.Broadcast()
	r.mu.Unlock()
}

// FreezeAfter freezes every connection once n more bytes have passed (both
// ways): a path that dies in the middle of a conversation, after the
// handshake.
func (r *Relay) FreezeAfter(n int64) {
	r.mu.Lock()
	r.freezeAfter = n
	r.mu.Unlock()
}

// Relayed is the number of bytes passed so far, both ways.
func (r *Relay) Relayed() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.relayed
}

// Kill closes every connection and stops listening: dials are refused
// until Revive.
func (r *Relay) Kill() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ln != nil {
		r.ln.Close()
		r.ln = nil
	}
	for c := range r.conns {
		c.Close()
		delete(r.conns, c)
	}
}

// Revive listens again on the same address after Kill.
func (r *Relay) Revive(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		t.Fatalf("relay listening again on %s: %v", r.addr, err)
	}
	r.serve(ln)
}

func (r *Relay) pipe(dst, src net.Conn) {
	defer func() {
		dst.Close()
		r.mu.Lock()
		delete(r.conns, dst)
		r.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		r.mu.Lock()
		r.relayed += int64(n)
		if r.freezeAfter > 0 {
			if r.freezeAfter -= int64(n); r.freezeAfter <= 0 {
				r.freezeAfter, r.frozen = 0, true
			}
		}
		for r.frozen {
			r.cond.Wait()
		}
		r.mu.Unlock()
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
