package libvirtconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/digitalocean/go-libvirt/socket"
)

// Timeouts of the connection machinery.
const (
	// dialTimeout bounds one dial (TCP connect, SSH/TLS handshake).
	dialTimeout = 20 * time.Second
	// reconnectWait is how long a broken connection's re-dial keeps trying
	// while the daemon socket is missing or refusing (libvirtd restarting).
	reconnectWait = 15 * time.Second
	// breakDetectWait is how long Do waits for go-libvirt to notice that
	// a transport error closed the connection.
	breakDetectWait = 2 * time.Second
)

// LocalHost is what Host returns for local-socket URIs: QEMU's default
// vnc_listen/spice_listen address, so console URLs work without name
// resolution (and without "localhost" resolving to ::1).
const LocalHost = "127.0.0.1"

// Client is the shared, lazily opened connection of one configured provider.
// It is safe for concurrent use by all resources.
type Client struct {
	ep *Endpoint

	mu   sync.Mutex
	virt *libvirt.Libvirt
	// redialErr is the failure of the last re-dial and redialAt its time:
	// calls that queued behind it share the result instead of each waiting
	// out its own (one redial for all waiting operations)
	redialErr error
	redialAt  time.Time

	timing timing

	// dial is replaceable in tests.
	dial func() socket.Dialer

	// transports maps each open connection to its transport, so that a
	// cancelled operation can close it (AbortOnDone)
	transports sync.Map // *libvirt.Libvirt -> net.Conn

	// attached is the state other packages keep per connection (Attached)
	attachedOnce sync.Once
	attached     any
}

// Attached returns the state another package keeps for this connection
// (libvirtops' host object: caches and locks), made by make on first use.
// It lives and ends with the client, so no process-wide map keyed by
// client outlives a provider instance. All callers pass the same make.
func (c *Client) Attached(make func() any) any {
	c.attachedOnce.Do(func() { c.attached = make() })
	return c.attached
}

// Warning is a condition the user should see on every run (for example host
// key checking turned off).
type Warning struct {
	Summary string
	Detail  string
}

// New validates uri and returns a Client for it; nothing is dialed until first use.
func New(uri string) (*Client, error) {
	ep, err := ParseURI(uri)
	if err != nil {
		return nil, err
	}
	c := &Client{ep: ep, timing: defaultTiming}
	c.dial = c.dialer
	return c, nil
}

// Endpoint is the parsed URI.
func (c *Client) Endpoint() Endpoint { return *c.ep }

// Warnings lists the conditions of this URI the user must be told about.
func (c *Client) Warnings() []Warning {
	var w []Warning
	if c.ep.NoVerify {
		switch c.ep.Transport {
		case TransportSSH:
			w = append(w, Warning{
				Summary: "SSH host key checking is OFF (no_verify=1)",
				Detail: fmt.Sprintf("The libvirt URI %s disables SSH host key verification: anyone able to intercept the connection to %s can impersonate the host and take over the hypervisor. "+
					"Trust the host key instead (ssh-keyscan -p %s %s >> %s) and remove no_verify.", c.ep.Raw, c.ep.Hostname, c.ep.Port, c.ep.Hostname, c.ep.KnownHosts),
			})
		case TransportTLS:
			w = append(w, Warning{
				Summary: "TLS server certificate checking is OFF (no_verify=1)",
				Detail:  fmt.Sprintf("The libvirt URI %s does not verify libvirtd's certificate on %s: the connection can be intercepted. Remove no_verify once the server certificate is signed by the CA in cacert.pem.", c.ep.Raw, c.ep.Hostname),
			})
		}
	}
	if c.ep.Transport == TransportTCP {
		w = append(w, Warning{
			Summary: "libvirt connection is unencrypted (tcp transport)",
			Detail:  fmt.Sprintf("The libvirt URI %s sends everything, including secrets, in clear text to %s. Use %s+tls:// or %s+ssh:// outside of trusted networks.", c.ep.Raw, c.ep.Hostname, c.ep.Driver, c.ep.Driver),
		})
	}
	return w
}

