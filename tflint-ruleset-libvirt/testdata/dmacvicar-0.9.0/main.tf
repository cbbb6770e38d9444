# Configurations written for dmacvicar/libvirt 0.9.0's hand-written schema.
resource "libvirt_domain" "old" {
  name   = "old"
  type   = "kvm"
  memory = 1024
  unit   = "MiB"
  vcpu   = 1
  os = {
    type         = "hvm"
    boot_devices = ["hd", "network"]
    kernel_args  = "console=ttyS0"
  }
  devices = {
    disks = [{
      source = { pool = "default", volume = "old.qcow2" }
      target = { dev = "vda", bus = "virtio" }
    }]
    interfaces = [{
      model  = "virtio"
      mac    = "52:54:00:00:00:01"
      source = { network = "default" }
    }]
    graphics = { vnc = { listen = "127.0.0.1" } }
    video    = { type = "virtio" }
    rngs     = [{ device = "/dev/urandom" }]
    tpms     = [{ model = "tpm-crb", backend_type = "emulator" }]
  }
  pm       = { suspend_to_disk = "no" }
  features = { acpi = true, ioapic_driver = "kvm" }
}

resource "libvirt_volume" "old" {
  name          = "old.qcow2"
  pool          = "default"
  capacity      = 10
  capacity_unit = "GiB"
  format        = "qcow2"
  backing_store = { path = "/var/lib/libvirt/images/base.qcow2", format = "qcow2" }
}

resource "libvirt_network" "old" {
  name   = "old"
  mode   = "nat"
  bridge = "virbr9"
  ips    = [{ address = "10.9.0.1", prefix = 24 }]
}
