# One device, by the name libvirt_node_devices (or `virsh nodedev-list`) gives.
variable "gpu" {
  type    = string
  default = "pci_0000_03_00_0"
}

data "libvirt_node_device_info" "gpu" {
  name = var.gpu
}

# Hand it to a guest: the PCI address comes from the device itself.
# managed = true lets libvirt bind it to vfio-pci while the guest runs.
resource "libvirt_domain" "gpu_guest" {
  name        = "gpu-guest"
  type        = "kvm"
  memory      = 8192
  memory_unit = "MiB"
  vcpu        = 4
  os          = { type = "hvm", type_machine = "q35" }
  devices = {
    hostdevs = [{
      managed = true
      subsys_pci = {
        source = {
          address = {
            domain   = data.libvirt_node_device_info.gpu.capability.domain
            bus      = data.libvirt_node_device_info.gpu.capability.bus
            slot     = data.libvirt_node_device_info.gpu.capability.slot
            function = data.libvirt_node_device_info.gpu.capability.function
          }
        }
      }
    }]
  }
}

# Details of every PCI device, to find candidates: NVIDIA (vendor 0x10de)
# display controllers (class 0x03xxxx) and their IOMMU groups.
data "libvirt_node_devices" "pci" {
  capability = "pci"
}

data "libvirt_node_device_info" "pci" {
  for_each = data.libvirt_node_devices.pci.devices
  name     = each.value
}

output "nvidia_gpus" {
  value = {
    for name, d in data.libvirt_node_device_info.pci : name => {
      iommu_group = d.capability.iommu_group
      driver      = d.driver
    }
    if d.capability.vendor_id == "0x10de" && startswith(coalesce(d.capability.class, "-"), "0x03")
  }
}