// URI is the libvirt URI the client connects to.
func (c *Client) URI() string { return c.ep.Raw }

// Host is the host name of the connection, for console URLs such as
// vnc://HOST:5900: the URI's host for remote transports, LocalHost
// ("127.0.0.1") for local sockets.
func (c *Client) Host() string {
	if c.ep.Transport == TransportUnix {
		return LocalHost
	}
	return c.ep.Hostname
}

func (c *Client) dialer() socket.Dialer {
	switch c.ep.Transport {
	case TransportSSH:
		return &sshDialer{ep: c.ep, timeout: dialTimeout}
	case TransportTCP:
		return &tcpDialer{ep: c.ep, timeout: dialTimeout}
	case TransportTLS:
		return &tlsDialer{ep: c.ep, timeout: dialTimeout}
	}
	return &localDialer{socket: c.ep.Socket, fromURI: c.ep.SocketFromURI, timeout: dialTimeout}
}

// Libvirt returns the open connection, dialing it on first use and again when
// the previous one broke.
func (c *Client) Libvirt(ctx context.Context) (*libvirt.Libvirt, error) {
	arrived := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.virt != nil && c.virt.IsConnected() {
		return c.virt, nil
	}
	// A connection that broke is re-dialled patiently (libvirtd may be
	// restarting); the very first dial fails fast with its diagnosis.
	return c.connectLocked(ctx, c.virt != nil, arrived)
}

// connectLocked dials a new connection; with wait it keeps retrying while
// the daemon is (re)starting. c.mu must be held.
//
// A caller that queued (arrived) before a re-dial failed gets that failure
// instead of dialing again: one re-dial serves every operation that was
// waiting for the connection. Later callers dial afresh.
func (c *Client) connectLocked(ctx context.Context, wait bool, arrived time.Time) (*libvirt.Libvirt, error) {
	if err := c.recentRedialFailure(wait, arrived); err != nil {
		return nil, err
	}
	l, err := c.dialLocked(ctx, wait)
	if ctx.Err() == nil {
		// (a failure of this caller's own cancellation is not shared)
		c.redialErr, c.redialAt = err, time.Now()
	}
	return l, err
}

func (c *Client) dialLocked(ctx context.Context, wait bool) (*libvirt.Libvirt, error) {
	l, err := c.dialRetry(ctx, wait)
	if err == nil {
		c.virt = l
	}
	return l, err
}

// recentRedialFailure is the error of a dial that failed after the caller
// arrived (it queued behind that dial: the first dial of a plan's parallel
// calls, or a re-dial), or of a re-dial that failed less than
// timing.redialCooldown ago: the caller shares it instead of dialing again.
// Without it, the operations tofu runs side by side, or starts one after
// another as earlier ones fail, would each wait out a dead path again.
// c.mu must be held.
func (c *Client) recentRedialFailure(wait bool, arrived time.Time) error {
	if c.redialErr == nil {
		return nil
	}
	if c.redialAt.After(arrived) || (wait && time.Since(c.redialAt) < c.timing.redialCooldown) {
		return c.redialErr
	}
	return nil
}

// Dedicated opens a connection of its own for one long operation (a volume
// upload stream), waiting out a daemon that is restarting like a re-dial
// does. Its stream then neither queues the shared connection's calls behind
// its packets nor counts against libvirtd's per-client request limit, and a
// break ends that one operation. The caller must Disconnect it; Do never
// re-runs anything on it.
func (c *Client) Dedicated(ctx context.Context) (*libvirt.Libvirt, error) {
	c.mu.Lock()
	err := c.recentRedialFailure(c.virt != nil, time.Now())
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return c.dialRetry(ctx, true)
}

