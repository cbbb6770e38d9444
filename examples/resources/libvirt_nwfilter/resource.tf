# A network filter that keeps guests away from the host: libvirt's
# clean-traffic filter (no MAC, IP or ARP spoofing), DNS and DHCP to the host
# allowed, anything else to the host's address dropped.
resource "libvirt_nwfilter" "guard" {
  name = "guard-host"
  # chain and priority are optional: "root" and its priority when unset
  chain = "root"

  # The entries are the filter's <rule> and <filterref> elements, in order.
  # Match values are strings, so libvirt variables ($HOST) and hexadecimal
  # values are written as libvirt reads them; a rule's priority is 500 when
  # unset (lower runs first).
  entries = [
    { filter_ref = { filter = "clean-traffic" } },
    { rule = { action = "accept", direction = "out", priority = 100, udp = { dst_ip_addr = "$HOST", dst_port_start = "53" } } },
    { rule = { action = "accept", direction = "out", priority = 100, udp = { dst_port_start = "67" } } },
    { rule = { action = "drop", direction = "out", priority = 200, all = { dst_ip_addr = "$HOST" } } },
  ]

  # Changing the rules redefines the filter in place: libvirt applies them at
  # once to running guests that use it, without restarting them. Changing
  # name or uuid replaces the filter. Destroying it fails while a running
  # guest uses it, and the error names the guest.
}

resource "libvirt_network" "web" {
  name = "web"
  ips  = [{ address = "10.233.20.1", prefix = 24, dhcp = { ranges = [{ start = "10.233.20.100", end = "10.233.20.199" }] } }]
}

resource "libvirt_domain" "web1" {
  name        = "web1"
  type        = "kvm"
  memory      = 1024
  memory_unit = "MiB"
  vcpu        = 1
  os          = { type = "hvm" }

  devices = {
    disks = [{ source = { file = { file = "/var/lib/libvirt/images/web1.qcow2" } }, target = { dev = "vda", bus = "virtio" } }]
    interfaces = [{
      type   = "network"
      model  = { type = "virtio" }
      source = { network = { network = libvirt_network.web.name } }
      # the interface uses the filter; parameters fill its variables (IP,
      # which clean-traffic uses, is learnt by libvirt when not given)
      filter_ref = {
        filter     = libvirt_nwfilter.guard.name
        parameters = [{ name = "HOST", value = "10.233.20.1" }]
      }
    }]
  }
}
