package provider

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// libvirtUUID parses the canonical 8-4-4-4-12 form libvirt prints.
func libvirtUUID(s string) (libvirt.UUID, error) {
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

func uuidString(u libvirt.UUID) string {
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// importing reports whether a state holds only the id set by ImportState: the
// first Read after an import stores the whole live document.
func importing(attrs map[string]tftypes.Value) bool {
	for name, v := range attrs {
		if name == "id" {
			continue
		}
		if !v.IsNull() {
			return false
		}
	}
	return true
}