// dialRetry dials a connection; with wait it keeps retrying for
// reconnectWait while the daemon is (re)starting.
func (c *Client) dialRetry(ctx context.Context, wait bool) (*libvirt.Libvirt, error) {
	deadline := time.Now().Add(reconnectWait)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("connecting to libvirt at %s: %w", c.ep.Raw, err)
		}
		limit := c.timing.handshake
		if wait {
			limit = c.timing.redialHandshake
		}
		l, err := c.open(ctx, limit)
		if err == nil {
			return l, nil
		}
		if !wait || !daemonStarting(err) || time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, withContextEnd(err, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// recordingDialer remembers the dialer's error so that it can be told from
// errors of the RPC handshake that follows.
type recordingDialer struct {
	socket.Dialer
	mu   sync.Mutex // conn is also closed from the handshake watchdog
	conn net.Conn   // what go-libvirt uses (with keepalive)
	raw  net.Conn   // the dialer's connection, for diagnosis
	err  error

	timing timing
}

// currentConn is the dialled connection (nil before the dial).
func (r *recordingDialer) currentConn() net.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conn
}

// closeConn closes the dialled connection, if any.
func (r *recordingDialer) closeConn() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn != nil {
		r.conn.Close()
	}
}

func (r *recordingDialer) Dial() (net.Conn, error) {
	conn, err := r.Dialer.Dial()
	r.mu.Lock()
	r.conn, r.raw, r.err = conn, conn, err
	r.mu.Unlock()
	if err != nil {
		return conn, err
	}
	ka := withKeepalive(maybeCount(conn), r.timing.keepaliveInterval, r.timing.keepaliveCount)
	r.mu.Lock()
	r.conn = ka
	r.mu.Unlock()
	return ka, nil
}

// timing holds the connection's deadlines (defaultTiming; tests shorten them).
type timing struct {
	// handshake bounds the RPC handshake after the dial (ConnectOpen and the
	// calls before it): a peer that accepts the connection and then never
	// answers (a frozen relay, a hung daemon) fails the open instead of
	// hanging the plan.
	handshake time.Duration
	// redialHandshake bounds the handshake of a re-dial after a connection
	// broke: the path already failed once, and the waiting calls should fail
	// within seconds rather than wait a full first-dial timeout.
	redialHandshake time.Duration
	// redialCooldown: after a re-dial failed, callers share its error for
	// this long instead of dialing again (see recentRedialFailure).
	redialCooldown time.Duration
	// keepaliveInterval and keepaliveCount: see keepalive.go.
	keepaliveInterval time.Duration
	keepaliveCount    int
}

var defaultTiming = timing{
	handshake:         20 * time.Second,
	redialHandshake:   5 * time.Second,
	redialCooldown:    15 * time.Second,
	keepaliveInterval: 5 * time.Second,
	keepaliveCount:    3,
}

func (c *Client) open(ctx context.Context, limit time.Duration) (*libvirt.Libvirt, error) {
	d := &recordingDialer{Dialer: c.dial(), timing: c.timing}
	l := libvirt.NewWithDialer(d)
	// closing the transport unblocks the handshake: on timeout or cancellation
	var timedOut atomic.Bool
	watchdog := time.AfterFunc(limit, func() {
		timedOut.Store(true)
		d.closeConn()
	})
	stopCancel := context.AfterFunc(ctx, d.closeConn)
	err := l.ConnectToURI(libvirt.ConnectURI(c.ep.Name))
	watchdog.Stop()
	stopCancel()
	if ka, ok := d.currentConn().(*keepaliveConn); ok && err != nil && ka.PeerDead() {
		timedOut.Store(true)
		limit = time.Duration(ka.count) * ka.interval
	}
	if err != nil && timedOut.Load() {
		return nil, fmt.Errorf("connecting to libvirt at %s: the connection opened but libvirtd did not answer the handshake within %s (a stalled network path or a hung daemon)", c.ep.Raw, limit)
	}
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("connecting to libvirt at %s: %w", c.ep.Raw, ctx.Err())
	}
	if err == nil {
		// go-libvirt does not close the transport when the peer went away
		// (EOF); closing it ends the SSH client behind it too.
		c.transports.Store(l, d.conn)
		go func() {
			<-l.Disconnected()
			d.conn.Close()
			c.transports.Delete(l)
		}()
		return l, nil
	}
	if d.conn != nil {
		defer d.conn.Close()
	}
	if d.err != nil {
		return nil, fmt.Errorf("connecting to libvirt at %s: %w", c.ep.Raw, d.err)
	}
	var le libvirt.Error
	if cc, ok := d.raw.(*sshCommandConn); ok && !errors.As(err, &le) {
		return nil, fmt.Errorf("connecting to libvirt at %s: %s: %w", c.ep.Raw, cc.diagnose(), openError(c.ep.Name, err))
	}
	return nil, fmt.Errorf("connecting to libvirt at %s: %w", c.ep.Raw, openError(c.ep.Name, err))
}

