package libvirtops

import (
	"context"
	"encoding/xml"
	"fmt"
	"reflect"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

// Update applies the planned definition: rename, redefine the persistent
// definition, then what libvirt can change on the running domain (vCPUs,
// memory, disk and interface hot-plug), a restart when asked for changes
// that need one, and the run state and autostart flag.
func (d Domain) Update(ctx context.Context, id string, oldDoc, newDoc *libvirtxml.Domain, opts DomainOptions) error {
	dom, err := domainRef(id)
	if err != nil {
		return err
	}
	defer invalidateAutostart(d.c)
	return d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		if err := fillDiskFormats(l, newDoc); err != nil {
			return err
		}
		if err := fillDiskFormats(l, oldDoc); err != nil {
			return err
		}
		active, err := domainActive(l, dom)
		if err != nil {
			return err
		}
		if oldDoc.Name != newDoc.Name {
			// libvirt renames only stopped domains
			if active {
				if err := stopDomain(ctx, l, dom, opts.UpdateShutdown, opts.Graceful); err != nil {
					return err
				}
				active = false
			}
			if _, err := l.DomainRename(dom, libvirt.OptString{newDoc.Name}, 0); err != nil {
				return fmt.Errorf("renaming domain to %q: %w", newDoc.Name, err)
			}
		}
		x, err := newDoc.Marshal()
		if err != nil {
			return err
		}
		if _, err := l.DomainDefineXMLFlags(x, libvirt.DomainDefineValidate); err != nil {
			return fmt.Errorf("redefining domain: %w", err)
		}
		if active && opts.Running {
			restart, err := applyLive(l, dom, oldDoc, newDoc)
			if err != nil {
				return err
			}
			if restart && opts.RestartOnChange {
				if err := stopDomain(ctx, l, dom, opts.UpdateShutdown, opts.Graceful); err != nil {
					return err
				}
				active = false
			}
		}
		switch {
		case opts.Running && !active:
			if err := startDomain(l, dom, opts); err != nil {
				return err
			}
		case !opts.Running && active:
			if err := stopDomain(ctx, l, dom, opts.UpdateShutdown, opts.Graceful); err != nil {
				return err
			}
		}
		var auto int32
		if opts.Autostart {
			auto = 1
		}
		return l.DomainSetAutostart(dom, auto)
	})
}

func domainActive(l *libvirt.Libvirt, dom libvirt.Domain) (bool, error) {
	state, _, err := l.DomainGetState(dom, 0)
	if err != nil {
		return false, err
	}
	return libvirt.DomainState(state) != libvirt.DomainShutoff, nil
}

// liveDelta is what a running domain can take without a restart.
type liveDelta struct {
	vcpus            uint32 // 0: unchanged
	memoryKiB        uint64 // 0: unchanged
	attach, detach   []hotplugItem
	restartForOthers bool // other differences need the next boot
}

// NeedsRestart says whether changing a running domain from oldDoc to newDoc
// leaves differences that only take effect at its next boot (beyond what
// Update applies live: vCPUs, memory, disk and interface hot-plug).
func NeedsRestart(oldDoc, newDoc *libvirtxml.Domain) bool {
	return planLiveDelta(oldDoc, newDoc).restartForOthers
}

// planLiveDelta compares two definitions of a running domain.
func planLiveDelta(oldDoc, newDoc *libvirtxml.Domain) liveDelta {
	var d liveDelta
	if n, o := currentVCPUs(newDoc), currentVCPUs(oldDoc); n != o && maxVCPUs(newDoc) == maxVCPUs(oldDoc) && n <= maxVCPUs(oldDoc) {
		d.vcpus = n
	}
	if n, o := currentMemoryKiB(newDoc), currentMemoryKiB(oldDoc); n != o && n > 0 && n <= memoryKiB(oldDoc) && memoryKiB(newDoc) == memoryKiB(oldDoc) {
		d.memoryKiB = n
	}
	oldCopy, newCopy := cloneDomain(oldDoc), cloneDomain(newDoc)
	// what is applied live is equal on both sides for the comparison below
	if d.vcpus != 0 {
		oldCopy.VCPU.Current = newCopy.VCPU.Current
		oldCopy.VCPU.Value = newCopy.VCPU.Value
	}
	if d.memoryKiB != 0 {
		oldCopy.CurrentMemory = newCopy.CurrentMemory
	}
	oldCopy.Name = newCopy.Name
	if oldCopy.Devices != nil && newCopy.Devices != nil {
		oldDisks, newDisks := oldCopy.Devices.Disks, newCopy.Devices.Disks
		attach, detach, ok := hotplugDiff(oldDisks, newDisks, diskKey)
		if ok {
			d.attach, d.detach = append(d.attach, attach...), append(d.detach, detach...)
			oldCopy.Devices.Disks = newDisks
		}
		attach, detach, ok = hotplugDiff(oldCopy.Devices.Interfaces, newCopy.Devices.Interfaces, interfaceKey)
		if ok {
			d.attach, d.detach = append(d.attach, attach...), append(d.detach, detach...)
			oldCopy.Devices.Interfaces = newCopy.Devices.Interfaces
		}
	}
	a, _ := oldCopy.Marshal()
	b, _ := newCopy.Marshal()
	d.restartForOthers = a != b
	return d
}

