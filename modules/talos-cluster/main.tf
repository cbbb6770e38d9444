locals {
  dns_domain = coalesce(var.dns_domain, "${var.cluster_name}.local")
  prefix     = tonumber(split("/", var.network_cidr)[1])
  gateway_ip = cidrhost(var.network_cidr, 1)

  # Addresses outside the reservations are handed out from the upper half of
  # the subnet, so node addresses (below it) never collide with them.
  dhcp_first_host = pow(2, 32 - local.prefix) / 2

  # One byte of the cluster name's hash keeps MACs of two clusters on the
  # same host apart; the other two bytes are the node's host number, so
  # MAC and IP reservation are derived from the same value.
  mac_cluster_byte = parseint(substr(md5(var.cluster_name), 0, 2), 16)

  # Placement over var.hosts (null: every resource on the provider's own
  # uri). One round-robin over the hosts in their order: the control planes
  # first (cp-1 on hosts[0], cp-2 on hosts[1], ...), so no two share a host
  # while hosts remain, then the workers, continuing after the last control
  # plane. node_hosts pins single nodes and overrides the rule for them only.
  host_count = var.hosts == null ? 1 : length(var.hosts)
  controlplanes = {
    for i in range(var.controlplane_count) : "${var.cluster_name}-cp-${i + 1}" => {
      role         = "controlplane"
      libvirt_host = var.hosts == null ? null : lookup(var.node_hosts, "${var.cluster_name}-cp-${i + 1}", var.hosts[i % local.host_count])
      host         = var.controlplane_ip_offset + i
      memory_mib   = var.controlplane.memory_mib
      vcpus        = var.controlplane.vcpus
      disk_gib     = var.controlplane.disk_gib
    }
  }
  workers = {
    for i in range(var.worker_count) : "${var.cluster_name}-worker-${i + 1}" => {
      role         = "worker"
      libvirt_host = var.hosts == null ? null : lookup(var.node_hosts, "${var.cluster_name}-worker-${i + 1}", var.hosts[(var.controlplane_count + i) % local.host_count])
      host         = var.worker_ip_offset + i
      memory_mib   = var.worker.memory_mib
      vcpus        = var.worker.vcpus
      disk_gib     = var.worker.disk_gib
    }
  }
  nodes = {
    for name, n in merge(local.controlplanes, local.workers) : name => merge(n, {
      ip  = cidrhost(var.network_cidr, n.host)
      mac = format("52:54:00:%02x:%02x:%02x", local.mac_cluster_byte, floor(n.host / 256) % 256, n.host % 256)
      # NAA-5 WWN: 16 hex digits, "5", 9 from the cluster name, 6 the host.
      wwn = format("0x5%s%06x", substr(md5(var.cluster_name), 0, 9), n.host)
    })
  }

  # The hosts that get nodes, in the order of var.hosts ([null] without
  # hosts). The first one gets the NAT network (without bridge) and the
  # Talos image volume; every other one its own copy of the image, so each
  # node disk is made from an image on its own host.
  used_hosts   = var.hosts == null ? [null] : [for h in var.hosts : h if contains([for n in values(local.nodes) : n.libvirt_host], h)]
  first_host   = local.used_hosts[0]
  image_copies = toset(slice(local.used_hosts, 1, length(local.used_hosts)))

  controlplane_names = sort(keys(local.controlplanes))
  controlplane_ips   = [for name in local.controlplane_names : local.nodes[name].ip]
  worker_ips         = [for name in sort(keys(local.workers)) : local.nodes[name].ip]
  node_ips           = [for name in sort(keys(local.nodes)) : local.nodes[name].ip]

  # The first control plane is bootstrapped and answers the API until a VIP
  # takes over.
  bootstrap_node   = local.controlplane_names[0]
  bootstrap_ip     = local.nodes[local.bootstrap_node].ip
  endpoint_ip      = coalesce(var.vip, local.bootstrap_ip)
  cluster_endpoint = "https://${local.endpoint_ip}:6443"

  # Node disks: on SCSI (virtio-scsi) each gets a WWN from the cluster
  # name's hash and its host number, so /dev/disk/by-id/wwn-0x... stays the
  # same across reboots, re-creation and disk order; on virtio it is vda.
  install_disk = coalesce(var.install_disk, var.disk_bus == "scsi" ? "/dev/sda" : "/dev/vda")

  # CPU: Talos needs x86-64-v2 (sse4.2, popcnt, cx16, ssse3); QEMU's
  # default qemu64 lacks it. KVM passes the host CPU through; TCG emulates
  # everything it can (mode maximum, i.e. -cpu max) unless a model is named.
  cpu = (var.cpu_model != null ? { mode = "custom", model = var.cpu_model }
  : var.domain_type == "kvm" ? { mode = "host-passthrough", model = null } : { mode = "maximum", model = null })

  # The installer image carries the schematic's extensions: Talos installs
  # and upgrades from machine.install.image, so without it an upgrade would
  # drop the guest agent.
  installer_image = var.image_factory ? data.talos_image_factory_urls.this[0].urls.installer : var.installer_image
  install_patch = yamlencode({
    machine = { install = merge(
      { disk = local.install_disk },
      local.installer_image == null ? {} : { image = local.installer_image },
    ) }
  })
  vip_patch = var.vip == null ? [] : [yamlencode({
    machine = {
      network = {
        interfaces = [{
          deviceSelector = { physical = true }
          dhcp           = true
          vip            = { ip = var.vip }
        }]
      }
    }
  })]
  role_patches = {
    controlplane = concat([local.install_patch], local.vip_patch, var.controlplane_config_patches)
    worker       = concat([local.install_patch], var.worker_config_patches)
  }
  hostname_patches = {
    for name, n in local.nodes : name => yamlencode({
      machine = { network = { hostname = name } }
    })
  }
}

