# dmacvicar/libvirt 0.8's blocks and arguments (0.9 already changed them;
# OpenTofu rejects them too, but without naming the new form).
resource "libvirt_volume" "root" {
  name           = "root.qcow2"
  pool           = "default"
  base_volume_id = "default/base.qcow2"
  size           = 21474836480
}

resource "libvirt_domain" "vm" {
  name        = "vm"
  type        = "kvm"
  memory      = 1024
  memory_unit = "MiB"
  qemu_agent  = true

  disk {
    volume_id = libvirt_volume.root.id
  }
  network_interface {
    network_name = "default"
  }
}

resource "libvirt_network" "net" {
  name      = "net"
  addresses = ["10.17.3.0/24"]
  dns {
    enabled = true
  }
}
