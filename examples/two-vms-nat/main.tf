# Two cloud-init VMs on one NAT network: each gets a fixed MAC, a DHCP
# reservation and a DNS name on the network, a copy-on-write overlay on one
# shared base image and its own NoCloud seed ISO. Their addresses are read from
# the DHCP leases during the apply that creates them.
#
# The shapes follow the 0.8.x -> 0.9.x migration tables (ADR-0016): base image
# via create.content.url, overlays via backing_store, the seed ISO uploaded by
# a libvirt_volume and attached as a read-only cdrom, explicit memory_unit,
# running = true, guest-agent channel, native ips[].dhcp.hosts reservations and
# addresses from data.libvirt_domain_interface_addresses.
terraform {
  required_version = ">= 1.9.0"

  required_providers {
    libvirt = {
      source  = "virtxml/libvirt"
      version = ">= 0.1.0"
    }
  }
}

variable "libvirt_uri" {
  description = "libvirt connection URI, e.g. qemu:///system or qemu+ssh://user@host/system."
  type        = string
  default     = "qemu:///system"
}

variable "pool" {
  description = "Existing storage pool that holds the base image, the overlays and the seed ISOs."
  type        = string
  default     = "default"
}

variable "base_image_url" {
  description = "qcow2 base image: an http(s):// or file:// URL, or a local path on the machine running OpenTofu."
  type        = string
  default     = "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2"
}

variable "domain_type" {
  description = "kvm where hardware virtualization works, qemu (TCG emulation) elsewhere."
  type        = string
  default     = "kvm"

  validation {
    condition     = contains(["kvm", "qemu"], var.domain_type)
    error_message = "domain_type must be \"kvm\" or \"qemu\"."
  }
}

variable "network_cidr" {
  description = "IPv4 subnet of the NAT network; the host is its first address."
  type        = string
  default     = "10.17.3.0/24"
}

variable "ssh_authorized_keys" {
  description = "SSH public keys for the admin user on both VMs."
  type        = list(string)
  default     = []
}

variable "kernel_boot" {
  description = "Direct kernel boot (kernel, initrd, cmdline on the libvirt host) for images without a boot loader; null boots the image's own boot loader."
  type = object({
    kernel  = string
    initrd  = string
    cmdline = string
  })
  default = null
}

provider "libvirt" {
  uri = var.libvirt_uri
}

locals {
  name = "two-vms"

  # host = host number in network_cidr: the DHCP reservation and DNS name.
  vms = {
    web = { mac = "52:54:00:11:03:0a", host = 10, memory = 1024, vcpu = 1 }
    db  = { mac = "52:54:00:11:03:0b", host = 11, memory = 1024, vcpu = 1 }
  }

  prefix = tonumber(split("/", var.network_cidr)[1])
}

resource "libvirt_network" "nat" {
  name      = "${local.name}-nat"
  autostart = true
  forward   = { mode = "nat" }
  domain    = { name = "${local.name}.local" }

  ips = [{
    address = cidrhost(var.network_cidr, 1)
    prefix  = local.prefix
    dhcp = {
      ranges = [{ start = cidrhost(var.network_cidr, 100), end = cidrhost(var.network_cidr, 199) }]
      hosts = [for name, vm in local.vms : {
        mac  = vm.mac
        ip   = cidrhost(var.network_cidr, vm.host)
        name = name
      }]
    }
  }]

  dns = {
    enable = "yes"
    host = [for name, vm in local.vms : {
      ip        = cidrhost(var.network_cidr, vm.host)
      hostnames = [{ hostname = name }]
    }]
  }
}

# One base image, streamed into the pool once; both VMs use it read-only.
resource "libvirt_volume" "base" {
  name   = "${local.name}-base.qcow2"
  pool   = var.pool
  target = { format = { type = "qcow2" } }
  create = { content = { url = var.base_image_url } }
}

# A copy-on-write overlay per VM, grown to 10 GiB (cloud-init grows the root
# filesystem on first boot).
resource "libvirt_volume" "root" {
  for_each = local.vms

  name          = "${local.name}-${each.key}.qcow2"
  pool          = var.pool
  capacity      = 10
  capacity_unit = "GiB"
  target        = { format = { type = "qcow2" } }
  backing_store = { path = libvirt_volume.base.path, format = { type = "qcow2" } }
}

