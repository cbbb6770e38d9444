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
  description = "First IPv4 address reported for the NIC by address_source; null until the guest has one."
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
