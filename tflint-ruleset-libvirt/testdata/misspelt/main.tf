# Misspelt keys at every depth, and the configuration measured in the
# issue (a dmacvicar/libvirt 0.9.x thread): all of these plan and apply
# "successfully" while the keys never reach the provider.
variable "bus" {
  type    = string
  default = "virtio"
}

variable "with_cdrom" {
  type    = bool
  default = false
}

resource "libvirt_domain" "typos" {
  name        = "typos"
  type        = "kvm"
  memory      = 1
  memory_unit = "GiB"
  autostrat   = true
  os          = { tpye = "hvm" }
  devices = {
    disks = [
      { targte = { dev = "vda", bus = var.bus } },
      { target = { dev = "vdb", bsu = "virtio" } },
    ]
    interfaces = [{
      type   = "network"
      source = { network = { netwrok = "default" } }
    }]
    controllers = var.with_cdrom ? [{ type = "scsi", modle = "virtio-scsi" }] : []
    channels = [for name in ["org.qemu.guest_agent.0"] : {
      target = { virt_io = { nmae = name } }
    }]
    serials = concat([{ target = { port = 0 } }], [{ "taget" = { port = 1 } }])
  }
  features = merge({ acpi = true }, { apci = true })
}

# The issue's configuration: boot order, console target and VNC autoport
# written in the thread's shape.
resource "libvirt_domain" "issue" {
  name        = "issue"
  type        = "kvm"
  memory      = 512
  memory_unit = "MiB"
  os = {
    type = "hvm"
    boot = { devices = ["hd", "network"] }
  }
  devices = {
    consoles = [{ type = "pty", target_port = 0, target_type = "serial" }]
    graphics = [{ vnc = { autoport = true, listen = "127.0.0.1" } }]
  }
}

resource "libvirt_network" "typos" {
  name = "typos"
  ips  = [{ address = "10.0.0.1", prefix = 24, dhcp = { ranges = [{ start = "10.0.0.10", ned = "10.0.0.20" }] } }]
}

resource "libvirt_volume" "typos" {
  name   = "typos.qcow2"
  pool   = "default"
  target = { format = { tyep = "qcow2" } }
}

data "libvirt_domain_interface_addresses" "typos" {
  domain = libvirt_domain.typos.id
  wait   = { timeuot = "5m" }
}
