package provider

import (
	"context"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// The three node data sources read the libvirt host itself: its topology
// (libvirt_node_info), its devices (libvirt_node_devices) and one device's
// details (libvirt_node_device_info), with dmacvicar/libvirt 0.9.7's names.

var (
	_ datasource.DataSource              = (*nodeInfoDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*nodeInfoDataSource)(nil)
	_ datasource.DataSource              = (*nodeDevicesDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*nodeDevicesDataSource)(nil)
	_ datasource.DataSource              = (*nodeDeviceInfoDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*nodeDeviceInfoDataSource)(nil)
)

// ---- libvirt_node_info ------------------------------------------------------

// NewNodeInfoDataSource returns data.libvirt_node_info.
func NewNodeInfoDataSource() datasource.DataSource { return &nodeInfoDataSource{} }

type nodeInfoDataSource struct {
	client *libvirtconn.Client
}

type nodeInfoModel struct {
	ID                types.String `tfsdk:"id"`
	CPUModel          types.String `tfsdk:"cpu_model"`
	CPUModelName      types.String `tfsdk:"cpu_model_name"`
	CPUSockets        types.Int64  `tfsdk:"cpu_sockets"`
	CPUCoresPerSocket types.Int64  `tfsdk:"cpu_cores_per_socket"`
	CPUThreadsPerCore types.Int64  `tfsdk:"cpu_threads_per_core"`
	CPUCoresTotal     types.Int64  `tfsdk:"cpu_cores_total"`
	MemoryTotalKB     types.Int64  `tfsdk:"memory_total_kb"`
	NUMANodes         types.Int64  `tfsdk:"numa_nodes"`
}

func (d *nodeInfoDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_info"
}

func (d *nodeInfoDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Fetches information about the libvirt host node: CPU model, processor topology, memory and NUMA nodes, " +
			"as libvirt's virNodeGetInfo (`virsh nodeinfo`) and the host capabilities (`virsh capabilities`) report them.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:    true,
				Description: "UUID of the host (`<host><uuid>` of the capabilities). dmacvicar/libvirt 0.9.7 used a hash of the values instead.",
			},
			"cpu_model": schema.StringAttribute{
				Computed:    true,
				Description: "CPU model as virNodeGetInfo reports it, which is the architecture (e.g., `x86_64`): `virsh nodeinfo`'s \"CPU model\".",
			},
			"cpu_model_name": schema.StringAttribute{
				Computed: true,
				Description: "Name of the host CPU model in libvirt's CPU map (e.g., `Broadwell`, `EPYC-Rome`): `<host><cpu><model>` of the capabilities. " +
					"Empty when libvirt has no model for the host CPU. Not in dmacvicar/libvirt 0.9.7.",
			},
			"cpu_sockets": schema.Int64Attribute{
				Computed: true,
				Description: "Number of CPU sockets, as `virsh nodeinfo` reports it: libvirt counts sockets per NUMA node, so on a host with several " +
					"NUMA nodes the host has `cpu_sockets * numa_nodes` sockets.",
			},
			"cpu_cores_per_socket": schema.Int64Attribute{
				Computed:    true,
				Description: "Number of CPU cores per socket.",
			},
			"cpu_threads_per_core": schema.Int64Attribute{
				Computed:    true,
				Description: "Number of threads per CPU core (e.g., 2 for hyper-threading).",
			},
			"cpu_cores_total": schema.Int64Attribute{
				Computed:    true,
				Description: "Total number of logical CPUs available on the host (`virsh nodeinfo`'s \"CPU(s)\").",
			},
			"memory_total_kb": schema.Int64Attribute{
				Computed:    true,
				Description: "Total memory available on the host in kilobytes (KiB, `virsh nodeinfo`'s \"Memory size\").",
			},
			"numa_nodes": schema.Int64Attribute{
				Computed: true,
				Description: "Number of NUMA nodes on the host: the cells of the capabilities' `<host><topology>`, which stays right where " +
					"virNodeGetInfo reports 1 for an unusual topology; virNodeGetInfo's count when the capabilities list no cells.",
			},
		},
	}
}

