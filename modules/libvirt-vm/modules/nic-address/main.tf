# Picks the address of one NIC out of what
# data.libvirt_domain_interface_addresses reports. It is a module of its own so
# that the selection can be tested with plain input values (mocking a
# list-nested data source attribute is not supported by terraform test).

terraform {
  required_version = ">= 1.9.0"
}

variable "interfaces" {
  description = "The interfaces attribute of data.libvirt_domain_interface_addresses (null or empty before the guest has an address)."
  type = list(object({
    name   = optional(string)
    hwaddr = optional(string)
    addrs = optional(list(object({
      type = optional(string)
      addr = optional(string)
    })), [])
  }))
  default = []
}

variable "mac_address" {
  description = "MAC of the NIC whose address is wanted; null or \"\" takes the first interface."
  type        = string
  default     = null
}

locals {
  interfaces = coalesce(var.interfaces, [])
  mac        = lower(coalesce(var.mac_address, "-"))
  matching   = [for i in local.interfaces : i if lower(coalesce(i.hwaddr, "")) == local.mac]
  interface  = length(local.matching) > 0 ? local.matching[0] : (local.mac == "-" && length(local.interfaces) > 0 ? local.interfaces[0] : null)
  ipv4       = local.interface == null ? [] : [for a in coalesce(local.interface.addrs, []) : a.addr if a.type == "ipv4"]
}

output "ip_address" {
  description = "First IPv4 address of the selected interface, or null."
  value       = length(local.ipv4) > 0 ? local.ipv4[0] : null
}

output "mac_address" {
  description = "MAC of the selected interface (lowercase), or null."
  value       = local.interface == null ? null : lower(local.interface.hwaddr)
}