// applyLive applies the live part of a change to a running domain and
// reports whether other differences still need a restart.
func applyLive(l *libvirt.Libvirt, dom libvirt.Domain, oldDoc, newDoc *libvirtxml.Domain) (bool, error) {
	d := planLiveDelta(oldDoc, newDoc)
	if d.vcpus != 0 {
		if err := l.DomainSetVcpusFlags(dom, d.vcpus, uint32(libvirt.DomainAffectLive)); err != nil {
			return false, fmt.Errorf("setting %d vCPUs live: %w", d.vcpus, err)
		}
	}
	if d.memoryKiB != 0 {
		if err := l.DomainSetMemoryFlags(dom, d.memoryKiB, uint32(libvirt.DomainAffectLive)); err != nil {
			return false, fmt.Errorf("setting memory to %d KiB live: %w", d.memoryKiB, err)
		}
	}
	// The running domain has its own device list, which may differ from the
	// persistent one (a NIC detached with --config only): attach what it
	// lacks, detach what it has, so that applies converge.
	running, err := liveDeviceKeys(l, dom)
	if err != nil {
		return false, err
	}
	for _, x := range d.detach {
		if x.key != "" && !running[x.key] {
			continue
		}
		if err := l.DomainDetachDeviceFlags(dom, x.xml, uint32(libvirt.DomainAffectLive)); err != nil {
			return false, fmt.Errorf("hot-unplugging device: %w", err)
		}
	}
	for _, x := range d.attach {
		if x.key != "" && running[x.key] {
			continue
		}
		if err := l.DomainAttachDeviceFlags(dom, x.xml, uint32(libvirt.DomainAffectLive)); err != nil {
			return false, fmt.Errorf("hot-plugging device: %w", err)
		}
	}
	return d.restartForOthers, nil
}

func diskKey(d libvirtxml.DomainDisk) string {
	if d.Target == nil {
		return ""
	}
	return d.Target.Dev
}

func interfaceKey(i libvirtxml.DomainInterface) string {
	if i.MAC == nil {
		return ""
	}
	return strings.ToLower(i.MAC.Address)
}

// hotplugDiff lists devices to attach and detach when the lists differ only
// by whole devices (matched by key); ok is false when a kept device changed
// or a device has no key, which hot-plug cannot express.
func hotplugDiff[T any](oldList, newList []T, key func(T) string) (attach, detach []hotplugItem, ok bool) {
	oldBy := map[string]T{}
	for _, o := range oldList {
		k := key(o)
		if k == "" {
			return nil, nil, false
		}
		oldBy[k] = o
	}
	newKeys := map[string]bool{}
	for _, n := range newList {
		k := key(n)
		if k == "" {
			// a new NIC without MAC: libvirt generates one on attach
			x, err := xml.Marshal(&n)
			if err != nil {
				return nil, nil, false
			}
			attach = append(attach, hotplugItem{xml: string(x)})
			continue
		}
		newKeys[k] = true
		o, found := oldBy[k]
		if !found {
			x, err := xml.Marshal(&n)
			if err != nil {
				return nil, nil, false
			}
			attach = append(attach, hotplugItem{key: k, xml: string(x)})
			continue
		}
		if !reflect.DeepEqual(o, n) {
			return nil, nil, false
		}
	}
	for _, o := range oldList {
		if !newKeys[key(o)] {
			x, err := xml.Marshal(&o)
			if err != nil {
				return nil, nil, false
			}
			detach = append(detach, hotplugItem{key: key(o), xml: string(x)})
		}
	}
	return attach, detach, true
}

func cloneDomain(d *libvirtxml.Domain) *libvirtxml.Domain {
	x, _ := d.Marshal()
	var c libvirtxml.Domain
	_ = c.Unmarshal(x)
	if c.VCPU == nil {
		c.VCPU = &libvirtxml.DomainVCPU{}
	}
	return &c
}

func maxVCPUs(d *libvirtxml.Domain) uint32 {
	if d.VCPU == nil {
		return 1
	}
	return uint32(d.VCPU.Value)
}

func currentVCPUs(d *libvirtxml.Domain) uint32 {
	if d.VCPU == nil {
		return 1
	}
	if d.VCPU.Current > 0 {
		return uint32(d.VCPU.Current)
	}
	return uint32(d.VCPU.Value)
}

func memoryKiB(d *libvirtxml.Domain) uint64 {
	if d.Memory == nil {
		return 0
	}
	return toKiB(uint64(d.Memory.Value), d.Memory.Unit)
}

func currentMemoryKiB(d *libvirtxml.Domain) uint64 {
	if d.CurrentMemory == nil {
		return memoryKiB(d)
	}
	return toKiB(uint64(d.CurrentMemory.Value), d.CurrentMemory.Unit)
}

// toKiB converts a libvirt memory value (default unit KiB) to KiB; an
// unknown unit (refused by libvirt at define) counts as KiB.
func toKiB(v uint64, unit string) uint64 {
	if kib, ok := xmlschema.ScaledValue(v, unit, "KiB", "KiB"); ok {
		return kib
	}
	return v
}

// hotplugItem is one device to attach or detach: its key (disk target,
// interface MAC; "" when it has none yet) and its XML.
type hotplugItem struct{ key, xml string }

// liveDeviceKeys lists the disk targets and interface MACs of the running
// domain's live definition.
func liveDeviceKeys(l *libvirt.Libvirt, dom libvirt.Domain) (map[string]bool, error) {
	x, err := l.DomainGetXMLDesc(dom, 0)
	if err != nil {
		return nil, fmt.Errorf("reading the running definition: %w", err)
	}
	var live libvirtxml.Domain
	if err := live.Unmarshal(x); err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	if live.Devices != nil {
		for _, d := range live.Devices.Disks {
			keys[diskKey(d)] = true
		}
		for _, i := range live.Devices.Interfaces {
			keys[interfaceKey(i)] = true
		}
	}
	delete(keys, "")
	return keys, nil
}
