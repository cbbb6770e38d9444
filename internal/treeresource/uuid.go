package treeresource

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// parseUUID parses the canonical 8-4-4-4-12 form libvirt prints (the
// libvirt-side twin, which returns go-libvirt's type, is libvirtops.ParseUUID).
func parseUUID(s string) ([16]byte, error) {
	var u [16]byte
	h := strings.ReplaceAll(s, "-", "")
	if len(h) != 32 {
		return u, fmt.Errorf("%q is not a UUID", s)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return u, fmt.Errorf("%q is not a UUID", s)
	}
	copy(u[:], b)
	return u, nil
}
