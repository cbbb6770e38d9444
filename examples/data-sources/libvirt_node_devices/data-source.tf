# Every PCI device of the libvirt host, e.g. "pci_0000_01_00_0".
data "libvirt_node_devices" "pci" {
  capability = "pci"
}

# Without capability: every device (system, PCI, USB, net, storage, ...).
data "libvirt_node_devices" "all" {}

output "pci_devices" {
  value = data.libvirt_node_devices.pci.devices
}
