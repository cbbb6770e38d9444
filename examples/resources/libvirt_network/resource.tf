# A NAT network for a small cluster: guests get fixed addresses through DHCP
# reservations and resolve each other by name through libvirt's dnsmasq.
locals {
  cidr = "10.17.3.0/24"
  nodes = {
    cp1     = { mac = "52:54:00:17:03:0a", ip = cidrhost(local.cidr, 10) }
    worker1 = { mac = "52:54:00:17:03:14", ip = cidrhost(local.cidr, 20) }
  }
}

resource "libvirt_network" "cluster" {
  name      = "cluster"
  autostart = true # start it with libvirtd
  running   = true # the default; false keeps it defined but stopped
  forward   = { mode = "nat" }
  domain    = { name = "cluster.local" }

  ips = [{
    address = cidrhost(local.cidr, 1)
    prefix  = 24
    dhcp = {
      ranges = [{ start = cidrhost(local.cidr, 100), end = cidrhost(local.cidr, 200) }]
      # Adding, changing or removing reservations is applied to the running
      # network (virNetworkUpdate): no restart, guests stay connected.
      hosts = [for name, n in local.nodes : { mac = n.mac, ip = n.ip, name = name }]
    }
  }]

  dns = {
    enable = "yes"
    # DNS host entries are applied live as well.
    host = [for name, n in local.nodes : { ip = n.ip, hostnames = [{ hostname = name }] }]
  }

  # Any other change (forward mode, DHCP range, addresses, domain...) redefines
  # and restarts the network; the plan warns about it, because libvirt does not
  # reattach running guests' interfaces to the recreated bridge. Changing name
  # or uuid replaces the network. Destroying it fails while running domains use
  # it, and the error names them.
}

# Guests refer to the network by name:
#   devices = { interfaces = [{ source = { network = { network = libvirt_network.cluster.name } } }] }
