# The domain: its UUID or name (for example libvirt_domain.web1.id).
variable "domain" {
  type    = string
  default = "web1"
}

# The address the DHCP server of a libvirt network leased to the domain.
# `wait` polls until there is one, so the apply that creates the domain
# already knows its IP.
data "libvirt_domain_interface_addresses" "web1" {
  domain = var.domain
  source = "lease"
  wait   = { timeout = "5m", until = "ipv4" }
}

output "web1_ip" {
  value = data.libvirt_domain_interface_addresses.web1.ipv4_addresses[0]
}

# Through the QEMU guest agent (the domain needs an org.qemu.guest_agent.0
# channel and qemu-guest-agent in the guest): also sees addresses on bridged
# interfaces that no libvirt DHCP server handed out. `any` tries lease, then
# agent, then arp.
data "libvirt_domain_interface_addresses" "web1_agent" {
  domain = var.domain
  source = "agent"
  wait   = { timeout = "10m", until = "all_interfaces" }
}
