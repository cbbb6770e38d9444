package libvirtconn

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"github.com/digitalocean/go-libvirt/libvirttest"
	"github.com/digitalocean/go-libvirt/socket"
)

// mockClient is a Client whose connection is go-libvirt's in-process mock
// daemon: Do runs for real without a libvirtd.
func mockClient(t *testing.T) *Client {
	t.Helper()
	c, err := New("qemu:///system")
	if err != nil {
		t.Fatal(err)
	}
	c.dial = func() socket.Dialer { return libvirttest.New() }
	return c
}

// When the operation already reports the context's end (it waited on ctx
// itself), Do says so once: "context canceled (context canceled)" was the
// text users read after Ctrl-C.
func TestDoCancelledSaysItOnce(t *testing.T) {
	c := mockClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	err := c.Do(ctx, func(*libvirt.Libvirt) error {
		cancel()
		return fmt.Errorf("waiting for the guest agent: %w", ctx.Err())
	})
	if err == nil {
		t.Fatal("Do returned no error for a cancelled operation")
	}
	if n := strings.Count(err.Error(), context.Canceled.Error()); n != 1 {
		t.Fatalf("the error names the cancellation %d times, want once: %q", n, err)
	}
	if want := "waiting for the guest agent: context canceled"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// When the operation failed for another reason while the context ended
// (the closed connection broke a call), Do adds the context's end, which is
// the cause the user must read.
func TestDoCancelledNamesTheCause(t *testing.T) {
	c := mockClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	err := c.Do(ctx, func(*libvirt.Libvirt) error {
		cancel()
		return fmt.Errorf("use of closed network connection")
	})
	if err == nil || err.Error() != "use of closed network connection (context canceled)" {
		t.Fatalf("error %v, want the call's error followed by (context canceled)", err)
	}
}
