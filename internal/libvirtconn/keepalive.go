package libvirtconn

import (
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// libvirt's keepalive protocol (src/rpc/virkeepaliveprotocol.x): either side
// may send PING, the other answers PONG, both as messages outside any call.
// libvirtd answers a PING from any client, in its event loop, even while the
// client's calls are busy in worker threads; so silence means the peer or the
// path is gone, not that a call is slow. go-libvirt has no keepalive: this
// connection wrapper adds it below go-libvirt. Pings go out only between whole
// packets (the writes of go-libvirt are framed by packetFramer), and
// the PONG replies reach go-libvirt as a message for serial 0, which no call
// has, so it drops them.
const (
	keepaliveProgram  = 0x6b656570
	keepaliveVersion  = 1
	keepaliveProcPing = 1
	rpcTypeMessage    = 2
)

// The defaults (defaultTiming): a ping every 5 s; 3 intervals without a
// byte from the peer declare it dead: the transport is closed, and every
// waiting call fails at once with a transport error (what libvirt's own
// client does after 5 missed pongs, here sooner).

// keepaliveConn pings the peer and closes the transport when nothing comes
// back for keepaliveCount intervals.
type keepaliveConn struct {
	net.Conn

	mu     sync.Mutex // one writer at a time; pings wait for a packet boundary
	frames packetFramer

	pingDue  atomic.Bool  // a ping waits for the next packet boundary
	lastRead atomic.Int64 // unix nanoseconds of the last byte read
	dead     atomic.Bool  // closed because the peer stopped answering
	stop     chan struct{}
	once     sync.Once

	interval time.Duration
	count    int
}

func withKeepalive(c net.Conn, interval time.Duration, count int) *keepaliveConn {
	k := &keepaliveConn{Conn: c, stop: make(chan struct{}), interval: interval, count: count}
	k.lastRead.Store(time.Now().UnixNano())
	go k.run()
	return k
}

func (k *keepaliveConn) run() {
	t := time.NewTicker(k.interval)
	defer t.Stop()
	for {
		select {
		case <-k.stop:
			return
		case <-t.C:
		}
		silent := time.Since(time.Unix(0, k.lastRead.Load()))
		if silent >= time.Duration(k.count)*k.interval {
			k.dead.Store(true)
			k.Close()
			return
		}
		k.pingDue.Store(true)
		// idle: send it now; busy writing: Write sends it after the packet
		// (a write blocked on a frozen peer never lets go, which the
		// silence above then ends)
		go func() {
			if k.mu.TryLock() {
				k.pingLocked()
				k.mu.Unlock()
			}
		}()
	}
}

// pingLocked writes a PING message when one is due and no packet is half
// written. k.mu must be held.
func (k *keepaliveConn) pingLocked() {
	if !k.pingDue.Load() || !k.frames.atBoundary() {
		return
	}
	k.pingDue.Store(false)
	var p [rpcHeaderLen]byte
	binary.BigEndian.PutUint32(p[0:], rpcHeaderLen)
	binary.BigEndian.PutUint32(p[4:], keepaliveProgram)
	binary.BigEndian.PutUint32(p[8:], keepaliveVersion)
	binary.BigEndian.PutUint32(p[12:], keepaliveProcPing)
	binary.BigEndian.PutUint32(p[16:], rpcTypeMessage)
	// serial 0, status OK
	_, _ = k.Conn.Write(p[:])
}

func (k *keepaliveConn) Read(p []byte) (int, error) {
	n, err := k.Conn.Read(p)
	if n > 0 {
		k.lastRead.Store(time.Now().UnixNano())
	}
	return n, err
}

func (k *keepaliveConn) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.frames.feed(p, nil)
	n, err := k.Conn.Write(p)
	if err == nil {
		k.pingLocked()
	}
	return n, err
}

func (k *keepaliveConn) Close() error {
	k.once.Do(func() { close(k.stop) })
	return k.Conn.Close()
}

// PeerDead reports whether the keepalive closed the connection.
func (k *keepaliveConn) PeerDead() bool { return k.dead.Load() }
