# A domain made outside this configuration: look it up by name (or by uuid;
# exactly one of the two).
data "libvirt_domain" "legacy" {
  name = "legacy-vm"
}

# Its persistent definition, with the attributes of the libvirt_domain
# resource, read-only; memory is in the unit libvirt reports (memory_unit,
# KiB).
output "legacy_vm" {
  value = {
    running    = data.libvirt_domain.legacy.running
    memory_kib = data.libvirt_domain.legacy.memory
    vcpus      = data.libvirt_domain.legacy.vcpu
    disks      = [for d in data.libvirt_domain.legacy.devices.disks : d.target.dev]
    macs       = [for i in data.libvirt_domain.legacy.devices.interfaces : i.mac.address]
  }
}

# Its guest addresses are not part of the definition: they come from
# the libvirt_domain_interface_addresses data source.
data "libvirt_domain_interface_addresses" "legacy" {
  domain = data.libvirt_domain.legacy.id
  source = "lease"
}
