package provider

import (
	"reflect"
	"regexp"
	"strings"

	"libvirt.org/go/libvirtxml"
)

// Shortening (treeresource.Shorten): what libvirt writes into a definition
// by itself is left out of the configuration generated for an adopted
// object, so that it reads as a person would have written it. The
// adoption engine keeps every value a configuration leaves out, so the
// first plan after the import still shows no change. A rule removes a
// value only where libvirt fills in the same again when it is absent.

// Shorten drops from a domain what libvirt adds or expands by itself.
func (r *domainResource) Shorten(doc *libvirtxml.Domain) {
	if doc.CurrentMemory != nil && doc.Memory != nil && doc.CurrentMemory.Value == doc.Memory.Value && doc.CurrentMemory.Unit == doc.Memory.Unit {
		doc.CurrentMemory = nil
	}
	if doc.VCPU != nil && doc.VCPU.Placement == "static" && doc.VCPU.CPUSet == "" {
		doc.VCPU.Placement = ""
	}
	defaultString(&doc.OnPoweroff, "destroy")
	defaultString(&doc.OnReboot, "restart")
	defaultString(&doc.OnCrash, "destroy")
	if c := doc.Clock; c != nil && c.Offset == "utc" && len(c.Timer) == 0 && c.Basis == "" && c.Adjustment == "" && c.TimeZone == "" {
		doc.Clock = nil
	}
	// the CPU libvirt fills in for a domain that names none (TCG's qemu64)
	if c := doc.CPU; c != nil && c.Mode == "custom" && c.Model != nil && c.Model.Value == "qemu64" && len(c.Features) == 0 && c.Topology == nil && c.Numa == nil {
		doc.CPU = nil
	}
	if os := doc.OS; os != nil && len(os.BootDevices) == 1 && os.BootDevices[0].Dev == "hd" {
		os.BootDevices = nil // libvirt boots from the first disk when told nothing
	}
	if doc.Devices != nil {
		shortenDevices(doc.Devices)
		if reflect.ValueOf(*doc.Devices).IsZero() {
			doc.Devices = nil // nothing left that libvirt would not add
		}
	}
}

// Shorten drops from a network what libvirt picks when it is absent: the
// bridge (the first free virbrN, spanning tree on, no delay) and the MAC
// address it generates for the bridge.
func (r *networkResource) Shorten(doc *libvirtxml.Network) {
	if b := doc.Bridge; b != nil && autoBridge.MatchString(b.Name) && b.STP == "on" && (b.Delay == "" || b.Delay == "0") && b.MACTableManager == "" && b.Zone == "" {
		doc.Bridge = nil
	}
	doc.MAC = nil
}

// autoBridge is the name libvirt gives a network's bridge when none is set.
var autoBridge = regexp.MustCompile(`^virbr[0-9]+$`)

// Shorten drops from a volume what libvirt reports rather than takes: the
// key and the path (derived from the pool and the name: libvirt replaces
// what a definition says), and the allocation and physical size the image
// has now.
func (r *volumeResource) Shorten(doc *libvirtxml.StorageVolume) {
	doc.Key = ""
	doc.Allocation = nil
	doc.Physical = nil
	if t := doc.Target; t != nil && strings.HasSuffix(t.Path, "/"+doc.Name) {
		t.Path = ""
	}
}

// Shorten drops from a pool the sizes libvirt reports (what its storage
// holds and has free): a definition's sizes are ignored.
func (r *poolResource) Shorten(doc *libvirtxml.StoragePool) {
	doc.Allocation, doc.Capacity, doc.Available = nil, nil, nil
}

