locals {
  # Sorted: the order the control planes take the hosts in (cp-1 on the
  # first), and the first one is the provider's own uri.
  host_names   = sort(keys(var.libvirt_hosts))
  provider_uri = var.libvirt_hosts[local.host_names[0]]

  # One UUID for the cephx secret on every host: the node disks name it,
  # and a domain migrating to another host keeps its disk definition.
  # Derived from the user and the Ceph pool, so it is stable across runs.
  ceph_secret_uuid = uuidv5("oid", "libvirt.ceph.client.${var.ceph_user}.${var.ceph_pool}")

  ceph_monitors = [for m in var.ceph_monitors : {
    host = split(":", m)[0]
    port = length(split(":", m)) > 1 ? split(":", m)[1] : null
  }]
}

# The cephx key on every host, under the same UUID: libvirt hands it to QEMU
# (and to its own RBD pool driver) by that UUID. private: libvirt never gives
# it back.
resource "libvirt_secret" "ceph" {
  for_each = var.libvirt_hosts

  host         = each.key
  uuid         = local.ceph_secret_uuid
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
    host = [for m in local.ceph_monitors : { name = m.host, port = m.port }]
    auth = {
      type     = "ceph"
      username = var.ceph_user
      secret   = { uuid = libvirt_secret.ceph[each.key].uuid }
    }
  }
}

module "cluster" {
  source = "../../modules/talos-cluster"

  cluster_name = var.cluster_name
  # The pools' one name: read from the pools so every volume waits for them.
  pool           = one(distinct([for p in libvirt_pool.ceph : p.name]))
  hosts          = local.host_names
  bridge         = var.bridge
  network_cidr   = var.network_cidr
  vip            = var.vip
  node_disk_mode = "clone"
  # Node disks as RBD network disks: libvirt attaches no rbd-pool volumes.
  rbd = {
    ceph_pool   = var.ceph_pool
    monitors    = local.ceph_monitors
    username    = var.ceph_user
    secret_uuid = local.ceph_secret_uuid
  }
  talos_image        = var.talos_image
  talos_image_format = "raw"
  # The image reaches RBD through a dir pool on each host.
  talos_image_staging_pool = var.staging_pool
  talos_version            = var.talos_version
  controlplane_count       = 3
  worker_count             = var.worker_count
}
