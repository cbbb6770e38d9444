# by pool and name; identity = { key = "/var/lib/libvirt/images/vm1.qcow2" } also works
import {
  to       = libvirt_volume.vm1_disk
  identity = { pool = "default", name = "vm1.qcow2" }
}