func (d *nodeInfoDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = treeresource.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *nodeInfoDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg nodeInfoModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() || !treeresource.RequireClient(d.client, &resp.Diagnostics) {
		return
	}
	info, err := libvirtops.Nodes(d.client).Info(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read host node information", err.Error())
		return
	}
	var caps libvirtxml.Caps
	if err := caps.Unmarshal(info.CapsXML); err != nil {
		resp.Diagnostics.AddError("Cannot parse host capabilities", err.Error())
		return
	}
	numa := int64(info.Nodes)
	if caps.Host.NUMA != nil && caps.Host.NUMA.Cells != nil && caps.Host.NUMA.Cells.Num > 0 {
		numa = int64(caps.Host.NUMA.Cells.Num)
	}
	modelName := ""
	if caps.Host.CPU != nil {
		modelName = caps.Host.CPU.Model
	}

	state := nodeInfoModel{
		ID:                types.StringValue(caps.Host.UUID),
		CPUModel:          types.StringValue(info.CPUModel),
		CPUModelName:      types.StringValue(modelName),
		CPUSockets:        types.Int64Value(int64(info.Sockets)),
		CPUCoresPerSocket: types.Int64Value(int64(info.Cores)),
		CPUThreadsPerCore: types.Int64Value(int64(info.Threads)),
		CPUCoresTotal:     types.Int64Value(int64(info.CPUs)),
		MemoryTotalKB:     types.Int64Value(int64(info.MemoryKiB)),
		NUMANodes:         types.Int64Value(numa),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// ---- libvirt_node_devices ---------------------------------------------------

// NewNodeDevicesDataSource returns data.libvirt_node_devices.
func NewNodeDevicesDataSource() datasource.DataSource { return &nodeDevicesDataSource{} }

type nodeDevicesDataSource struct {
	client *libvirtconn.Client
}

type nodeDevicesModel struct {
	ID         types.String `tfsdk:"id"`
	Capability types.String `tfsdk:"capability"`
	Devices    types.Set    `tfsdk:"devices"`
}

func nodeDeviceCapNames() []string { return libvirtops.NodeDeviceCapabilities() }

func (d *nodeDevicesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_devices"
}

func (d *nodeDevicesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Enumerates devices available on the libvirt host node (`virsh nodedev-list --all`), optionally only those with one capability: " +
			"PCI devices for passthrough, USB devices, network interfaces, storage devices, and more. Feed a name to `libvirt_node_device_info` for its details.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:    true,
				Description: "Internal identifier for this data source: the capability, or `all` without one.",
			},
			"capability": schema.StringAttribute{
				Optional: true,
				Description: "Filter devices by capability type, as `virsh nodedev-list --cap` does. Valid values: " +
					"`system` (host system information), `pci` (PCI devices), `usb_device` (USB devices), `usb` (USB interfaces), " +
					"`net` (network interfaces), `scsi_host`, `scsi_target`, `scsi`, `storage`, `fc_host`, `vports`, `scsi_generic`, " +
					"`drm` (DRM devices), `mdev_types`, `mdev` (mediated devices), `vdpa`, `vpd`, and on s390 `ccw`, `css`, `ap_queue`, " +
					"`ap_card`, `ap_matrix`, `ccwgroup` (also spelled `ccw_group`, as in dmacvicar/libvirt 0.9.7). " +
					"Anything else is rejected at plan time. If not specified, all devices are returned.",
				Validators: []validator.String{stringvalidator.OneOf(nodeDeviceCapNames()...)},
			},
			"devices": schema.SetAttribute{
				Computed:    true,
				ElementType: types.StringType,
				Description: "Set of device names, active and inactive (defined mediated devices). Device names are in libvirt's internal format (e.g., `pci_0000_00_1f_2`, `net_eth0_00_11_22_33_44_55`).",
			},
		},
	}
}

