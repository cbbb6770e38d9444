locals {
  vms = {
    for suffix, vm in var.vms : "${var.name_prefix}-${suffix}" => merge(vm, {
      ip  = cidrhost(var.network_cidr, vm.host)
      mac = format("52:54:00:6c:%02x:%02x", floor(vm.host / 256) % 256, vm.host % 256)
    })
  }
  prefix = tonumber(split("/", var.network_cidr)[1])
}

# Isolated network (no forward element): DHCP with one reservation per VM,
# so every VM's address is known before it boots.
resource "libvirt_network" "lab" {
  name      = var.name_prefix
  autostart = false
  domain    = { name = "${var.name_prefix}.local" }

  ips = [{
    address = cidrhost(var.network_cidr, 1)
    prefix  = local.prefix
    dhcp = {
      ranges = [{ start = cidrhost(var.network_cidr, 100), end = cidrhost(var.network_cidr, 199) }]
      hosts  = [for name, vm in local.vms : { mac = vm.mac, ip = vm.ip, name = name }]
    }
  }]
}

# The image is uploaded once; every VM's root disk is a qcow2 overlay on it.
resource "libvirt_volume" "base" {
  name = "${var.name_prefix}-base.qcow2"
  pool = var.pool
  target = {
    format = { type = "qcow2" }
  }
  create = {
    content = { url = var.guest_dir == null ? var.image_url : "${var.guest_dir}/root.qcow2" }
  }
}

module "vm" {
  source   = "../../modules/libvirt-vm"
  for_each = local.vms

  name          = each.key
  pool          = var.pool
  domain_type   = var.domain_type
  memory_mib    = each.value.memory_mib
  vcpus         = each.value.vcpus
  disk_size_gib = each.value.disk_size_gib
  network_name  = libvirt_network.lab.name
  mac_address   = each.value.mac

  base_volume = libvirt_volume.base
  kernel      = var.guest_dir == null ? null : "${var.guest_dir}/vmlinuz"
  initrd      = var.guest_dir == null ? null : "${var.guest_dir}/initrd.img"
  cmdline     = var.guest_dir == null ? null : "root=/dev/vda rw console=ttyS0 net.ifnames=0"

  ssh_authorized_keys = var.ssh_authorized_keys
}