# --- libvirt: network, image, disks, domains ---------------------------------

# The NAT network (without bridge): on the first host, which then is the
# only host (bridge is required for more than one).
resource "libvirt_network" "this" {
  count = var.bridge == null ? 1 : 0

  host      = local.first_host
  name      = var.cluster_name
  autostart = var.autostart
  forward   = { mode = "nat" }
  domain    = { name = local.dns_domain }

  ips = [{
    address = local.gateway_ip
    prefix  = local.prefix
    dhcp = {
      ranges = [{ start = cidrhost(var.network_cidr, local.dhcp_first_host), end = cidrhost(var.network_cidr, -2) }]
      # Native reservations pin each node's MAC to its address.
      hosts = [for name in sort(keys(local.nodes)) : { mac = local.nodes[name].mac, ip = local.nodes[name].ip, name = name }]
    }
  }]

  dns = {
    enable = "yes"
    host = concat(
      [for name in sort(keys(local.nodes)) : { ip = local.nodes[name].ip, hostnames = [{ hostname = name }] }],
      var.vip == null ? [] : [{ ip = var.vip, hostnames = [{ hostname = "api" }] }],
    )
  }

  lifecycle {
    precondition {
      condition     = alltrue([for n in values(local.nodes) : n.host >= 2 && n.host < local.dhcp_first_host])
      error_message = "Node addresses must lie between host 2 and host ${local.dhcp_first_host - 1} of ${var.network_cidr} (host 1 is the gateway, the upper half is the DHCP pool); adjust controlplane_ip_offset/worker_ip_offset or the counts."
    }
    precondition {
      condition     = length(distinct([for n in values(local.nodes) : n.host])) == length(local.nodes)
      error_message = "Control-plane and worker addresses overlap: controlplane_ip_offset + controlplane_count must not reach worker_ip_offset (or the other way round)."
    }
    precondition {
      condition     = var.vip == null ? true : (cidrhost(var.network_cidr, 0) == cidrhost(format("%s/%d", coalesce(var.vip, "0.0.0.0"), local.prefix), 0) && !contains(values(local.nodes)[*].ip, coalesce(var.vip, "-")) && coalesce(var.vip, "-") != local.gateway_ip)
      error_message = "vip must be an unused address inside ${var.network_cidr} (not a node's or the gateway's)."
    }
  }
}

moved {
  from = libvirt_network.this
  to   = libvirt_network.this[0]
}

resource "libvirt_volume" "talos_image" {
  host = local.first_host
  name = "${var.cluster_name}-talos.${var.talos_image_format}"
  pool = var.pool
  target = {
    format = { type = var.talos_image_format }
  }
  create = {
    # Into an rbd pool through a staging volume of talos_image_staging_pool.
    content = { url = var.talos_image, staging_pool = var.talos_image_staging_pool }
  }
}

# The image again on every other host that gets nodes (hosts): a volume
# made through one host's connection is not in another host's pool until
# that pool is refreshed, so each host's node disks come from its own copy.
resource "libvirt_volume" "talos_image_copy" {
  for_each = local.image_copies

  host = each.key
  name = "${var.cluster_name}-talos-${each.key}.${var.talos_image_format}"
  pool = var.pool
  target = {
    format = { type = var.talos_image_format }
  }
  create = {
    # Into an rbd pool through a staging volume of talos_image_staging_pool.
    content = { url = var.talos_image, staging_pool = var.talos_image_staging_pool }
  }
}

