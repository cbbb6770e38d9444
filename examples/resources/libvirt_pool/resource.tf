# A directory pool: libvirt creates the target directory (build), starts the
# pool and, with autostart, starts it again when libvirtd starts.
resource "libvirt_pool" "images" {
  name      = "images"
  type      = "dir"
  target    = { path = "/var/lib/libvirt/pools/images" }
  autostart = true
  # "/var/lib/libvirt/pools/images/" works too: libvirt stores the path
  # without the trailing slash, state keeps the spelling written here.

  # Destroying a pool that still holds volumes fails and lists them. Set this
  # to true (and apply) first if destroying the pool should delete them too.
  delete_volumes = false
}

# An LVM volume group as a pool: passed to libvirt unchanged and never
# formatted by the provider (the volume group must already exist).
resource "libvirt_pool" "lvm" {
  name   = "vg0"
  type   = "logical"
  source = { name = "vg0", format = { type = "lvm2" } }
  # target.path is chosen by libvirt (/dev/vg0) and readable after apply
}

# A Ceph RBD pool: the Ceph pool "rbd" through its monitor, as client.libvirt
# with the key in a libvirt secret of usage type ceph (see libvirt_secret).
# Define the same pool on every host: its images are shared storage.
variable "ceph_key" {
  type      = string
  sensitive = true
}

resource "libvirt_secret" "ceph" {
  usage        = { type = "ceph", name = "client.libvirt secret" }
  value_base64 = var.ceph_key # `ceph auth get-key client.libvirt`
  private      = "yes"
}

resource "libvirt_pool" "ceph" {
  name = "ceph-rbd"
  type = "rbd"
  source = {
    name = "rbd"
    host = [{ name = "ceph-mon1.example.org", port = "6789" }]
    auth = { type = "ceph", username = "libvirt", secret = { uuid = libvirt_secret.ceph.uuid } }
  }
}