// shortenDevices drops device addresses and aliases, and the devices libvirt
// adds to every domain of its kind.
func shortenDevices(d *libvirtxml.DomainDeviceList) {
	dropAddresses(reflect.ValueOf(d).Elem())
	d.Emulator = ""
	if allImplicitControllers(d.Controllers) {
		d.Controllers = nil
	}
	if b := d.MemBalloon; b != nil && b.Model == "virtio" && b.Stats == nil && b.Driver == nil && b.AutoDeflate == "" && b.FreePageReporting == "" {
		d.MemBalloon = nil
	}
	d.Audios = nil // libvirt derives the audio backend from the graphics
	// the ps2 mouse and keyboard of an x86 machine (libvirt adds them);
	// only the whole list goes: a configuration's list that is shorter
	// than the state's plans the removal of the rest
	implicitInputs := true
	for _, in := range d.Inputs {
		if in.Bus != "ps2" || (in.Type != "mouse" && in.Type != "keyboard") {
			implicitInputs = false
		}
	}
	if implicitInputs {
		d.Inputs = nil
	}
	// the console libvirt adds for the first serial port
	if len(d.Serials) > 0 && len(d.Consoles) == 1 {
		if t := d.Consoles[0].Target; t != nil && t.Type == "serial" && (t.Port == nil || *t.Port == 0) {
			d.Consoles = nil
		}
	}
	for i := range d.Serials {
		if t := d.Serials[i].Target; t != nil && t.Type == "isa-serial" && (t.Port == nil || *t.Port == 0) {
			d.Serials[i].Target = nil
		}
	}
	for i := range d.Channels {
		if t := d.Channels[i].Target; t != nil && t.VirtIO != nil {
			t.VirtIO.State = ""
		}
		d.Channels[i].Source = impliedSource(d.Channels[i].Source)
	}
	for i := range d.Serials {
		d.Serials[i].Source = impliedSource(d.Serials[i].Source)
	}
	for i := range d.RedirDevs {
		d.RedirDevs[i].Source = impliedSource(d.RedirDevs[i].Source)
	}
	for i := range d.Inputs {
		if src := d.Inputs[i].Source; src != nil && reflect.ValueOf(*src).IsZero() {
			d.Inputs[i].Source = nil
		}
	}
	for i := range d.Disks {
		disk := &d.Disks[i]
		// a cdrom is read-only whether or not <readonly/> says so
		if disk.Device == "cdrom" && disk.ReadOnly != nil {
			disk.ReadOnly = nil
		}
		defaultString(&disk.Device, "disk")
		if drv := disk.Driver; drv != nil {
			defaultString(&drv.Name, "qemu")
		}
		// libvirt derives the bus from the target's name: vdX is virtio
		if t := disk.Target; t != nil && t.Bus == "virtio" && strings.HasPrefix(t.Dev, "vd") {
			t.Bus = ""
		}
	}
	for i := range d.TPMs {
		if b := d.TPMs[i].Backend; b != nil && b.Emulator != nil && d.TPMs[i].Model == "tpm-crb" {
			defaultString(&b.Emulator.Version, "2.0")
		}
	}
	for i := range d.Graphics {
		g := &d.Graphics[i]
		if s := g.Spice; s != nil {
			s.Listeners = emptyListeners(s.Listeners)
			if s.AutoPort == "yes" || s.AutoPort == "" {
				if s.Port == -1 {
					s.Port = 0
				}
				if s.TLSPort == -1 {
					s.TLSPort = 0
				}
			}
			defaultString(&s.AutoPort, "yes")
		}
		if v := g.VNC; v != nil {
			v.Listeners = emptyListeners(v.Listeners)
			if v.Port == -1 && (v.AutoPort == "yes" || v.AutoPort == "") {
				v.Port = 0 // libvirt's "pick a port"
			}
			defaultString(&v.AutoPort, "yes")
		}
	}
	for i := range d.Videos {
		if m := d.Videos[i].Model; m.Heads == 1 {
			d.Videos[i].Model.Heads = 0
			defaultString(&d.Videos[i].Model.Primary, "yes")
		}
	}
	for i := range d.Interfaces {
		d.Interfaces[i].MAC = nil // libvirt makes one up (52:54:00:...), and keeps it
	}
}

// impliedSource drops a character device's source when its type says all
// of it: a pty, a spicevmc channel, a unix socket whose path libvirt picks.
func impliedSource(src *libvirtxml.DomainChardevSource) *libvirtxml.DomainChardevSource {
	switch {
	case src == nil:
		return nil
	case src.Pty != nil && src.Pty.Path == "":
		return nil
	case src.SpiceVMC != nil:
		return nil
	case src.UNIX != nil && src.UNIX.Path == "" && (src.UNIX.Mode == "" || src.UNIX.Mode == "bind") && src.UNIX.Reconnect == nil:
		return nil
	}
	return src
}

// implicitControllers are the controller types libvirt adds by itself
// (the machine's buses, the USB controller, virtio-serial for channels).
var implicitControllers = map[string]bool{"pci": true, "usb": true, "sata": true, "ide": true, "virtio-serial": true}

func allImplicitControllers(cs []libvirtxml.DomainController) bool {
	for _, c := range cs {
		if !implicitControllers[c.Type] || (c.Type == "usb" && c.Model == "none") {
			return false
		}
	}
	return true
}

// emptyListeners drops the listen element libvirt adds for an address-less
// display (type address, no address).
func emptyListeners(ls []libvirtxml.DomainGraphicListener) []libvirtxml.DomainGraphicListener {
	if len(ls) == 1 && ls[0].Address != nil && ls[0].Address.Address == "" {
		return nil
	}
	return ls
}

// defaultString clears *s when it holds libvirt's default.
func defaultString(s *string, def string) {
	if *s == def {
		*s = ""
	}
}

// dropAddresses clears every Address and Alias field of the devices: libvirt
// assigns them (PCI slots, drive units, serial ports).
func dropAddresses(v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Slice:
			for j := 0; j < f.Len(); j++ {
				clearAddress(f.Index(j))
			}
		case reflect.Ptr:
			if !f.IsNil() && f.Elem().Kind() == reflect.Struct {
				clearAddress(f.Elem())
			}
		}
	}
}

func clearAddress(dev reflect.Value) {
	if dev.Kind() != reflect.Struct {
		return
	}
	for _, name := range []string{"Address", "Alias"} {
		if f := dev.FieldByName(name); f.IsValid() && f.Kind() == reflect.Ptr && f.CanSet() {
			f.Set(reflect.Zero(f.Type()))
		}
	}
}
