package libvirtconn

import "encoding/binary"

// rpcHeaderLen is the length word plus the header of a libvirt RPC packet:
// program, version, procedure, type, serial, status.
const rpcHeaderLen = 4 + 6*4

// packetFramer follows the packet boundaries of an outgoing libvirt RPC
// stream, whatever the sizes of the writes it arrives in. Used by the
// connection wrappers that count calls (rpccount.go) and that insert
// keepalive pings between packets (keepalive.go).
type packetFramer struct {
	head   []byte // the start of the current packet, until its header is complete
	remain uint32 // body bytes of the current packet still to come
}

// feed passes p through the framer and calls onHeader (if not nil) with
// each packet header as soon as it is complete.
func (f *packetFramer) feed(p []byte, onHeader func(header []byte)) {
	for len(p) > 0 {
		if f.remain > 0 {
			n := uint32(len(p))
			if n > f.remain {
				n = f.remain
			}
			p = p[n:]
			f.remain -= n
			continue
		}
		need := rpcHeaderLen - len(f.head)
		if need > len(p) {
			f.head = append(f.head, p...)
			return
		}
		f.head = append(f.head, p[:need]...)
		p = p[need:]
		if onHeader != nil {
			onHeader(f.head)
		}
		if length := binary.BigEndian.Uint32(f.head[0:4]); length > rpcHeaderLen {
			f.remain = length - rpcHeaderLen
		}
		f.head = f.head[:0]
	}
}

// atBoundary reports whether no packet is half written.
func (f *packetFramer) atBoundary() bool { return f.remain == 0 && len(f.head) == 0 }
