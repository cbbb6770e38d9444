package libvirtconn

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
)

func TestWrapErrorAndNotFound(t *testing.T) {
	notFound := []libvirt.ErrorNumber{
		libvirt.ErrNoDomain, libvirt.ErrNoNetwork, libvirt.ErrNoStoragePool, libvirt.ErrNoStorageVol,
		libvirt.ErrNoSecret, libvirt.ErrNoDomainSnapshot, libvirt.ErrNoNwfilter,
	}
	for _, code := range notFound {
		raw := libvirt.Error{Code: uint32(code), Message: fmt.Sprintf("no object (code %d)", code)}
		wrapped := WrapError(raw)
		var e *Error
		if !errors.As(wrapped, &e) {
			t.Fatalf("code %d: WrapError did not produce *Error", code)
		}
		if e.Code != code || e.Message != raw.Message || wrapped.Error() != raw.Message {
			t.Errorf("code %d: got %+v", code, e)
		}
		if !errors.Is(wrapped, ErrNotFound) || !IsNotFound(wrapped) || !IsNotFound(raw) {
			t.Errorf("code %d: not matched as not found", code)
		}
		var back libvirt.Error
		if !errors.As(wrapped, &back) || back != raw {
			t.Errorf("code %d: go-libvirt error not reachable through Unwrap", code)
		}
		outer := fmt.Errorf("reading pool: %w", raw)
		wo := WrapError(outer)
		if !errors.Is(wo, ErrNotFound) || wo.Error() != outer.Error() || !errors.As(wo, &e) {
			t.Errorf("code %d: context lost or not matched: %v", code, wo)
		}
	}
	for _, code := range []libvirt.ErrorNumber{libvirt.ErrInternalError, libvirt.ErrOperationInvalid, libvirt.ErrOperationFailed, libvirt.ErrAuthFailed} {
		err := WrapError(libvirt.Error{Code: uint32(code), Message: "x"})
		if IsNotFound(err) || errors.Is(err, ErrNotFound) {
			t.Errorf("code %d wrongly matched as not found", code)
		}
	}
	plain := errors.New("plain")
	if WrapError(plain) != plain || IsNotFound(plain) || WrapError(nil) != nil {
		t.Error("non-libvirt errors must pass unchanged")
	}
	once := WrapError(libvirt.Error{Code: 1, Message: "m"})
	if WrapError(once) != once {
		t.Error("wrapping twice must not nest")
	}
}

func TestLocalDialErrors(t *testing.T) {
	dir := t.TempDir()

	t.Run("missing socket", func(t *testing.T) {
		sock := filepath.Join(dir, "missing.sock")
		err := (&localDialer{socket: sock, timeout: time.Second}).dialErr(t)
		for _, want := range []string{sock, "does not exist", "is libvirtd running?", "systemctl start libvirtd", "libvirtd -d"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q missing in %q", want, err)
			}
		}
		if !errors.Is(err, syscall.ENOENT) {
			t.Errorf("cause lost: %v", err)
		}
	})
	t.Run("socket= path is called out", func(t *testing.T) {
		err := (&localDialer{socket: filepath.Join(dir, "x.sock"), fromURI: true, timeout: time.Second}).dialErr(t)
		if !strings.Contains(err.Error(), "socket= in the URI") {
			t.Errorf("no socket= hint: %v", err)
		}
	})
	t.Run("stale socket", func(t *testing.T) {
		sock := filepath.Join(dir, "stale.sock")
		l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		l.SetUnlinkOnClose(false)
		l.Close()
		err = (&localDialer{socket: sock, timeout: time.Second}).dialErr(t)
		if !strings.Contains(err.Error(), "stale socket") || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("stale socket error wrong: %v", err)
		}
	})
	t.Run("permission denied", func(t *testing.T) {
		// Root bypasses file modes, so feed the errno net.Dial returns.
		cause := &net.OpError{Op: "dial", Net: "unix", Err: os.NewSyscallError("connect", syscall.EACCES)}
		err := localDialError("/var/run/libvirt/libvirt-sock", false, cause)
		for _, want := range []string{"permission denied", `group that owns the socket`, `"libvirt"`, "usermod -aG libvirt", "polkit", "org.libvirt.unix.manage", "qemu:///session"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q missing in %q", want, err)
			}
		}
	})
}

func (d *localDialer) dialErr(t *testing.T) error {
	t.Helper()
	c, err := d.Dial()
	if err == nil {
		c.Close()
		t.Fatalf("dialing %s succeeded", d.socket)
	}
	return err
}

func TestRemoteDialRefused(t *testing.T) {
	// A port nobody listens on: bind, take the port, close.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	ep, err := ParseURI("qemu+tcp://127.0.0.1:" + port + "/system")
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&tcpDialer{ep: ep, timeout: time.Second}).Dial()
	if err == nil || !strings.Contains(err.Error(), "listen_tcp = 1") || !strings.Contains(err.Error(), "--listen") {
		t.Errorf("refused tcp error wrong: %v", err)
	}
}
