package libvirtconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
)

// Integration tests talk to the real local libvirtd. They run when
// LIBVIRT_TEST_URI is set or TF_ACC=1 and then fail (never skip) when
// libvirtd is unreachable. The restart tests kill and restart libvirtd;
// set LIBVIRT_TEST_NO_RESTART=1 to leave it alone (e.g. while other
// packages' acceptance tests use the same daemon).

const libvirtdPidFile = "/var/run/libvirtd.pid"

// integrationURI returns the URI under test, or skips when the gate is off.
func integrationURI(t *testing.T) string {
	t.Helper()
	uri := os.Getenv("LIBVIRT_TEST_URI")
	if uri == "" && os.Getenv("TF_ACC") != "1" {
		t.Skip("integration test: set LIBVIRT_TEST_URI=qemu:///system or TF_ACC=1 to run against the local libvirtd")
	}
	if uri == "" {
		uri = "qemu:///system"
	}
	return uri
}

func newIntegrationClient(t *testing.T, uri string) *Client {
	t.Helper()
	c, err := New(uri)
	if err != nil {
		t.Fatalf("New(%q): %v", uri, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestIntegrationLocalSystem(t *testing.T) {
	uri := integrationURI(t)
	c := newIntegrationClient(t, uri)
	ctx := context.Background()

	var version uint64
	var gotURI string
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		if version, err = l.ConnectGetLibVersion(); err != nil {
			return err
		}
		gotURI, err = l.ConnectGetUri()
		return err
	})
	if err != nil {
		t.Fatalf("libvirtd at %s unreachable: %v", uri, err)
	}
	ep := c.Endpoint()
	if gotURI != ep.Name {
		t.Errorf("daemon opened %q, want %q", gotURI, ep.Name)
	}
	// Cross-check with the C client: virsh reports the same library version.
	out, err := exec.Command("virsh", "-c", "qemu:///system", "version", "--daemon").CombinedOutput()
	if err == nil {
		major, minor, micro := version/1000000, version/1000%1000, version%1000
		if want := fmt.Sprintf("libvirt %d.%d.%d", major, minor, micro); !strings.Contains(string(out), want) {
			t.Errorf("ConnectGetLibVersion %d (%s) not found in virsh version output:\n%s", version, want, out)
		}
	}
	t.Logf("connected to %s (daemon name %s), libvirt %d", uri, gotURI, version)
}

func TestIntegrationTestDriverThroughDaemon(t *testing.T) {
	integrationURI(t)
	c := newIntegrationClient(t, "test:///default")
	var names []string
	var gotURI string
	err := c.Do(context.Background(), func(l *libvirt.Libvirt) error {
		doms, _, err := l.ConnectListAllDomains(1, 0)
		if err != nil {
			return err
		}
		for _, d := range doms {
			names = append(names, d.Name)
		}
		gotURI, err = l.ConnectGetUri()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if gotURI != "test:///default" {
		t.Errorf("daemon opened %q", gotURI)
	}
	// The test driver's default configuration has a domain named "test"
	// (other tests may add their own to the daemon's shared test driver).
	found := false
	for _, n := range names {
		found = found || n == "test"
	}
	if !found {
		t.Errorf("domains = %v, want the test driver's default domain \"test\" among them", names)
	}
}

func TestIntegrationNotFound(t *testing.T) {
	uri := integrationURI(t)
	c := newIntegrationClient(t, uri)
	ctx := context.Background()
	lookups := map[string]func(*libvirt.Libvirt) error{
		"domain":  func(l *libvirt.Libvirt) error { _, err := l.DomainLookupByName("tfplv-no-such-domain"); return err },
		"network": func(l *libvirt.Libvirt) error { _, err := l.NetworkLookupByName("tfplv-no-such-net"); return err },
		"pool":    func(l *libvirt.Libvirt) error { _, err := l.StoragePoolLookupByName("tfplv-no-such-pool"); return err },
		"secret": func(l *libvirt.Libvirt) error {
			_, err := l.SecretLookupByUUID(libvirt.UUID{1, 2, 3})
			return err
		},
	}
	for what, op := range lookups {
		err := c.Do(ctx, op)
		if err == nil {
			t.Errorf("%s lookup succeeded", what)
			continue
		}
		var e *Error
		if !errors.As(err, &e) || !IsNotFound(err) || !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: %v (%T) not recognised as *Error/not found", what, err, err)
		}
	}
	// A different libvirt error is typed but not "not found".
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		_, err := l.DomainDefineXML("<domain/>")
		return err
	})
	var e *Error
	if !errors.As(err, &e) || IsNotFound(err) || e.Code == 0 {
		t.Errorf("invalid XML: want typed non-not-found error, got %v", err)
	}
}

