package libvirtconn

import (
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

// RPCCountEnv names a file prefix: when set, every provider process counts
// the libvirt RPC calls it sends and keeps the running total in
// <prefix>.<pid>. Benchmarks read it; it costs nothing when unset.
const RPCCountEnv = "TFPLV_RPC_COUNT_FILE"

var rpcCalls atomic.Int64

// RPCCalls returns the number of libvirt RPC calls this process sent.
func RPCCalls() int64 { return rpcCalls.Load() }

// countingConn parses the outgoing libvirt RPC stream and counts call
// packets (stream data packets of uploads are not calls).
type countingConn struct {
	net.Conn
	mu      sync.Mutex
	frames  packetFramer
	outFile string
}

func maybeCount(c net.Conn) net.Conn {
	prefix := os.Getenv(RPCCountEnv)
	if prefix == "" || c == nil {
		return c
	}
	return &countingConn{Conn: c, outFile: prefix + "." + strconv.Itoa(os.Getpid())}
}

// rpcTypeCall is the header type of a call packet.
const rpcTypeCall = 0

func (c *countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.scan(p)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *countingConn) scan(p []byte) {
	c.frames.feed(p, func(h []byte) {
		if binary.BigEndian.Uint32(h[16:20]) == rpcTypeCall {
			n := rpcCalls.Add(1)
			_ = os.WriteFile(c.outFile, []byte(fmt.Sprintln(n)), 0o644)
		}
	})
}
