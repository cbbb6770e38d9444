# Valid configurations in every form the rules read: no findings.
variable "disks" {
  type    = list(string)
  default = ["a", "b"]
}

variable "uefi" {
  type    = bool
  default = false
}

variable "key" {
  type    = string
  default = "dev"
}

resource "libvirt_volume" "disk" {
  count         = 2
  name          = "clean-${count.index}.qcow2"
  pool          = "default"
  capacity      = 10
  capacity_unit = "GiB"
  target        = { format = { type = "qcow2" } }
  timeouts      = { create = "20m" }
  lifecycle {
    ignore_changes = [capacity]
  }
}

resource "libvirt_domain" "clean" {
  name        = "clean"
  type        = "kvm"
  memory      = 1024
  memory_unit = "MiB"
  vcpu        = 2
  running     = true
  os = var.uefi ? { type = "hvm", firmware = "efi", boot_devices = [{ dev = "hd" }] } : {
    type         = "hvm"
    boot_devices = [{ dev = "hd" }, { dev = "network" }]
  }
  features = merge({ acpi = true }, var.uefi ? { smm = { state = "on" } } : {})
  cpu      = { mode = "host-passthrough", migratable = "true" }
  devices = {
    disks = concat(
      [for i, name in var.disks : {
        source = { volume = { pool = "default", volume = libvirt_volume.disk[i].name } }
        target = { dev = "vd${substr("abcdefgh", i, 1)}", bus = "virtio" }
      }],
      [{ device = "cdrom", read_only = true, "target" = { (var.key) = "sda", bus = "scsi" } }],
    )
    interfaces = [{
      type   = "network"
      model  = { type = "virtio" }
      mac    = null
      source = { network = { network = "default" } }
    }]
    serials  = [{ target = { port = "0" } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
    graphics = [{ vnc = { auto_port = true, listen = "127.0.0.1" } }]
    videos   = [{ model = { type = "virtio" } }]
  }
  metadata = { xml = <<-EOT
    <app:note xmlns:app="https://example.org/app">clean</app:note>
  EOT
  }
  depends_on = [libvirt_volume.disk]
}

resource "libvirt_network" "clean" {
  name    = "clean"
  forward = { mode = "nat" }
  bridge  = { name = "virbr42" }
  ips     = [{ address = "10.42.0.1", prefix = 24, dhcp = { ranges = [{ start = "10.42.0.10", end = "10.42.0.20" }] } }]
}

data "libvirt_node_info" "host" {}
