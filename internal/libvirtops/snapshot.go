package libvirtops

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Snapshot is the adapter for domain snapshots, addressed by
// "<domain UUID>/<snapshot name>".
type Snapshot struct{ c *libvirtconn.Client }

// Snapshots returns the snapshot adapter on this connection.
func Snapshots(c *libvirtconn.Client) Snapshot { return Snapshot{c: c} }

// SnapshotID is the id of the snapshot called name of the domain domUUID.
func SnapshotID(domUUID, name string) string { return domUUID + "/" + name }

// ParseSnapshotID splits an id into the domain's UUID and the snapshot's name.
func ParseSnapshotID(id string) (domUUID, name string, err error) {
	domUUID, name, ok := strings.Cut(id, "/")
	if !ok || name == "" {
		return "", "", fmt.Errorf("snapshot id %q is not <domain UUID>/<snapshot name>", id)
	}
	if _, err := ParseUUID(domUUID); err != nil {
		return "", "", fmt.Errorf("snapshot id %q: %w", id, err)
	}
	return domUUID, name, nil
}

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

// Fetch reads the XML of the snapshot with this id.
func (s Snapshot) Fetch(ctx context.Context, id string) (*libvirtxml.DomainSnapshot, error) {
	domUUID, name, err := ParseSnapshotID(id)
	if err != nil {
		return nil, err
	}
	dom, _ := domainRef(domUUID)
	var xml string
	err = s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		snap, err := l.DomainSnapshotLookupByName(dom, name, 0)
		if err != nil {
			return err
		}
		xml, err = l.DomainSnapshotGetXMLDesc(snap, uint32(libvirt.DomainSnapshotXMLSecure))
		return err
	})
	if err != nil {
		return nil, err
	}
	var doc libvirtxml.DomainSnapshot
	if err := doc.Unmarshal(xml); err != nil {
		return nil, fmt.Errorf("parsing snapshot XML: %w", err)
	}
	return &doc, nil
}

// Exists says whether the domain has a snapshot called name.
func (s Snapshot) Exists(ctx context.Context, domUUID, name string) (bool, error) {
	dom, err := domainRef(domUUID)
	if err != nil {
		return false, err
	}
	err = s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		_, err := l.DomainSnapshotLookupByName(dom, name, 0)
		return err
	})
	if libvirtconn.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// SnapshotFlags are the create flags of a snapshot.
type SnapshotFlags struct{ DiskOnly, Quiesce, Live, Atomic bool }

// Create takes the snapshot doc of the domain. libvirt removes what a
// failed snapshot created (overlays included).
func (s Snapshot) Create(ctx context.Context, domUUID string, doc *libvirtxml.DomainSnapshot, f SnapshotFlags) error {
	dom, err := domainRef(domUUID)
	if err != nil {
		return err
	}
	xml, err := doc.Marshal()
	if err != nil {
		return fmt.Errorf("writing snapshot XML: %w", err)
	}
	var flags libvirt.DomainSnapshotCreateFlags
	for on, flag := range map[*bool]libvirt.DomainSnapshotCreateFlags{
		&f.DiskOnly: libvirt.DomainSnapshotCreateDiskOnly, &f.Quiesce: libvirt.DomainSnapshotCreateQuiesce,
		&f.Live: libvirt.DomainSnapshotCreateLive, &f.Atomic: libvirt.DomainSnapshotCreateAtomic,
	} {
		if *on {
			flags |= flag
		}
	}
	return s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		_, err := l.DomainSnapshotCreateXML(dom, xml, uint32(flags))
		if err != nil {
			// created by a first run that the connection broke under: the
			// caller checked that no snapshot of this name existed before
			if _, lerr := l.DomainSnapshotLookupByName(dom, doc.Name, 0); lerr == nil {
				return nil
			}
			return err
		}
		return nil
	})
}

