package libvirtconn

import (
	"context"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"

	"github.com/virtxml/terraform-provider-libvirt/internal/testrelay"
)

// A call on a connection whose path freezes fails within the keepalive's
// window instead of hanging, and so does the re-dial through the frozen
// path (its handshake limit); the time is printed. Production figures:
// keepalive 5 s x 3 (dead after 15-20 s of silence) plus a 5 s re-dial
// handshake.
func TestIntegrationFrozenPathFailsCalls(t *testing.T) {
	integrationURI(t)
	r := testrelay.New(t, DefaultSystemSocket)
	c, err := New("qemu+tcp://" + r.Addr() + "/system")
	if err != nil {
		t.Fatal(err)
	}
	c.timing.keepaliveInterval, c.timing.keepaliveCount, c.timing.redialHandshake = time.Second, 3, 2*time.Second
	c.timing.redialCooldown = time.Second
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
	r.Set(true)
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

	// thawed, the next call after the cooldown dials again and works
	r.Set(false)
	time.Sleep(c.timing.redialCooldown)
	if err := c.Do(ctx, func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err }); err != nil {
		t.Errorf("after the path came back: %v", err)
	}
}

// When the path is killed (a killed relay: connections closed, dials
// refused), the calls in flight fail at once, and so do the calls that
// arrive during the cooldown after the failed re-dial, without dialing a
// dead path again each; after the path is back and the cooldown has passed,
// calls work again. The times are printed.
func TestIntegrationKilledPathFailsFast(t *testing.T) {
	integrationURI(t)
	r := testrelay.New(t, DefaultSystemSocket)
	c, err := New("qemu+tcp://" + r.Addr() + "/system")
	if err != nil {
		t.Fatal(err)
	}
	c.timing.redialCooldown = 3 * time.Second
	defer c.Close()
	ctx := context.Background()
	call := func() error {
		return c.Do(ctx, func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err })
	}
	if err := call(); err != nil {
		t.Fatalf("through the relay: %v", err)
	}
	r.Kill()
	start := time.Now()
	if err := call(); err == nil {
		t.Fatal("a call through a killed path succeeded")
	}
	first := time.Since(start)
	// later callers, each arriving after the re-dial failed
	start = time.Now()
	for i := 0; i < 10; i++ {
		if err := call(); err == nil {
			t.Fatal("a call through a killed path succeeded")
		}
	}
	later := time.Since(start)
	t.Logf("killed path: the first call failed after %s (re-dial refused for up to %s), 10 later calls within %s",
		first.Round(10*time.Millisecond), reconnectWait, later.Round(time.Millisecond))
	if later > time.Second {
		t.Errorf("10 calls during the cooldown took %s; want them to share the failed re-dial", later)
	}
	r.Revive(t)
	time.Sleep(c.timing.redialCooldown)
	if err := call(); err != nil {
		t.Errorf("after the path came back: %v", err)
	}
}