func TestIntegrationConcurrentSharedClient(t *testing.T) {
	uri := integrationURI(t)
	c := newIntegrationClient(t, uri)
	ctx := context.Background()
	const workers = 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	conns := make(chan *libvirt.Libvirt, workers)
	start := time.Now()
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- c.Do(ctx, func(l *libvirt.Libvirt) error {
				conns <- l
				if _, err := l.ConnectGetLibVersion(); err != nil {
					return err
				}
				_, _, err := l.ConnectListAllDomains(1, 0)
				if err != nil {
					return err
				}
				_, err = l.ConnectGetHostname()
				return err
			})
		}()
	}
	wg.Wait()
	close(errs)
	close(conns)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	distinct := map[*libvirt.Libvirt]bool{}
	for l := range conns {
		distinct[l] = true
	}
	if len(distinct) != 1 {
		t.Errorf("%d goroutines used %d connections, want 1 shared", workers, len(distinct))
	}
	t.Logf("%d goroutines x 3 calls on one connection: %v", workers, time.Since(start))
}

// ---- libvirtd restart / stop ----

func restartAllowed(t *testing.T) {
	t.Helper()
	if os.Getenv("LIBVIRT_TEST_NO_RESTART") == "1" {
		t.Skip("LIBVIRT_TEST_NO_RESTART=1: not touching libvirtd")
	}
	if os.Geteuid() != 0 {
		t.Fatal("restarting libvirtd needs root (or set LIBVIRT_TEST_NO_RESTART=1)")
	}
}