// SetDescription redefines the snapshot's metadata with a new description.
func (s Snapshot) SetDescription(ctx context.Context, id, description string) error {
	domUUID, name, err := ParseSnapshotID(id)
	if err != nil {
		return err
	}
	dom, _ := domainRef(domUUID)
	return s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		snap, err := l.DomainSnapshotLookupByName(dom, name, 0)
		if err != nil {
			return err
		}
		// the whole current metadata (the embedded domain included) is
		// redefined: only the description differs. Redefining keeps the
		// snapshot current when it was; a repeated run is harmless.
		xml, err := l.DomainSnapshotGetXMLDesc(snap, uint32(libvirt.DomainSnapshotXMLSecure))
		if err != nil {
			return err
		}
		var doc libvirtxml.DomainSnapshot
		if err := doc.Unmarshal(xml); err != nil {
			return fmt.Errorf("parsing snapshot XML: %w", err)
		}
		doc.Description = description
		out, err := doc.Marshal()
		if err != nil {
			return err
		}
		_, err = l.DomainSnapshotCreateXML(dom, out, uint32(libvirt.DomainSnapshotCreateRedefine))
		return err
	})
}

// SnapshotDeleted is what Delete left behind.
type SnapshotDeleted struct {
	// MemoryKept is the memory file of an external snapshot, which libvirt
	// 9.0 does not delete when it merges the disks back.
	MemoryKept string
	// Refused is libvirt's refusal to merge an external snapshot back;
	// only its metadata was deleted then, and Left are its files.
	Refused error
	Left    []string
}

// Delete deletes the snapshot and its data. When libvirt refuses to delete
// the data of an external snapshot, only the metadata is deleted: the
// domain keeps its overlays, whose backing files are the original images,
// so it stays usable.
func (s Snapshot) Delete(ctx context.Context, id string) (out SnapshotDeleted, err error) {
	domUUID, name, err := ParseSnapshotID(id)
	if err != nil {
		return out, err
	}
	dom, _ := domainRef(domUUID)
	err = s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		out = SnapshotDeleted{} // a re-run after a broken connection starts over
		snap, err := l.DomainSnapshotLookupByName(dom, name, 0)
		if err != nil {
			return err
		}
		xml, err := l.DomainSnapshotGetXMLDesc(snap, 0)
		if err != nil {
			return err
		}
		var doc libvirtxml.DomainSnapshot
		if err := doc.Unmarshal(xml); err != nil {
			return fmt.Errorf("parsing snapshot XML: %w", err)
		}
		files := SnapshotExternalFiles(&doc)
		err = l.DomainSnapshotDelete(snap, 0)
		if err == nil && doc.Memory != nil && doc.Memory.Snapshot == "external" && doc.Memory.File != "" {
			out.MemoryKept = doc.Memory.File
		}
		if err == nil || len(files) == 0 || !snapshotRefused(err) {
			return err
		}
		out.Refused = err
		out.Left = files
		return l.DomainSnapshotDelete(snap, libvirt.DomainSnapshotDeleteMetadataOnly)
	})
	return out, err
}

// SnapshotExternalFiles lists the overlay and memory files of an external snapshot.
func SnapshotExternalFiles(doc *libvirtxml.DomainSnapshot) []string {
	var files []string
	if doc.Memory != nil && doc.Memory.Snapshot == "external" && doc.Memory.File != "" {
		files = append(files, doc.Memory.File)
	}
	if doc.Disks != nil {
		for _, d := range doc.Disks.Disks {
			if d.Snapshot != "external" || d.Source == nil {
				continue
			}
			switch {
			case d.Source.File != nil && d.Source.File.File != "":
				files = append(files, d.Source.File.File)
			case d.Source.Block != nil && d.Source.Block.Dev != "":
				files = append(files, d.Source.Block.Dev)
			}
		}
	}
	sort.Strings(files)
	return files
}

// snapshotRefused reports libvirt refusing an operation (as opposed to a
// broken connection, which client.Do retries).
func snapshotRefused(err error) bool {
	var le libvirt.Error
	if !errors.As(err, &le) {
		return false
	}
	switch libvirt.ErrorNumber(le.Code) {
	case libvirt.ErrOperationFailed, libvirt.ErrOperationInvalid, libvirt.ErrOperationUnsupported,
		libvirt.ErrConfigUnsupported, libvirt.ErrArgumentUnsupported, libvirt.ErrNoSupport:
		return true
	}
	return false
}
