# A base image uploaded once, outside this configuration: look it up by pool
# and name...
data "libvirt_volume" "base" {
  pool = "default"
  name = "debian-12-base.qcow2"
}

# ...or by key (its path for file-based pools).
data "libvirt_volume" "by_key" {
  key = "/var/lib/libvirt/images/debian-12-base.qcow2"
}

# An overlay on it for a new guest; the base image stays untouched.
resource "libvirt_volume" "web1_root" {
  name = "web1-root.qcow2"
  pool = data.libvirt_volume.base.pool
  backing_store = {
    path   = data.libvirt_volume.base.path
    format = { type = data.libvirt_volume.base.target.format.type }
  }
  target = { format = { type = "qcow2" } }
}

output "base_image" {
  value = {
    capacity_bytes = data.libvirt_volume.base.capacity # capacity_unit is "bytes"
    format         = data.libvirt_volume.base.target.format.type
  }
}
