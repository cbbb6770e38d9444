package libvirtconn

import (
	"encoding/binary"
	"net"
	"testing"
)

func packet(typ uint32, payload int) []byte {
	b := make([]byte, rpcHeaderLen+payload)
	binary.BigEndian.PutUint32(b[0:4], uint32(len(b)))
	binary.BigEndian.PutUint32(b[16:20], typ)
	return b
}

// The counter finds call packets however the stream is cut into writes.
func TestCountingConnCountsCalls(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := b.Read(buf); err != nil {
				return
			}
		}
	}()
	c := &countingConn{Conn: a, outFile: t.TempDir() + "/count"}
	before := RPCCalls()
	var stream []byte
	stream = append(stream, packet(0, 40)...)  // call
	stream = append(stream, packet(3, 100)...) // stream data
	stream = append(stream, packet(0, 0)...)   // call without payload
	stream = append(stream, packet(0, 7)...)   // call
	for i := 0; i < len(stream); i += 5 {      // odd-sized writes split headers
		end := i + 5
		if end > len(stream) {
			end = len(stream)
		}
		if _, err := c.Write(stream[i:end]); err != nil {
			t.Fatal(err)
		}
	}
	if got := RPCCalls() - before; got != 3 {
		t.Fatalf("counted %d calls, want 3", got)
	}
}
