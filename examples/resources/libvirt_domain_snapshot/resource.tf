resource "libvirt_volume" "vm1_disk" {
  name          = "vm1.qcow2"
  pool          = "default"
  capacity      = 20
  capacity_unit = "GiB"
  target        = { format = { type = "qcow2" } }
}

resource "libvirt_domain" "vm1" {
  name        = "vm1"
  type        = "kvm"
  memory      = 2048
  memory_unit = "MiB"
  vcpu        = 2
  running     = true
  os          = { type = "hvm" }
  devices = {
    disks = [{
      device = "disk"
      driver = { name = "qemu", type = "qcow2" }
      # a plain file: libvirt 9.0 can merge an external snapshot of it back
      # on delete (a source.volume disk keeps the overlay, see the docs)
      source = { file = { file = libvirt_volume.vm1_disk.path } }
      target = { dev = "vda", bus = "virtio" }
    }]
  }
  # An external snapshot switches the disk to its overlay file; without this
  # the next plan would point the disk back at the original image.
  lifecycle {
    ignore_changes = [devices]
  }
}

# An internal snapshot: stored inside the qcow2 image. Of a running domain it
# includes the memory state (memory.snapshot = "internal"). Only description
# changes in place. Revert with the action libvirt_domain_snapshot_revert
# (Terraform 1.14+) or, with OpenTofu, `virsh snapshot-revert vm1 before-upgrade`.
resource "libvirt_domain_snapshot" "before_upgrade" {
  domain      = libvirt_domain.vm1.id
  name        = "before-upgrade"
  description = "state before the OS upgrade"
}

# An external disk-only snapshot: libvirt creates the overlay file and the
# domain writes to it from now on; the image below stays as it was.
resource "libvirt_domain_snapshot" "backup_point" {
  domain    = libvirt_domain.vm1.id
  name      = "backup-point"
  disk_only = true
  disks = {
    disks = [{
      name     = "vda"
      snapshot = "external"
      source   = { file = { file = "/var/lib/libvirt/images/vm1.backup-point.qcow2" } }
    }]
  }
  depends_on = [libvirt_domain_snapshot.before_upgrade]
}

# The memory state of a running domain in a file beside a disk overlay.
# libvirt does not delete the memory file when the snapshot is deleted.
resource "libvirt_domain_snapshot" "with_memory" {
  domain = libvirt_domain.vm1.id
  name   = "with-memory"
  live   = true
  memory = { snapshot = "external", file = "/var/lib/libvirt/images/vm1.with-memory.mem" }
  disks = {
    disks = [{
      name     = "vda"
      snapshot = "external"
      source   = { file = { file = "/var/lib/libvirt/images/vm1.with-memory.qcow2" } }
    }]
  }
  depends_on = [libvirt_domain_snapshot.backup_point]
}
