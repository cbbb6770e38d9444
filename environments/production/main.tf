locals {
  # Sorted: the order the control planes take the hosts in (cp-1 on the
  # first), and the first one is the provider's own uri.
  host_names   = sort(keys(var.libvirt_hosts))
  provider_uri = var.libvirt_hosts[local.host_names[0]]
}

# The cephx key on every host: libvirt hands it to QEMU (and to its own RBD
# pool driver) by this secret's UUID. private: libvirt never gives it back.
resource "libvirt_secret" "ceph" {
  for_each = var.libvirt_hosts

  host         = each.key
  description  = "cephx key of client.${var.ceph_user}"
  usage        = { type = "ceph", name = "client.${var.ceph_user} secret" }
  private      = "yes"
  value_base64 = var.ceph_key
}

# The same Ceph pool as a libvirt pool on every host: a volume made through
# one host is reachable from every other, which is what live migration
# needs.
resource "libvirt_pool" "ceph" {
  for_each = var.libvirt_hosts

  host      = each.key
  name      = var.pool_name
  type      = "rbd"
  autostart = true
  source = {
    name = var.ceph_pool
    host = [for m in var.ceph_monitors : {
      name = split(":", m)[0]
      port = length(split(":", m)) > 1 ? split(":", m)[1] : null
    }]
    auth = {
      type     = "ceph"
      username = var.ceph_user
      secret   = { uuid = libvirt_secret.ceph[each.key].id }
    }
  }
}

module "cluster" {
  source = "../../modules/talos-cluster"

  cluster_name = var.cluster_name
  # The pools' one name: read from the pools so every volume waits for them.
  pool               = one(distinct([for p in libvirt_pool.ceph : p.name]))
  hosts              = local.host_names
  bridge             = var.bridge
  network_cidr       = var.network_cidr
  vip                = var.vip
  node_disk_mode     = "clone"
  talos_image        = var.talos_image
  talos_image_format = "raw"
  talos_version      = var.talos_version
  controlplane_count = 3
  worker_count       = var.worker_count
}