func libvirtdPid(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(libvirtdPidFile)
	if err != nil {
		t.Fatalf("reading %s: %v", libvirtdPidFile, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("bad pid file %s: %v", libvirtdPidFile, err)
	}
	return pid
}

// stopLibvirtd stops the daemon by the pid it wrote and waits for its exit.
func stopLibvirtd(t *testing.T) {
	t.Helper()
	pid := libvirtdPid(t)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatalf("kill libvirtd %d: %v", pid, err)
	}
	// libvirtd finishes running jobs of other clients before it exits.
	deadline := time.Now().Add(90 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("libvirtd %d did not exit", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startLibvirtd runs "libvirtd -d" and waits until it answers on its socket.
func startLibvirtd(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("libvirtd", "-d").CombinedOutput(); err != nil {
		t.Fatalf("libvirtd -d: %v\n%s", err, out)
	}
	waitLibvirtd(t)
}

func waitLibvirtd(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("unix", DefaultSystemSocket, time.Second)
		if err == nil {
			c.Close()
			cl, _ := New("qemu:///system")
			err = cl.Do(context.Background(), func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err })
			cl.Close()
			if err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("libvirtd did not come up: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ensureLibvirtd restarts libvirtd after a test that stopped it, even when
// the test failed half-way.
func ensureLibvirtd(t *testing.T) {
	t.Cleanup(func() {
		c, err := net.DialTimeout("unix", DefaultSystemSocket, time.Second)
		if err == nil {
			c.Close()
			return
		}
		startLibvirtd(t)
	})
}

func TestIntegrationLibvirtdRestartBetweenOperations(t *testing.T) {
	uri := integrationURI(t)
	restartAllowed(t)
	ep, err := ParseURI(uri)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Transport != TransportUnix || ep.Socket != DefaultSystemSocket {
		t.Skipf("restart test needs the local system daemon, %s is not it", uri)
	}
	ensureLibvirtd(t)
	c := newIntegrationClient(t, uri)
	ctx := context.Background()

	var first, second *libvirt.Libvirt
	op := func(dst **libvirt.Libvirt) func(*libvirt.Libvirt) error {
		return func(l *libvirt.Libvirt) error {
			*dst = l
			_, err := l.ConnectGetLibVersion()
			return err
		}
	}
	if err := c.Do(ctx, op(&first)); err != nil {
		t.Fatal(err)
	}
	oldPid := libvirtdPid(t)
	stopLibvirtd(t)
	startLibvirtd(t)
	if newPid := libvirtdPid(t); newPid == oldPid {
		t.Fatalf("libvirtd pid unchanged (%d): not restarted", newPid)
	}
	start := time.Now()
	if err := c.Do(ctx, op(&second)); err != nil {
		t.Fatalf("Do after libvirtd restart: %v", err)
	}
	if second == first {
		t.Error("Do reused the dead connection object")
	}
	if first.IsConnected() {
		t.Error("old connection still reports connected")
	}
	t.Logf("reconnected after restart in %v", time.Since(start))

	// Restart again and call Do without waiting: the re-dial waits for the
	// daemon socket to come back.
	stopLibvirtd(t)
	if out, err := exec.Command("libvirtd", "-d").CombinedOutput(); err != nil {
		t.Fatalf("libvirtd -d: %v\n%s", err, out)
	}
	var third *libvirt.Libvirt
	start = time.Now()
	if err := c.Do(ctx, op(&third)); err != nil {
		t.Fatalf("Do right after libvirtd -d: %v", err)
	}
	if third == second {
		t.Error("Do reused the dead connection object (second restart)")
	}
	t.Logf("reconnected while libvirtd was starting in %v", time.Since(start))

	// Do is called while libvirtd is down and comes back a second later:
	// the re-dial of a broken connection waits for it.
	stopLibvirtd(t)
	started := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		out, err := exec.Command("libvirtd", "-d").CombinedOutput()
		if err != nil {
			err = fmt.Errorf("libvirtd -d: %v: %s", err, out)
		}
		started <- err
	}()
	var fourth *libvirt.Libvirt
	start = time.Now()
	err = c.Do(ctx, op(&fourth))
	if serr := <-started; serr != nil {
		t.Fatal(serr)
	}
	if err != nil {
		t.Fatalf("Do while libvirtd was down for 1s: %v", err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("Do returned after %v, before libvirtd was started", waited)
	}
	t.Logf("Do waited %v for libvirtd to come back", time.Since(start))

	// The daemon restarts while an operation holds the connection: the
	// call fails on the dead transport and Do retries it once on a new one.
	calls := 0
	var inOp []*libvirt.Libvirt
	err = c.Do(ctx, func(l *libvirt.Libvirt) error {
		calls++
		inOp = append(inOp, l)
		if calls == 1 {
			stopLibvirtd(t)
			startLibvirtd(t)
		}
		_, err := l.ConnectGetLibVersion()
		return err
	})
	if err != nil {
		t.Fatalf("Do with libvirtd restarted mid-operation: %v", err)
	}
	if calls != 2 || inOp[0] == inOp[1] {
		t.Errorf("op ran %d times, want 2 on two different connections", calls)
	}
}

// Goroutines keep calling Do while libvirtd restarts: none of the calls may
// fail, and afterwards all share one new connection.
func TestIntegrationConcurrentDuringRestart(t *testing.T) {
	uri := integrationURI(t)
	restartAllowed(t)
	if ep, err := ParseURI(uri); err != nil || ep.Transport != TransportUnix || ep.Socket != DefaultSystemSocket {
		t.Skipf("needs the local system daemon, %s is not it", uri)
	}
	ensureLibvirtd(t)
	c := newIntegrationClient(t, uri)
	ctx := context.Background()
	var before *libvirt.Libvirt
	if err := c.Do(ctx, func(l *libvirt.Libvirt) error { before = l; _, err := l.ConnectGetLibVersion(); return err }); err != nil {
		t.Fatal(err)
	}

	const workers = 20
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var calls int
	var failures []error
	after := map[*libvirt.Libvirt]bool{}
	restarted := make(chan struct{})
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := c.Do(ctx, func(l *libvirt.Libvirt) error {
					_, _, err := l.ConnectListAllDomains(1, 0)
					if err == nil {
						select {
						case <-restarted:
							mu.Lock()
							after[l] = true
							mu.Unlock()
						default:
						}
					}
					return err
				})
				mu.Lock()
				calls++
				if err != nil {
					failures = append(failures, err)
				}
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	stopLibvirtd(t)
	startLibvirtd(t)
	close(restarted)
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()

	if len(failures) > 0 {
		t.Errorf("%d of %d calls failed across the restart; first: %v", len(failures), calls, failures[0])
	}
	if len(after) != 1 || after[before] {
		t.Errorf("after the restart the workers used %d connection(s) (old one reused: %v), want exactly 1 new", len(after), after[before])
	}
	t.Logf("%d workers, %d calls across a libvirtd restart, %d failed", workers, calls, len(failures))
}

func TestIntegrationLibvirtdStoppedError(t *testing.T) {
	uri := integrationURI(t)
	restartAllowed(t)
	if ep, err := ParseURI(uri); err != nil || ep.Transport != TransportUnix || ep.Socket != DefaultSystemSocket {
		t.Skipf("needs the local system daemon, %s is not it", uri)
	}
	ensureLibvirtd(t)
	stopLibvirtd(t)
	c := newIntegrationClient(t, uri)
	start := time.Now()
	err := c.Do(context.Background(), func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err })
	if err == nil {
		t.Fatal("Do succeeded with libvirtd stopped")
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("first connect with libvirtd stopped took %v; it must fail fast", time.Since(start))
	}
	for _, want := range []string{DefaultSystemSocket, "libvirtd -d", "systemctl start libvirtd"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q missing in %q", want, err)
		}
	}
	t.Logf("error with libvirtd stopped: %v", err)
	startLibvirtd(t)
	// The same client recovers once the daemon is back.
	if err := c.Do(context.Background(), func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err }); err != nil {
		t.Errorf("Do after libvirtd came back: %v", err)
	}
}

func TestIntegrationTCPListener(t *testing.T) {
	integrationURI(t)
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+DefaultTCPPort, time.Second)
	if err != nil {
		t.Skipf("libvirtd does not listen on tcp 127.0.0.1:%s (the default: listen_tcp=0, no --listen); "+
			"qemu+tcp is covered against a TCP relay in TestIntegrationTCPRelay: %v", DefaultTCPPort, err)
	}
	conn.Close()
	c := newIntegrationClient(t, "qemu+tcp://127.0.0.1/system")
	if err := c.Do(context.Background(), func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err }); err != nil {
		t.Fatal(err)
	}
}
