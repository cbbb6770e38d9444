package storage

import (
	"bytes"
	"encoding/binary"
)

// qcow2HeaderLen covers the header fields read here: magic (0..3), version
// (4..7) and virtual size (24..31), all big-endian.
const qcow2HeaderLen = 32

var qcow2Magic = []byte{'Q', 'F', 'I', 0xfb}

// ParseQcow2Header recognises a qcow2 image from its first bytes and returns
// the virtual disk size its header declares.
func ParseQcow2Header(head []byte) (virtualSize uint64, ok bool) {
	if len(head) < qcow2HeaderLen || !bytes.Equal(head[:4], qcow2Magic) {
		return 0, false
	}
	if v := binary.BigEndian.Uint32(head[4:8]); v != 2 && v != 3 {
		return 0, false
	}
	return binary.BigEndian.Uint64(head[24:32]), true
}