resource "libvirt_cloudinit_disk" "seed" {
  for_each = local.vms

  name = "${local.name}-${each.key}-seed"
  meta_data = yamlencode({
    instance-id    = "${local.name}-${each.key}"
    local-hostname = each.key
  })
  user_data = join("\n", ["#cloud-config", yamlencode({
    users = [{
      name                = "admin"
      sudo                = "ALL=(ALL) NOPASSWD:ALL"
      shell               = "/bin/bash"
      ssh_authorized_keys = var.ssh_authorized_keys
    }]
    packages = ["qemu-guest-agent"]
    runcmd   = [["systemctl", "enable", "--now", "qemu-guest-agent"]]
  })])
  network_config = yamlencode({
    version   = 2
    ethernets = { eth0 = { match = { macaddress = each.value.mac }, set-name = "eth0", dhcp4 = true } }
  })
}

# The seed ISO is written on the machine running OpenTofu; this volume uploads
# it into the pool on the libvirt host. A cloud-init change gives a new path,
# which replaces this volume.
resource "libvirt_volume" "seed" {
  for_each = local.vms

  name   = "${local.name}-${each.key}-seed.iso"
  pool   = var.pool
  create = { content = { url = libvirt_cloudinit_disk.seed[each.key].path } }
}

resource "libvirt_domain" "vm" {
  for_each = local.vms

  name        = "${local.name}-${each.key}"
  type        = var.domain_type
  memory      = each.value.memory
  memory_unit = "MiB" # without a unit libvirt reads KiB
  vcpu        = each.value.vcpu
  running     = true
  autostart   = true

  os = {
    type    = "hvm"
    kernel  = try(var.kernel_boot.kernel, null)
    initrd  = try(var.kernel_boot.initrd, null)
    cmdline = try(var.kernel_boot.cmdline, null)
  }

  devices = {
    disks = [
      {
        source = { volume = { pool = libvirt_volume.root[each.key].pool, volume = libvirt_volume.root[each.key].name } }
        target = { dev = "vda", bus = "virtio" }
        driver = { type = "qcow2" }
      },
      {
        # Read-only SCSI cdrom: cloud kernels often have no SATA/IDE driver.
        device    = "cdrom"
        source    = { volume = { pool = libvirt_volume.seed[each.key].pool, volume = libvirt_volume.seed[each.key].name } }
        target    = { dev = "sda", bus = "scsi" }
        read_only = true
      },
    ]
    controllers = [{ type = "scsi", model = "virtio-scsi" }]
    interfaces = [{
      type   = "network"
      mac    = { address = each.value.mac }
      model  = { type = "virtio" }
      source = { network = { network = libvirt_network.nat.name } }
    }]
    serials  = [{ target = { port = 0 } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
    channels = [{
      source = { unix = {} }
      target = { virt_io = { name = "org.qemu.guest_agent.0" } }
    }]
    graphics = [{ vnc = { listen = "127.0.0.1", auto_port = true } }]
  }
}

# Read during the apply that starts the VMs: waits until each has its lease.
data "libvirt_domain_interface_addresses" "vm" {
  for_each = local.vms

  domain = libvirt_domain.vm[each.key].id
  source = "lease"
  wait   = { timeout = "10m", until = "ipv4" }
}

output "ip_addresses" {
  description = "IPv4 address of each VM, from its DHCP lease."
  value       = { for name, a in data.libvirt_domain_interface_addresses.vm : name => a.ipv4_addresses[0] }
}

output "mac_addresses" {
  description = "MAC address of each VM's interface."
  value       = { for name, vm in local.vms : name => vm.mac }
}

output "domain_ids" {
  description = "libvirt UUID of each VM."
  value       = { for name, d in libvirt_domain.vm : name => d.id }
}

output "console_urls" {
  description = "VNC console of each VM (on the libvirt host's loopback)."
  value       = { for name, d in libvirt_domain.vm : name => d.console_urls }
}
