package libvirtops

import (
	"context"
	"fmt"
	"sort"

	"github.com/digitalocean/go-libvirt"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Node is the adapter for the host itself: its CPUs, memory and devices.
type Node struct{ c *libvirtconn.Client }

// Nodes returns the node adapter on this connection.
func Nodes(c *libvirtconn.Client) Node { return Node{c: c} }

// NodeInfo is virNodeGetInfo with the host capabilities.
type NodeInfo struct {
	CPUModel                             string // the kernel's CPU architecture name
	MemoryKiB                            uint64
	CPUs, Nodes, Sockets, Cores, Threads int32
	CapsXML                              string
}

// Info reads the host's CPU and memory figures and its capabilities.
func (n Node) Info(ctx context.Context) (*NodeInfo, error) {
	var info NodeInfo
	var model [32]int8
	err := n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		model, info.MemoryKiB, info.CPUs, _, info.Nodes, info.Sockets, info.Cores, info.Threads, err = l.NodeGetInfo()
		if err != nil {
			return fmt.Errorf("virNodeGetInfo: %w", err)
		}
		info.CapsXML, err = l.ConnectGetCapabilities()
		if err != nil {
			return fmt.Errorf("reading host capabilities: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, libvirtconn.WrapError(err)
	}
	info.CPUModel = int8String(model[:])
	return &info, nil
}

// int8String reads the NUL-terminated C string of a fixed-size RPC field.
func int8String(a []int8) string {
	b := make([]byte, 0, len(a))
	for _, c := range a {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}

// nodeDeviceCaps are libvirt's list flags of the node device capabilities.
var nodeDeviceCaps = map[string]libvirt.ConnectListAllNodeDeviceFlags{
	"system":       libvirt.ConnectListNodeDevicesCapSystem,
	"pci":          libvirt.ConnectListNodeDevicesCapPciDev,
	"usb_device":   libvirt.ConnectListNodeDevicesCapUsbDev,
	"usb":          libvirt.ConnectListNodeDevicesCapUsbInterface,
	"net":          libvirt.ConnectListNodeDevicesCapNet,
	"scsi_host":    libvirt.ConnectListNodeDevicesCapScsiHost,
	"scsi_target":  libvirt.ConnectListNodeDevicesCapScsiTarget,
	"scsi":         libvirt.ConnectListNodeDevicesCapScsi,
	"storage":      libvirt.ConnectListNodeDevicesCapStorage,
	"fc_host":      libvirt.ConnectListNodeDevicesCapFcHost,
	"vports":       libvirt.ConnectListNodeDevicesCapVports,
	"scsi_generic": libvirt.ConnectListNodeDevicesCapScsiGeneric,
	"drm":          libvirt.ConnectListNodeDevicesCapDrm,
	"mdev_types":   libvirt.ConnectListNodeDevicesCapMdevTypes,
	"mdev":         libvirt.ConnectListNodeDevicesCapMdev,
	"ccw":          libvirt.ConnectListNodeDevicesCapCcwDev,
	"css":          libvirt.ConnectListNodeDevicesCapCssDev,
	"vdpa":         libvirt.ConnectListNodeDevicesCapVdpa,
	"ap_card":      libvirt.ConnectListNodeDevicesCapApCard,
	"ap_queue":     libvirt.ConnectListNodeDevicesCapApQueue,
	"ap_matrix":    libvirt.ConnectListNodeDevicesCapApMatrix,
	"vpd":          libvirt.ConnectListNodeDevicesCapVpd,
	"ccwgroup":     libvirt.ConnectListNodeDevicesCapCcwgroupDev,
	"ccw_group":    libvirt.ConnectListNodeDevicesCapCcwgroupDev,
}

// NodeDeviceCapabilities are the capability names Devices filters by, sorted.
func NodeDeviceCapabilities() []string {
	names := make([]string, 0, len(nodeDeviceCaps))
	for n := range nodeDeviceCaps {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Devices lists the names of the host's devices with the capability ("":
// all), sorted.
func (n Node) Devices(ctx context.Context, capability string) ([]string, error) {
	var flags libvirt.ConnectListAllNodeDeviceFlags
	if capability != "" {
		f, ok := nodeDeviceCaps[capability]
		if !ok {
			return nil, fmt.Errorf("unknown node device capability %q", capability)
		}
		flags = f
	}
	var names []string
	err := n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		devs, _, err := l.ConnectListAllNodeDevices(1, uint32(flags))
		if err != nil {
			return err
		}
		names = names[:0]
		for _, dev := range devs {
			names = append(names, dev.Name)
		}
		return nil
	})
	if err != nil {
		return nil, libvirtconn.WrapError(err)
	}
	sort.Strings(names)
	return names, nil
}

// DeviceXML reads the XML of the device called name.
func (n Node) DeviceXML(ctx context.Context, name string) (string, error) {
	var doc string
	err := n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		doc, err = l.NodeDeviceGetXMLDesc(name, 0)
		return err
	})
	return doc, libvirtconn.WrapError(err)
}