locals {
  # The image volume on each node's host, and the node disks' format:
  # "overlay" is a qcow2 overlay backed by the image's path, "clone" a full
  # copy in the image's format made by libvirt on the host (RBD pools only
  # hold raw volumes, and Ceph clones them itself).
  # Keyed by host name ("" for the provider's own uri).
  host_images = merge(
    { (local.first_host == null ? "" : local.first_host) = { name = libvirt_volume.talos_image.name, path = libvirt_volume.talos_image.path } },
    { for h, v in libvirt_volume.talos_image_copy : h => { name = v.name, path = v.path } },
  )
  node_image       = { for name, n in local.nodes : name => local.host_images[n.libvirt_host == null ? "" : n.libvirt_host] }
  node_disk_format = var.node_disk_mode == "clone" ? var.talos_image_format : "qcow2"
  # backing_store is computed too: tests assert on this, not on the
  # attribute a mock provider fills in.
  node_backing_store = { for name, n in local.nodes : name => var.node_disk_mode == "overlay" ? {
    path   = local.node_image[name].path
    format = { type = var.talos_image_format }
  } : null }
}

resource "libvirt_volume" "node" {
  for_each = local.nodes

  host          = each.value.libvirt_host
  name          = "${each.key}.${local.node_disk_format}"
  pool          = var.pool
  capacity      = each.value.disk_gib * 1073741824
  capacity_unit = "bytes"
  target = {
    format = { type = local.node_disk_format }
  }
  backing_store = local.node_backing_store[each.key]
  create = var.node_disk_mode == "clone" ? {
    clone = { volume = local.node_image[each.key].name }
  } : null
}

