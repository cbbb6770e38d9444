# A pool made outside this configuration (here the usual `default`): look it
# up by name (or by uuid; exactly one of the two).
data "libvirt_pool" "default" {
  name = "default"
}

# A new volume in it.
resource "libvirt_volume" "scratch" {
  name          = "scratch.qcow2"
  pool          = data.libvirt_pool.default.name
  capacity      = 10
  capacity_unit = "GiB"
  target        = { format = { type = "qcow2" } }
}

# Sizes are in the units libvirt reports (`capacity_unit` and friends say
# which: bytes).
output "default_pool" {
  value = {
    path      = data.libvirt_pool.default.target.path
    available = data.libvirt_pool.default.available
    unit      = data.libvirt_pool.default.available_unit
    autostart = data.libvirt_pool.default.autostart
  }
}
