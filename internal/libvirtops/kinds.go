package libvirtops

import (
	"context"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Domain is the adapter for libvirt domains, addressed by UUID.
type Domain struct{ c *libvirtconn.Client }

// Domains returns the domain adapter on this connection.
func Domains(c *libvirtconn.Client) Domain { return Domain{c: c} }

var domainLookup = uuidLookup{
	byUUID: func(l *libvirt.Libvirt, u libvirt.UUID) (libvirt.UUID, error) {
		o, err := l.DomainLookupByUUID(u)
		return o.UUID, err
	},
	byName: func(l *libvirt.Libvirt, name string) (libvirt.UUID, error) {
		o, err := l.DomainLookupByName(name)
		return o.UUID, err
	},
}

// LookUp resolves an import ID (UUID or name) to the domain's UUID.
func (d Domain) LookUp(ctx context.Context, importID string) (string, error) {
	return domainLookup.importID(ctx, d.c, importID)
}

// Find resolves a data source's `uuid` or `name` to the domain's UUID.
func (d Domain) Find(ctx context.Context, by map[string]string) (string, error) {
	return domainLookup.find(ctx, d.c, by)
}

// Volume is the adapter for storage volumes, addressed by key.
type Volume struct{ c *libvirtconn.Client }

// Volumes returns the volume adapter on this connection.
func Volumes(c *libvirtconn.Client) Volume { return Volume{c: c} }

// volumeByID finds a volume by key, or by "pool/name".
func volumeByID(l *libvirt.Libvirt, id string) (libvirt.StorageVol, error) {
	vol, err := l.StorageVolLookupByKey(id)
	if err == nil {
		return vol, nil
	}
	poolName, name, ok := strings.Cut(id, "/")
	if !ok || poolName == "" || name == "" || strings.Contains(name, "/") {
		return vol, err
	}
	pool, perr := l.StoragePoolLookupByName(poolName)
	if perr != nil {
		return vol, perr
	}
	return l.StorageVolLookupByName(pool, name)
}

// LookUp resolves the volume key (its path for file pools) or "pool/name"
// to the volume's key.
func (v Volume) LookUp(ctx context.Context, importID string) (key string, err error) {
	err = v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		vol, err := volumeByID(l, importID)
		key = vol.Key
		return err
	})
	return key, err
}

// Find resolves a data source's `key`, or `pool` and `name`, to the
// volume's key.
func (v Volume) Find(ctx context.Context, by map[string]string) (key string, err error) {
	err = v.c.Do(ctx, func(l *libvirt.Libvirt) error {
		if k, ok := by["key"]; ok {
			vol, err := l.StorageVolLookupByKey(k)
			key = vol.Key
			return err
		}
		pool, err := l.StoragePoolLookupByName(by["pool"])
		if err != nil {
			return err
		}
		vol, err := l.StorageVolLookupByName(pool, by["name"])
		key = vol.Key
		return err
	})
	return key, err
}

// Snapshot is the adapter for domain snapshots, addressed by
// "<domain UUID>/<snapshot name>".
type Snapshot struct{ c *libvirtconn.Client }

// Snapshots returns the snapshot adapter on this connection.
func Snapshots(c *libvirtconn.Client) Snapshot { return Snapshot{c: c} }

// SnapshotID is the id of the snapshot called name of the domain domUUID.
func SnapshotID(domUUID, name string) string { return domUUID + "/" + name }

// LookUp resolves `<domain UUID or name>/<snapshot name>` to the snapshot's id.
func (s Snapshot) LookUp(ctx context.Context, importID string) (string, error) {
	domID, name, ok := strings.Cut(importID, "/")
	if !ok || domID == "" || name == "" {
		return "", fmt.Errorf("the import ID must be <domain UUID or name>/<snapshot name>")
	}
	uuid, err := Domains(s.c).LookUp(ctx, domID)
	if err != nil {
		return "", err
	}
	dom, _ := domainRef(uuid)
	err = s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		_, err := l.DomainSnapshotLookupByName(dom, name, 0)
		return err
	})
	if err != nil {
		return "", err
	}
	return SnapshotID(uuid, name), nil
}

func domainRef(id string) (libvirt.Domain, error) {
	u, err := ParseUUID(id)
	if err != nil {
		return libvirt.Domain{}, err
	}
	return libvirt.Domain{UUID: u}, nil
}
