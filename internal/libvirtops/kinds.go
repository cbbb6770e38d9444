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