func (d *nodeDevicesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = treeresource.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *nodeDevicesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg nodeDevicesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() || !treeresource.RequireClient(d.client, &resp.Diagnostics) {
		return
	}
	capability := cfg.Capability.ValueString()
	id := "all"
	if capability != "" {
		if !slices.Contains(nodeDeviceCapNames(), capability) { // the validator already said so; kept for direct calls
			resp.Diagnostics.AddAttributeError(path.Root("capability"), "Unknown capability",
				fmt.Sprintf("capability %q is not one of %s.", capability, strings.Join(nodeDeviceCapNames(), ", ")))
			return
		}
		id = capability
	}
	names, err := libvirtops.Nodes(d.client).Devices(ctx, capability)
	if err != nil {
		resp.Diagnostics.AddError("Cannot list host node devices", err.Error())
		return
	}
	set, diags := types.SetValueFrom(ctx, types.StringType, names)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg.ID = types.StringValue(id)
	cfg.Devices = set
	resp.Diagnostics.Append(resp.State.Set(ctx, cfg)...)
}

// ---- libvirt_node_device_info -----------------------------------------------

// NewNodeDeviceInfoDataSource returns data.libvirt_node_device_info.
func NewNodeDeviceInfoDataSource() datasource.DataSource { return &nodeDeviceInfoDataSource{} }

type nodeDeviceInfoDataSource struct {
	client *libvirtconn.Client
}

type nodeDeviceInfoModel struct {
	ID         types.String               `tfsdk:"id"`
	Name       types.String               `tfsdk:"name"`
	Path       types.String               `tfsdk:"path"`
	Parent     types.String               `tfsdk:"parent"`
	Driver     types.String               `tfsdk:"driver"`
	XML        types.String               `tfsdk:"xml"`
	Capability *nodeDeviceCapabilityModel `tfsdk:"capability"`
}

// nodeDeviceCapabilityModel is 0.9.7's flat capability object: the fields a
// capability type has are set, all others are null.
type nodeDeviceCapabilityModel struct {
	Type             types.String `tfsdk:"type"`
	Domain           types.Int64  `tfsdk:"domain"`
	Bus              types.Int64  `tfsdk:"bus"`
	Slot             types.Int64  `tfsdk:"slot"`
	Function         types.Int64  `tfsdk:"function"`
	Class            types.String `tfsdk:"class"`
	ProductID        types.String `tfsdk:"product_id"`
	ProductName      types.String `tfsdk:"product_name"`
	VendorID         types.String `tfsdk:"vendor_id"`
	VendorName       types.String `tfsdk:"vendor_name"`
	IOMMUGroup       types.Int64  `tfsdk:"iommu_group"`
	DeviceNumber     types.Int64  `tfsdk:"device_number"`
	Interface        types.String `tfsdk:"interface"`
	Address          types.String `tfsdk:"address"`
	LinkSpeed        types.String `tfsdk:"link_speed"`
	LinkState        types.String `tfsdk:"link_state"`
	Block            types.String `tfsdk:"block"`
	DriveType        types.String `tfsdk:"drive_type"`
	Model            types.String `tfsdk:"model"`
	Serial           types.String `tfsdk:"serial"`
	Size             types.Int64  `tfsdk:"size"`
	LogicalBlockSize types.Int64  `tfsdk:"logical_block_size"`
	NumBlocks        types.Int64  `tfsdk:"num_blocks"`
	Host             types.Int64  `tfsdk:"host"`
	Target           types.Int64  `tfsdk:"target"`
	Lun              types.Int64  `tfsdk:"lun"`
	SCSIType         types.String `tfsdk:"scsi_type"`
}

func (d *nodeDeviceInfoDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_device_info"
}

