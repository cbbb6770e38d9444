package libvirtconn

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
)

// freezableRelay forwards TCP connections to libvirtd's local socket and can be
// frozen: bytes stop flowing both ways while the connections stay open, as
// with a SIGSTOPped socat or a dead network path.
type freezableRelay struct {
	ln     net.Listener
	mu     sync.Mutex
	frozen bool
	cond   *sync.Cond
}

func newFreezableRelay(t *testing.T, socket string) *freezableRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &freezableRelay{ln: ln}
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
	t.Cleanup(func() { r.thaw(); ln.Close() })
	return r
}

func (r *freezableRelay) pipe(dst, src net.Conn) {
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
			if err != io.EOF {
				src.Close()
			}
			return
		}
	}
}

func (r *freezableRelay) freeze() { r.mu.Lock(); r.frozen = true; r.mu.Unlock() }
func (r *freezableRelay) thaw()   { r.mu.Lock(); r.frozen = false; r.cond.Broadcast(); r.mu.Unlock() }

// A call on a connection whose path freezes fails within the keepalive's
// window instead of hanging, and so does the re-dial through the frozen
// path (its handshake limit); the time is printed. Production figures:
// keepalive 5 s x 3 (dead after 15-20 s of silence) plus a 10 s re-dial
// handshake.
func TestIntegrationFrozenPathFailsCalls(t *testing.T) {
	integrationURI(t)
	r := newFreezableRelay(t, DefaultSystemSocket)
	c, err := New("qemu+tcp://" + r.ln.Addr().String() + "/system")
	if err != nil {
		t.Fatal(err)
	}
	c.timing.keepaliveInterval, c.timing.keepaliveCount, c.timing.redialHandshake = time.Second, 3, 2*time.Second
	defer c.Close()
	ctx := context.Background()
	if err := c.Do(ctx, func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err }); err != nil {
		t.Fatalf("through the freezableRelay: %v", err)
	}
	// idle for longer than the keepalive window: libvirtd's pongs keep the
	// same connection alive (no re-dial)
	before, err := c.Libvirt(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second)
	after, err := c.Libvirt(ctx)
	if err != nil || after != before || !before.IsConnected() {
		t.Fatalf("an idle, healthy connection was declared dead (re-dialled: %v, err %v)", after != before, err)
	}

	// 12 calls in flight when the path freezes: all fail, sharing one
	// re-dial instead of waiting out one each behind the lock
	r.freeze()
	start := time.Now()
	const calls = 12
	errs := make(chan error, calls)
	for i := 0; i < calls; i++ {
		go func() {
			errs <- c.Do(ctx, func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err })
		}()
	}
	for i := 0; i < calls; i++ {
		if err := <-errs; err == nil {
			t.Fatal("a call through a frozen path succeeded")
		} else if i == 0 {
			t.Logf("first error: %v", err)
		}
	}
	took := time.Since(start)
	t.Logf("frozen path: %d calls in flight all failed within %s", calls, took.Round(100*time.Millisecond))
	if took > 12*time.Second {
		t.Errorf("the calls took %s; want the keepalive window (3-4 s) plus about one re-dial limit (2 s), not one per call", took)
	}

	// thawed, the next call dials again and works
	r.thaw()
	if err := c.Do(ctx, func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err }); err != nil {
		t.Errorf("after the path came back: %v", err)
	}
}
