# Quickstart: one small VM on an isolated network, booted from the locally
# built Debian test guest, configured by cloud-init, with its IP address read
# from the DHCP lease. `make quickstart` applies it; the variables come from
# /var/cache/tfplv/env.sh (TF_VAR_*).
terraform {
  required_providers {
    libvirt = {
      source  = "virtxml/libvirt"
      version = ">= 0.1.0"
    }
  }
}

variable "libvirt_uri" {
  type    = string
  default = "qemu:///system"
}

variable "pool" {
  description = "Existing directory storage pool for the volumes."
  type        = string
  default     = "default"
}

variable "guest_dir" {
  description = "Folder with root.qcow2, vmlinuz and initrd.img (scripts/build-guest-image.sh)."
  type        = string
}

variable "domain_type" {
  description = "kvm where hardware virtualization works, qemu (TCG) elsewhere."
  type        = string
  default     = "kvm"
}

provider "libvirt" {
  uri = var.libvirt_uri
}

locals {
  name = "quickstart"
  mac  = "52:54:00:0a:5e:10"
  ip   = "10.231.7.10"
}

resource "libvirt_network" "net" {
  name = "${local.name}-net"
  ips = [{
    address = "10.231.7.1"
    prefix  = 24
    dhcp = {
      ranges = [{ start = "10.231.7.100", end = "10.231.7.200" }]
      hosts  = [{ mac = local.mac, ip = local.ip, name = local.name }]
    }
  }]
}

resource "libvirt_volume" "base" {
  name   = "${local.name}-base.qcow2"
  pool   = var.pool
  target = { format = { type = "qcow2" } }
  create = { content = { url = "${var.guest_dir}/root.qcow2" } }
}

resource "libvirt_volume" "root" {
  name          = "${local.name}-root.qcow2"
  pool          = var.pool
  capacity      = 4
  capacity_unit = "GiB"
  target        = { format = { type = "qcow2" } }
  backing_store = { path = libvirt_volume.base.path, format = { type = "qcow2" } }
}

resource "libvirt_cloudinit_disk" "seed" {
  name      = local.name
  meta_data = "instance-id: ${local.name}\nlocal-hostname: ${local.name}\n"
  user_data = "#cloud-config\n{}\n"
}

resource "libvirt_volume" "seed" {
  name   = "${local.name}-seed.iso"
  pool   = var.pool
  create = { content = { url = libvirt_cloudinit_disk.seed.path } }
}

resource "libvirt_domain" "vm" {
  name        = local.name
  type        = var.domain_type
  memory      = 512
  memory_unit = "MiB"
  vcpu        = 1
  running     = true
  os = {
    type    = "hvm"
    kernel  = "${var.guest_dir}/vmlinuz"
    initrd  = "${var.guest_dir}/initrd.img"
    cmdline = "root=/dev/vda rw console=ttyS0 net.ifnames=0"
  }
  devices = {
    disks = [
      {
        source = { volume = { pool = var.pool, volume = libvirt_volume.root.name } }
        target = { dev = "vda", bus = "virtio" }
      },
      {
        device    = "cdrom"
        read_only = true
        source    = { volume = { pool = var.pool, volume = libvirt_volume.seed.name } }
        target    = { dev = "sda", bus = "scsi" }
      },
    ]
    controllers = [{ type = "scsi", model = "virtio-scsi" }]
    interfaces = [{
      type   = "network"
      model  = { type = "virtio" }
      mac    = { address = local.mac }
      source = { network = { network = libvirt_network.net.name } }
    }]
    serials  = [{ target = { port = 0 } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
    channels = [{
      source = { unix = {} }
      target = { virt_io = { name = "org.qemu.guest_agent.0" } }
    }]
  }
}

data "libvirt_domain_interface_addresses" "vm" {
  domain = libvirt_domain.vm.id
  source = "lease"
  wait   = { timeout = "10m", until = "ipv4" }
}

output "domain_id" {
  value = libvirt_domain.vm.id
}

output "ip_address" {
  value = data.libvirt_domain_interface_addresses.vm.ipv4_addresses[0]
}