func (d *nodeDeviceInfoDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.Attribute { return schema.StringAttribute{Computed: true, Description: desc} }
	num := func(desc string) schema.Attribute { return schema.Int64Attribute{Computed: true, Description: desc} }
	resp.Schema = schema.Schema{
		Description: "Fetches detailed information about one libvirt host node device (`virsh nodedev-dumpxml`): " +
			"PCI devices for passthrough (domain, bus, slot, function, IOMMU group, driver), USB devices, network interfaces, " +
			"storage devices and SCSI devices. An unknown `name` is an error.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:    true,
				Description: "Internal identifier for this data source: the device name.",
			},
			"name": schema.StringAttribute{
				Required:    true,
				Description: "Device name from `libvirt_node_devices` data source (e.g., `pci_0000_00_1f_2`).",
				Validators:  []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"path":   str("Sysfs path to the device."),
			"parent": str("Parent device name in the device hierarchy."),
			"driver": str("Name of the host driver bound to the device (e.g., `vfio-pci`, `e1000e`); null when none is. Not in dmacvicar/libvirt 0.9.7."),
			"xml":    str("The device's XML as libvirt reports it, for details the flat `capability` object does not carry. Not in dmacvicar/libvirt 0.9.7."),
			"capability": schema.SingleNestedAttribute{
				Computed: true,
				Description: "Device capability details. Fields populated depend on the device type; the others are null. " +
					"`pci`: domain, bus, slot, function, class, product/vendor id and name, iommu_group. " +
					"`usb_device`: bus, device_number, product/vendor id and name. `net`: interface, address, link_speed, link_state. " +
					"`storage`: block, drive_type, model, vendor_name, serial, size, logical_block_size, num_blocks (the storage bus is a name such as `ata`, " +
					"so the numeric `bus` stays null). `scsi`: host, bus, target, lun, scsi_type. `scsi_host`: host. `mdev`: model (the mdev type), iommu_group. " +
					"`system`: product_name, vendor_name (of the hardware). Other types set `type` only.",
				Attributes: map[string]schema.Attribute{
					"type":               str("Capability type (e.g., `pci`, `usb_device`, `net`, `storage`), as in the device XML's `<capability type>`."),
					"domain":             num("PCI domain number."),
					"bus":                num("PCI/USB bus number."),
					"slot":               num("PCI slot number."),
					"function":           num("PCI function number."),
					"class":              str("PCI class code (e.g., `0x030000` for VGA)."),
					"product_id":         str("Product ID (vendor-specific identifier)."),
					"product_name":       str("Product name or description."),
					"vendor_id":          str("Vendor ID."),
					"vendor_name":        str("Vendor name."),
					"iommu_group":        num("IOMMU group number (for PCI passthrough)."),
					"device_number":      num("USB device number."),
					"interface":          str("Network interface name (e.g., `eth0`)."),
					"address":            str("MAC address or device address."),
					"link_speed":         str("Network link speed."),
					"link_state":         str("Network link state (e.g., `up`, `down`)."),
					"block":              str("Block device path (e.g., `/dev/sda`)."),
					"drive_type":         str("Drive type (e.g., `disk`, `cdrom`)."),
					"model":              str("Device model name."),
					"serial":             str("Device serial number."),
					"size":               num("Storage capacity in bytes."),
					"logical_block_size": num("Logical block size in bytes."),
					"num_blocks":         num("Number of blocks."),
					"host":               num("SCSI host number."),
					"target":             num("SCSI target number."),
					"lun":                num("SCSI LUN (Logical Unit Number)."),
					"scsi_type":          str("SCSI device type."),
				},
			},
		},
	}
}

func (d *nodeDeviceInfoDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = treeresource.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *nodeDeviceInfoDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg nodeDeviceInfoModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() || !treeresource.RequireClient(d.client, &resp.Diagnostics) {
		return
	}
	name := cfg.Name.ValueString()
	doc, err := libvirtops.Nodes(d.client).DeviceXML(ctx, name)
	if err != nil {
		if libvirtconn.IsNotFound(err) {
			resp.Diagnostics.AddAttributeError(path.Root("name"), "No such node device",
				fmt.Sprintf("libvirt has no node device named %q (list them with the libvirt_node_devices data source or `virsh nodedev-list`): %v", name, err))
			return
		}
		resp.Diagnostics.AddError("Cannot read node device "+name, err.Error())
		return
	}
	var dev libvirtxml.NodeDevice
	if err := dev.Unmarshal(doc); err != nil {
		resp.Diagnostics.AddError("Cannot parse node device XML of "+name, err.Error())
		return
	}
	capType, err := nodeDeviceCapType(doc)
	if err != nil {
		resp.Diagnostics.AddError("Cannot parse node device XML of "+name, err.Error())
		return
	}

	cfg.ID = types.StringValue(name)
	cfg.Path = types.StringValue(dev.Path)
	cfg.Parent = types.StringValue(dev.Parent)
	cfg.Driver = types.StringNull()
	if dev.Driver != nil && dev.Driver.Name != "" {
		cfg.Driver = types.StringValue(dev.Driver.Name)
	}
	cfg.XML = types.StringValue(doc)
	cfg.Capability = nodeDeviceCapability(capType, dev.Capability)
	resp.Diagnostics.Append(resp.State.Set(ctx, cfg)...)
}

