output "vms" {
  description = "Each VM: id, the address the module read from libvirt, the reserved address and the MAC."
  value = {
    for name, vm in module.vm : name => {
      id          = vm.id
      ip_address  = vm.ip_address
      reserved_ip = local.vms[name].ip
      mac_address = vm.mac_address
      disk_path   = vm.disk_path
    }
  }
}

output "network_name" {
  description = "Name of the lab network."
  value       = libvirt_network.lab.name
}

output "base_volume" {
  description = "Path of the one base volume every VM's root overlay is backed by."
  value       = libvirt_volume.base.path
}
