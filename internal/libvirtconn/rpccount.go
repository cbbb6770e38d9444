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
	head    []byte // first bytes of the current packet, until the type is known
	remain  uint32 // bytes of the current packet still to come
	outFile string
}

func maybeCount(c net.Conn) net.Conn {
	prefix := os.Getenv(RPCCountEnv)
	if prefix == "" || c == nil {
		return c
	}
	return &countingConn{Conn: c, outFile: prefix + "." + strconv.Itoa(os.Getpid())}
}

const (
	rpcHeaderLen = 4 + 6*4 // length word + program, version, procedure, type, serial, status
	rpcTypeCall  = 0
)

func (c *countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.scan(p)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *countingConn) scan(p []byte) {
	for len(p) > 0 {
		if c.remain > 0 {
			n := uint32(len(p))
			if n > c.remain {
				n = c.remain
			}
			p = p[n:]
			c.remain -= n
			continue
		}
		need := rpcHeaderLen - len(c.head)
		if need > len(p) {
			c.head = append(c.head, p...)
			return
		}
		c.head = append(c.head, p[:need]...)
		p = p[need:]
		length := binary.BigEndian.Uint32(c.head[0:4])
		typ := binary.BigEndian.Uint32(c.head[16:20])
		if typ == rpcTypeCall {
			n := rpcCalls.Add(1)
			_ = os.WriteFile(c.outFile, []byte(fmt.Sprintln(n)), 0o644)
		}
		if length > rpcHeaderLen {
			c.remain = length - rpcHeaderLen
		}
		c.head = c.head[:0]
	}
}
