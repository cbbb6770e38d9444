output "id" {
  description = "UUID of the domain."
  value       = libvirt_domain.this.id
}

output "name" {
  description = "Name of the domain."
  value       = libvirt_domain.this.name
}

output "mac_address" {
  description = "MAC address of the NIC (lowercase)."
  value       = local.nic_mac != null ? local.nic_mac : module.address.mac_address
}

output "ip_address" {
  description = "First IPv4 address reported for the NIC by address_source; null until the guest has one, and always null with host (no address lookup on a named host yet)."
  value       = module.address.ip_address
}

output "disk_path" {
  description = "Host path of the root disk (the qcow2 overlay)."
  value       = libvirt_volume.root.path
}

output "cloudinit_volume" {
  description = "Name of the cloud-init ISO volume in the pool."
  value       = libvirt_volume.cloudinit.name
}

output "mac_addresses" {
  description = "MAC address of every NIC, in network_interfaces order (lowercase; null for a libvirt-chosen MAC the provider has not read yet)."
  value       = local.nic_macs
}

output "data_disk_paths" {
  description = "Host paths of the data disks, in data_disks order."
  value       = libvirt_volume.data[*].path
}

output "base_path" {
  description = "Path of the base volume the root overlay is backed by (the uploaded image's, base_volume's path, or base_volume_name)."
  value       = local.base_path
}