locals {
  # The nodes' os and devices as the module writes them (tests assert on
  # these: attributes left unset get invented values from a mock provider).
  os = {
    type         = "hvm"
    type_machine = var.machine
    # "efi": libvirt picks OVMF from the host's firmware descriptors, one
    # without Secure Boot: Talos' standard images are not signed for the
    # Microsoft keys that Secure Boot OVMF builds enroll (Debian's default
    # pick, OVMF_CODE_4M.ms.fd).
    firmware      = var.firmware == "efi" ? "efi" : null
    firmware_info = var.firmware == "efi" ? { features = [{ name = "secure-boot", enabled = "no" }] } : null
    # Direct kernel boot (e.g. the Image Factory's kernel and initramfs);
    # null boots the disk image.
    kernel  = try(var.kernel_boot.kernel, null)
    initrd  = try(var.kernel_boot.initrd, null)
    cmdline = try(var.kernel_boot.cmdline, null)
  }
  node_devices = { for name, node in local.nodes : name => {
    # A volume of pool, or with rbd a network disk that QEMU opens in Ceph
    # itself (libvirt attaches no volumes of rbd pools as volume disks).
    disks = [{
      type = var.rbd == null ? null : "network"
      source = {
        volume = var.rbd == null ? { pool = var.pool, volume = libvirt_volume.node[name].name } : null
        network = var.rbd == null ? null : {
          protocol = "rbd"
          name     = "${var.rbd.ceph_pool}/${libvirt_volume.node[name].name}"
          hosts    = [for m in var.rbd.monitors : { name = m.host, port = m.port }]
          auth = {
            username = var.rbd.username
            secret   = { type = "ceph", uuid = var.rbd.secret_uuid }
          }
        }
      }
      target = { dev = var.disk_bus == "scsi" ? "sda" : "vda", bus = var.disk_bus }
      driver = { name = var.rbd == null ? null : "qemu", type = local.node_disk_format }
      wwn    = var.disk_bus == "scsi" ? node.wwn : null
    }]
    controllers = var.disk_bus == "scsi" ? [{ type = "scsi", model = "virtio-scsi" }] : null
    interfaces = [{
      type  = var.bridge == null ? "network" : "bridge"
      model = { type = "virtio" }
      source = {
        network = var.bridge == null ? { network = one(libvirt_network.this[*].name) } : null
        bridge  = var.bridge == null ? null : { bridge = var.bridge }
      }
      mac = { address = node.mac }
    }]
    serials  = [{ target = { port = 0 } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
    # The qemu-guest-agent extension (in the Image Factory schematic)
    # answers on this channel: addresses, graceful shutdown, fs freeze.
    channels = [{
      source = { unix = {} }
      target = { virt_io = { name = "org.qemu.guest_agent.0" } }
    }]
  } }
}

resource "libvirt_domain" "node" {
  for_each = local.nodes

  host        = each.value.libvirt_host
  name        = each.key
  type        = var.domain_type
  memory      = each.value.memory_mib
  memory_unit = "MiB"
  vcpu        = each.value.vcpus
  running     = true
  autostart   = var.autostart

  os = local.os
  # ACPI: Talos shuts down gracefully on the ACPI power button (virsh
  # shutdown); UEFI needs it too.
  features = { acpi = true, apic = {} }
  cpu      = local.cpu

  devices = local.node_devices[each.key]

  lifecycle {
    # Control-plane anti-affinity also holds for nodes pinned by node_hosts.
    precondition {
      condition = (each.value.role != "controlplane" || !var.controlplane_anti_affinity || var.hosts == null
      || length([for n in values(local.nodes) : n if n.role == "controlplane" && n.libvirt_host == each.value.libvirt_host]) == 1)
      error_message = "Control planes ${join(", ", sort([for name, n in local.nodes : name if n.role == "controlplane" && n.libvirt_host == each.value.libvirt_host]))} share host ${coalesce(each.value.libvirt_host, "-")}: with controlplane_anti_affinity each control plane needs a host of its own (check node_hosts, or set controlplane_anti_affinity = false)."
    }
  }
}

# --- Talos ---------------------------------------------------------------------

# The cluster's CA and keys: losing them means rebuilding the cluster, so
# they are protected from destroy (README: "Machine secrets and destroy").
# With machine_secrets given, the caller owns them and none are made here.
resource "talos_machine_secrets" "this" {
  count = var.machine_secrets == null ? 1 : 0

  talos_version = var.talos_version

  lifecycle {
    prevent_destroy = true
  }
}

moved {
  from = talos_machine_secrets.this
  to   = talos_machine_secrets.this[0]
}

locals {
  secrets = var.machine_secrets != null ? var.machine_secrets : {
    machine_secrets      = talos_machine_secrets.this[0].machine_secrets
    client_configuration = talos_machine_secrets.this[0].client_configuration
  }
}

# Image Factory: a schematic with the qemu-guest-agent extension (and any
# talos_extensions); its installer goes into machine.install.image and its
# disk image is what talos_image should be (output talos_image_urls).
resource "talos_image_factory_schematic" "this" {
  count = var.image_factory ? 1 : 0

  schematic = yamlencode({
    customization = {
      systemExtensions = {
        officialExtensions = distinct(concat(["siderolabs/qemu-guest-agent"], var.talos_extensions))
      }
    }
  })
}

data "talos_image_factory_urls" "this" {
  count = var.image_factory ? 1 : 0

  talos_version = var.talos_version
  schematic_id  = talos_image_factory_schematic.this[0].id
  platform      = "nocloud"
  architecture  = "amd64"
}

data "talos_machine_configuration" "role" {
  for_each = toset(var.worker_count > 0 ? ["controlplane", "worker"] : ["controlplane"])

  cluster_name       = var.cluster_name
  cluster_endpoint   = local.cluster_endpoint
  machine_type       = each.key
  machine_secrets    = local.secrets.machine_secrets
  talos_version      = var.talos_version
  kubernetes_version = var.kubernetes_version
  config_patches     = local.role_patches[each.key]
}

resource "talos_machine_configuration_apply" "node" {
  for_each = local.nodes

  client_configuration        = local.secrets.client_configuration
  machine_configuration_input = data.talos_machine_configuration.role[each.value.role].machine_configuration
  # The address Talos is reached at is the one the network reserves for
  # this domain's MAC, read from both resources rather than from locals. On
  # a bridge the reservation lives in the LAN's DHCP server (output nodes),
  # so it is the node's planned address.
  node = var.bridge == null ? one([
    for h in flatten(libvirt_network.this[*].ips[0].dhcp.hosts) : h.ip
    if lower(h.mac) == lower(libvirt_domain.node[each.key].devices.interfaces[0].mac.address)
  ]) : each.value.ip
  endpoint       = each.value.ip
  config_patches = [local.hostname_patches[each.key]]

  # A node can only take its configuration once its domain runs, and a
  # replaced domain (new disk) needs it again.
  depends_on = [libvirt_domain.node]
  lifecycle {
    replace_triggered_by = [libvirt_domain.node[each.key].id]
  }
}

resource "talos_machine_bootstrap" "this" {
  client_configuration = local.secrets.client_configuration
  node                 = local.bootstrap_ip
  endpoint             = local.bootstrap_ip

  depends_on = [talos_machine_configuration_apply.node]
}

resource "talos_cluster_kubeconfig" "this" {
  client_configuration = local.secrets.client_configuration
  node                 = local.bootstrap_ip
  endpoint             = local.bootstrap_ip

  depends_on = [talos_machine_bootstrap.this]
}

# Waits until etcd, the API server and every node are healthy, so the
# kubeconfig outputs are usable when apply returns.
data "talos_cluster_health" "this" {
  count = var.wait_for_health ? 1 : 0

  client_configuration = local.secrets.client_configuration
  endpoints            = local.controlplane_ips
  control_plane_nodes  = local.controlplane_ips
  worker_nodes         = local.worker_ips
  timeouts             = { read = var.health_timeout }

  depends_on = [talos_machine_bootstrap.this, talos_machine_configuration_apply.node]
}

data "talos_client_configuration" "this" {
  cluster_name         = var.cluster_name
  client_configuration = local.secrets.client_configuration
  endpoints            = local.controlplane_ips
  nodes                = local.node_ips
}
