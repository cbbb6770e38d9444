package libvirtops

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
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

// NewUUID returns a random (version 4) UUID in libvirt's form. The provider
// chooses the UUIDs of the objects it defines, so that defining again after
// a broken connection is a harmless redefinition.
func NewUUID() string {
	var u libvirt.UUID
	_, _ = rand.Read(u[:]) // never fails (crypto/rand, Go 1.24+)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return UUIDString(u)
}

// uuidLookup finds an object of one kind by UUID or by name and returns its
// UUID; each adapter supplies the two libvirt calls (lookupBy).
type uuidLookup struct {
	byUUID func(*libvirt.Libvirt, libvirt.UUID) (libvirt.UUID, error)
	byName func(*libvirt.Libvirt, string) (libvirt.UUID, error)
}

// lookupBy makes the uuidLookup of a kind from go-libvirt's two look-up
// methods and the object's UUID field.
func lookupBy[O any](byUUID func(*libvirt.Libvirt, libvirt.UUID) (O, error), byName func(*libvirt.Libvirt, string) (O, error),
	uuidOf func(O) libvirt.UUID) uuidLookup {
	return uuidLookup{
		byUUID: func(l *libvirt.Libvirt, u libvirt.UUID) (libvirt.UUID, error) {
			o, err := byUUID(l, u)
			return uuidOf(o), err
		},
		byName: func(l *libvirt.Libvirt, name string) (libvirt.UUID, error) {
			o, err := byName(l, name)
			return uuidOf(o), err
		},
	}
}

// importID resolves an import ID: a UUID when it parses as one, else a name.
func (k uuidLookup) importID(ctx context.Context, c *libvirtconn.Client, id string) (string, error) {
	var found libvirt.UUID
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		if u, perr := ParseUUID(id); perr == nil {
			found, err = k.byUUID(l, u)
		} else {
			found, err = k.byName(l, id)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	return UUIDString(found), nil
}

// find resolves a data source's arguments: `uuid` when given, else `name`.
// Unlike an import ID, the argument says which one is meant: a name that
// looks like a UUID is still a name.
func (k uuidLookup) find(ctx context.Context, c *libvirtconn.Client, by map[string]string) (string, error) {
	var found libvirt.UUID
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		if s, ok := by["uuid"]; ok {
			u, perr := ParseUUID(s)
			if perr != nil {
				return perr
			}
			found, err = k.byUUID(l, u)
			return err
		}
		found, err = k.byName(l, by["name"])
		return err
	})
	if err != nil {
		return "", err
	}
	return UUIDString(found), nil
}
