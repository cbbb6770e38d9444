variable "root_gib" {
  type    = number
  default = 20
}

# A larger capacity resizes the disk of the running guest live; the action
# then grows the partition and the filesystem on it, in the guest.
resource "libvirt_volume" "web_root" {
  name          = "web-root.qcow2"
  pool          = "default"
  capacity      = var.root_gib
  capacity_unit = "GiB"
  target        = { format = { type = "qcow2" } }

  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.libvirt_domain_fs_grow.web_root]
    }
  }
}

action "libvirt_domain_fs_grow" "web_root" {
  config {
    domain = "web" # the domain using web-root.qcow2, by name or UUID
    path   = "/"
  }
}
