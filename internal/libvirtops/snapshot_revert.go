package libvirtops

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"
)

// externalRevertSince is the first libvirt release (9.9.0, as
// major*1000000+minor*1000+micro) that reverts a domain to an external
// snapshot; older daemons refuse with "revert to external snapshot not
// supported yet".
const externalRevertSince = 9009000

// ErrExternalRevert is the error of Revert for an external snapshot on a
// daemon that cannot revert to one.
var ErrExternalRevert = errors.New("external snapshot")

// RevertState is the run state a revert leaves the domain in.
type RevertState string

const (
	// RevertAsSnapshot leaves the domain as it was when the snapshot was taken.
	RevertAsSnapshot RevertState = ""
	// RevertRunning starts the domain after the revert.
	RevertRunning RevertState = "running"
	// RevertPaused leaves the domain paused after the revert.
	RevertPaused RevertState = "paused"
)

// Revert reverts the domain domUUID to its snapshot called name: its disks
// (and, for a snapshot of a running domain, its memory) return to that
// moment. An external snapshot on a libvirt before 9.9 fails with
// ErrExternalRevert and an explanation, before libvirt is asked.
func (s Snapshot) Revert(ctx context.Context, domUUID, name string, state RevertState) error {
	var flags libvirt.DomainSnapshotRevertFlags
	switch state {
	case RevertAsSnapshot:
	case RevertRunning:
		flags = libvirt.DomainSnapshotRevertRunning
	case RevertPaused:
		flags = libvirt.DomainSnapshotRevertPaused
	default:
		return fmt.Errorf("unknown state after revert %q", state)
	}
	dom, err := domainRef(domUUID)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, func(l *libvirt.Libvirt) error {
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
		if external := externalParts(&doc); len(external) > 0 {
			version, err := l.ConnectGetLibVersion()
			if err == nil && version < externalRevertSince {
				return externalRevertError(name, external, version)
			}
		}
		return l.DomainRevertToSnapshot(snap, uint32(flags))
	})
}

// externalParts names the parts of a snapshot stored externally (memory,
// disk targets).
func externalParts(doc *libvirtxml.DomainSnapshot) []string {
	var parts []string
	if doc.Memory != nil && doc.Memory.Snapshot == "external" {
		parts = append(parts, "memory")
	}
	if doc.Disks != nil {
		for _, d := range doc.Disks.Disks {
			if d.Snapshot == "external" {
				parts = append(parts, "disk "+d.Name)
			}
		}
	}
	return parts
}

func externalRevertError(name string, parts []string, version uint64) error {
	return fmt.Errorf("%w: snapshot %q keeps its %s in separate files (an external snapshot), and this libvirt "+
		"(%d.%d.%d) reverts only internal snapshots, whose state lives inside the disk images; reverting to external "+
		"snapshots needs libvirt 9.9 or later. Take internal snapshots for reverts (libvirt_domain_snapshot without "+
		"disks of snapshot = \"external\", on qcow2 disks), or restore the overlays' backing files by hand",
		ErrExternalRevert, name, strings.Join(parts, ", "), version/1000000, version/1000%1000, version%1000)
}