// nodeDeviceCapType is the type attribute of the device's top-level
// capability; libvirtxml silently skips types it does not know (vdpa, vpd).
func nodeDeviceCapType(doc string) (string, error) {
	var top struct {
		Capability []struct {
			Type string `xml:"type,attr"`
		} `xml:"capability"`
	}
	if err := xml.Unmarshal([]byte(doc), &top); err != nil {
		return "", err
	}
	if len(top.Capability) == 0 {
		return "", fmt.Errorf("the device has no <capability>")
	}
	return top.Capability[0].Type, nil
}

func optString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func optUint(p *uint) types.Int64 {
	if p == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*p))
}

// nodeDeviceCapability flattens c into 0.9.7's capability object.
func nodeDeviceCapability(capType string, c libvirtxml.NodeDeviceCapability) *nodeDeviceCapabilityModel {
	m := &nodeDeviceCapabilityModel{Type: types.StringValue(capType)}
	switch {
	case c.PCI != nil:
		p := c.PCI
		m.Domain, m.Bus, m.Slot, m.Function = optUint(p.Domain), optUint(p.Bus), optUint(p.Slot), optUint(p.Function)
		m.Class = optString(p.Class)
		m.ProductID, m.ProductName = optString(p.Product.ID), optString(p.Product.Name)
		m.VendorID, m.VendorName = optString(p.Vendor.ID), optString(p.Vendor.Name)
		if p.IOMMUGroup != nil {
			m.IOMMUGroup = types.Int64Value(int64(p.IOMMUGroup.Number))
		}
	case c.USBDevice != nil:
		u := c.USBDevice
		m.Bus = types.Int64Value(int64(u.Bus))
		m.DeviceNumber = types.Int64Value(int64(u.Device))
		m.ProductID, m.ProductName = optString(u.Product.ID), optString(u.Product.Name)
		m.VendorID, m.VendorName = optString(u.Vendor.ID), optString(u.Vendor.Name)
	case c.Net != nil:
		n := c.Net
		m.Interface, m.Address = optString(n.Interface), optString(n.Address)
		if n.Link != nil {
			m.LinkSpeed, m.LinkState = optString(n.Link.Speed), optString(n.Link.State)
		}
	case c.Storage != nil:
		s := c.Storage
		m.Block, m.DriveType, m.Model = optString(s.Block), optString(s.DriverType), optString(s.Model)
		m.VendorName, m.Serial = optString(s.Vendor), optString(s.Serial)
		m.Size, m.LogicalBlockSize, m.NumBlocks = optUint(s.Size), optUint(s.LogicalBlockSize), optUint(s.NumBlocks)
	case c.SCSI != nil:
		s := c.SCSI
		m.Host, m.Bus = types.Int64Value(int64(s.Host)), types.Int64Value(int64(s.Bus))
		m.Target, m.Lun = types.Int64Value(int64(s.Target)), types.Int64Value(int64(s.Lun))
		m.SCSIType = optString(s.Type)
	case c.SCSIHost != nil:
		m.Host = types.Int64Value(int64(c.SCSIHost.Host))
	case c.MDev != nil:
		if c.MDev.Type != nil {
			m.Model = optString(c.MDev.Type.ID)
		}
		if c.MDev.IOMMUGroup != nil {
			m.IOMMUGroup = types.Int64Value(int64(c.MDev.IOMMUGroup.Number))
		}
	case c.System != nil:
		m.ProductName = optString(c.System.Product)
		if c.System.Hardware != nil {
			m.VendorName = optString(c.System.Hardware.Vendor)
		}
	}
	return m
}
