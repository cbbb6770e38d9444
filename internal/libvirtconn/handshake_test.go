package libvirtconn

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// blackHole accepts connections and never answers: a frozen relay or a hung
// daemon after the TCP connect.
func blackHole(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, never read
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// A peer that accepts and never answers fails the open within the
// handshake timeout, with a message saying so.
func TestHandshakeTimeout(t *testing.T) {
	c, err := New("qemu+tcp://" + blackHole(t) + "/system")
	if err != nil {
		t.Fatal(err)
	}
	c.timing.handshake = 2 * time.Second
	start := time.Now()
	_, err = c.Libvirt(context.Background())
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "did not answer the handshake within 2s") {
		t.Fatalf("want a handshake timeout, got %v", err)
	}
	if took > 5*time.Second {
		t.Errorf("the open took %s with a 2 s handshake timeout", took)
	}
	t.Logf("frozen peer: the open failed after %s", took.Round(10*time.Millisecond))
}

// Cancelling the context (SIGINT in tofu) ends a hanging handshake at once.
func TestHandshakeCancelled(t *testing.T) {
	c, err := New("qemu+tcp://" + blackHole(t) + "/system")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	_, err = c.Libvirt(ctx)
	took := time.Since(start)
	if err == nil || took > 3*time.Second {
		t.Fatalf("cancel after 0.5 s: err %v after %s", err, took)
	}
	t.Logf("cancelled handshake returned after %s: %v", took.Round(10*time.Millisecond), err)
}
