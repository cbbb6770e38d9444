# A NoCloud seed ISO, written on the machine running OpenTofu (with a remote
# `uri`, that is not the libvirt host).
resource "libvirt_cloudinit_disk" "web1" {
  name = "web1-seed"

  meta_data = yamlencode({
    instance-id    = "web1"
    local-hostname = "web1"
  })

  user_data = <<-EOT
    #cloud-config
    users:
      - name: admin
        sudo: ALL=(ALL) NOPASSWD:ALL
        ssh_authorized_keys:
          - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyOnly admin@example
  EOT

  network_config = yamlencode({
    version = 2
    ethernets = {
      eth0 = { dhcp4 = true }
    }
  })
}

# The volume uploads the ISO into a pool on the libvirt host. A change of any
# cloud-init input changes `path`, which replaces this volume too.
resource "libvirt_volume" "web1_seed" {
  name   = "web1-seed.iso"
  pool   = "default"
  create = { content = { url = libvirt_cloudinit_disk.web1.path } }
}

# Attach libvirt_volume.web1_seed to the domain as a read-only cdrom, on bus
# "scsi" with a virtio-scsi controller: Debian's cloud kernel has no SATA driver.