// Do runs op on the connection. When op fails because the connection broke
// (libvirtd restarted, SSH dropped), it reconnects once and runs op again;
// errors libvirtd itself returned are never retried. The error is wrapped
// into *Error when it came from libvirtd.
//
// op may therefore run twice when the connection broke during it: the
// first run's effect (e.g. a define that reached libvirtd just before it
// died) may exist, so ops that create objects should tolerate finding them.
//
// When ctx ends while op waits (SIGINT: tofu stops the provider, which
// cancels every request; or a resource timeout), the connection is closed so
// that op returns at once instead of waiting for a peer that may never
// answer, and op is not run again.
func (c *Client) Do(ctx context.Context, op func(*libvirt.Libvirt) error) error {
	l, err := c.Libvirt(ctx)
	if err != nil {
		return err
	}
	stop := c.AbortOnDone(ctx, l)
	err = op(l)
	stop()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return withContextEnd(WrapError(err), ctx.Err())
	}
	if !connectionBroke(l, err) {
		return WrapError(err)
	}
	l2, rerr := c.reconnect(ctx, l)
	if rerr != nil {
		return fmt.Errorf("the connection to libvirtd broke (%v) and reconnecting failed: %w", err, rerr)
	}
	return WrapError(op(l2))
}

// withContextEnd adds the context's end (cancelled, deadline) to err, the
// cause the user must read when a closed connection broke the call, unless
// err already says it (an operation that waited on the context itself):
// "context canceled (context canceled)" says nothing twice.
func withContextEnd(err, ended error) error {
	if errors.Is(err, ended) || strings.Contains(err.Error(), ended.Error()) {
		return err
	}
	return fmt.Errorf("%w (%v)", err, ended)
}

// reconnect replaces broken (unless another goroutine already did).
func (c *Client) reconnect(ctx context.Context, broken *libvirt.Libvirt) (*libvirt.Libvirt, error) {
	arrived := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.virt != nil && c.virt != broken && c.virt.IsConnected() {
		return c.virt, nil
	}
	if broken.IsConnected() {
		// The transport failed but go-libvirt has not closed it yet.
		_ = broken.Disconnect()
	}
	return c.connectLocked(ctx, true, arrived)
}

// Close ends the connection (a later call dials again).
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.virt == nil || !c.virt.IsConnected() {
		return nil
	}
	err := c.virt.Disconnect()
	c.virt = nil
	return err
}

// connectionBroke reports whether err means the transport went away rather
// than libvirtd answering with an error.
func connectionBroke(l *libvirt.Libvirt, err error) bool {
	var le libvirt.Error
	if errors.As(err, &le) {
		return false
	}
	if !l.IsConnected() || errors.Is(err, syscall.EINVAL) {
		// go-libvirt returns EINVAL for calls on a closed socket.
		return true
	}
	if !transportError(err) {
		return false
	}
	select {
	case <-l.Disconnected():
		return true
	case <-time.After(breakDetectWait):
		return false
	}
}

func transportError(err error) bool {
	return errors.Is(err, libvirt.ErrInterrupted) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed)
}

// daemonStarting reports whether a dial error means "nobody is listening
// yet", worth retrying while libvirtd restarts.
func daemonStarting(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// AbortOnDone closes l's transport when ctx ends before the returned stop
// is called: calls blocked on l (a stream on a frozen path) then fail at
// once. Other operations on l fail with a transport error and re-dial.
func (c *Client) AbortOnDone(ctx context.Context, l *libvirt.Libvirt) (stop func()) {
	cancel := context.AfterFunc(ctx, func() {
		if t, ok := c.transports.Load(l); ok {
			t.(net.Conn).Close()
		}
	})
	return func() { cancel() }
}
