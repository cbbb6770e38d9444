package libvirtops

import (
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"
)

// attachedDisk is a disk of a running domain that uses a volume.
type attachedDisk struct {
	dom    libvirt.Domain
	target string // the disk's target dev, as block resize names it
}

// runningUsers lists the disks of running domains that use the volume
// (by its path, or by pool and volume name).
func runningUsers(l *libvirt.Libvirt, vol libvirt.StorageVol, volPath string) ([]attachedDisk, error) {
	doms, _, err := l.ConnectListAllDomains(1, libvirt.ConnectListDomainsActive)
	if err != nil {
		return nil, fmt.Errorf("listing running domains: %w", err)
	}
	var users []attachedDisk
	for _, d := range doms {
		xml, err := l.DomainGetXMLDesc(d, 0)
		if err != nil {
			continue // stopped or gone meanwhile
		}
		if !strings.Contains(xml, volPath) && !strings.Contains(xml, vol.Name) {
			continue
		}
		var doc libvirtxml.Domain
		if doc.Unmarshal(xml) != nil || doc.Devices == nil {
			continue
		}
		for _, disk := range doc.Devices.Disks {
			if disk.Target == nil || disk.Source == nil {
				continue
			}
			src := disk.Source
			uses := (src.File != nil && src.File.File == volPath) ||
				(src.Block != nil && src.Block.Dev == volPath) ||
				(src.Volume != nil && src.Volume.Pool == vol.Pool && src.Volume.Volume == vol.Name)
			if uses {
				users = append(users, attachedDisk{dom: d, target: disk.Target.Dev})
			}
		}
	}
	return users, nil
}

// growVolume grows vol to size bytes. A volume that running domains use is
// grown through QEMU (block resize) so that the guests see the new size at
// once, without a restart; the image is locked by QEMU then, so resizing
// the file under it would fail. Otherwise libvirt resizes the volume.
func growVolume(l *libvirt.Libvirt, vol libvirt.StorageVol, volPath string, size uint64) (resizedLive []string, err error) {
	users, err := runningUsers(l, vol, volPath)
	if err != nil {
		return nil, err
	}
	if len(users) == 0 {
		return nil, l.StorageVolResize(vol, size, 0)
	}
	for _, u := range users {
		if err := l.DomainBlockResize(u.dom, u.target, size, libvirt.DomainBlockResizeBytes); err != nil {
			return resizedLive, fmt.Errorf("growing disk %s of running domain %s: %w", u.target, u.dom.Name, err)
		}
		resizedLive = append(resizedLive, u.dom.Name+":"+u.target)
	}
	return resizedLive, nil
}
