package treeresource

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"
)

// ParseUUID parses the canonical 8-4-4-4-12 form libvirt prints.
func ParseUUID(s string) (libvirt.UUID, error) {
	var u libvirt.UUID
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

// UUIDString prints a UUID in libvirt's canonical form.
func UUIDString(u libvirt.UUID) string {
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
