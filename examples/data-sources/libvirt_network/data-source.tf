# The distribution's NAT network, made outside this configuration: look it up
# by name (or by uuid; exactly one of the two).
data "libvirt_network" "default" {
  name = "default"
}

# Every attribute of the libvirt_network resource is there, read-only, as
# libvirt holds the persistent definition.
output "default_network" {
  value = {
    uuid    = data.libvirt_network.default.uuid
    address = data.libvirt_network.default.ips[0].address
    prefix  = data.libvirt_network.default.ips[0].prefix
    dhcp    = data.libvirt_network.default.ips[0].dhcp.ranges
    running = data.libvirt_network.default.running
  }
}

# The same network by UUID.
data "libvirt_network" "by_uuid" {
  uuid = "2e1d5e5c-2a1c-4f0e-8b1e-8a4f0c3d9b71"
}
