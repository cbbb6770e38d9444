// Package testrelay is a test helper: a TCP relay to a unix socket
// (libvirtd's) that can be frozen, as a SIGSTOPped socat relay or a dead
// network path: bytes stop flowing both ways while the connections stay open.
// Fault tests point a qemu+tcp:// URI at it.
package testrelay

import (
	"net"
	"sync"
	"testing"
)

// Relay forwards every TCP connection it accepts to a unix socket.
type Relay struct {
	ln     net.Listener
	mu     sync.Mutex
	cond   *sync.Cond
	frozen bool
}

// New starts a relay on a loopback port to socket; it stops (thawed) when
// the test ends.
func New(t testing.TB, socket string) *Relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{ln: ln}
	r.cond = sync.NewCond(&r.mu)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", socket)
			if err != nil {
				c.Close()
				continue
			}
			go r.pipe(c, up)
			go r.pipe(up, c)
		}
	}()
	t.Cleanup(func() { r.Set(false); ln.Close() })
	return r
}

// Addr is the relay's host:port.
func (r *Relay) Addr() string { return r.ln.Addr().String() }

// Set freezes (true) or thaws (false) every connection of the relay.
func (r *Relay) Set(frozen bool) {
	r.mu.Lock()
	r.frozen = frozen
	r.cond.Broadcast()
	r.mu.Unlock()
}

func (r *Relay) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		r.mu.Lock()
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
