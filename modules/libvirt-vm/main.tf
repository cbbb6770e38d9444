locals {
  upload_image = var.base_volume_name == null && var.base_volume == null

  default_user_data = join("\n", concat(
    ["#cloud-config", "hostname: ${var.name}", "preserve_hostname: false"],
    length(var.ssh_authorized_keys) == 0 ? [] : concat(["ssh_authorized_keys:"], [for k in var.ssh_authorized_keys : "  - ${jsonencode(k)}"]),
    [""],
  ))
  default_meta_data = "instance-id: ${var.name}\nlocal-hostname: ${var.name}\n"

  # The cloud kernel of Debian (and others) has no SATA driver, so the
  # cloud-init CD-ROM defaults to SCSI, which needs a virtio-scsi controller.
  cdrom_dev = var.cdrom_bus == "ide" ? "hdc" : "sdc"
}

# Uploaded base image (skipped when an existing volume is used as the base).
resource "libvirt_volume" "base" {
  count = local.upload_image ? 1 : 0

  host = var.host
  name = "${var.name}-base.${var.image_format}"
  pool = var.pool
  target = {
    format = { type = var.image_format }
  }
  create = {
    content = { url = coalesce(var.image_url, var.image_path) }
  }
}

locals {
  # An existing base volume is named by a path relative to the pool: libvirt
  # resolves relative backing paths against the pool's directory, and qemu
  # against the overlay's, which is the same directory. Its size is not
  # known here, so the size check only covers uploaded images.
  # A shared base_volume (e.g. a libvirt_volume of the caller's) is named by
  # its absolute path and carries its capacity, so the size check covers it.
  base_path = (local.upload_image ? libvirt_volume.base[0].path
  : var.base_volume != null ? var.base_volume.path : var.base_volume_name)
  base_capacity = (local.upload_image ? libvirt_volume.base[0].capacity
  : var.base_volume != null ? var.base_volume.capacity : null)
  disk_bytes = var.disk_size_gib * 1024 * 1024 * 1024
}

# Root disk: a qcow2 overlay on the base, so the base stays untouched and
# several VMs can share it.
resource "libvirt_volume" "root" {
  host          = var.host
  name          = "${var.name}-root.qcow2"
  pool          = var.pool
  capacity      = local.disk_bytes
  capacity_unit = "bytes"
  target = {
    format = { type = "qcow2" }
  }
  backing_store = {
    path   = local.base_path
    format = { type = var.image_format }
  }

  lifecycle {
    precondition {
      condition     = local.base_capacity == null ? true : local.disk_bytes >= local.base_capacity
      error_message = "disk_size_gib (${var.disk_size_gib} GiB) is smaller than the base image (${try(ceil(local.base_capacity / 1073741824), "?")} GiB); a root disk cannot shrink its backing image."
    }
  }
}

resource "libvirt_cloudinit_disk" "this" {
  name           = "${var.name}-cloudinit"
  user_data      = coalesce(var.user_data, local.default_user_data)
  meta_data      = coalesce(var.meta_data, local.default_meta_data)
  network_config = var.network_config
}

# The ISO only exists on the machine running tofu; this volume uploads it
# into the pool (on var.host) so the domain can attach it.
resource "libvirt_volume" "cloudinit" {
  host = var.host
  name = "${var.name}-cloudinit.iso"
  pool = var.pool
  # No target format: libvirt probes the upload and reports "iso".
  create = {
    content = { url = libvirt_cloudinit_disk.this.path }
  }
}

locals {
  # NICs: network_interfaces, or the single NIC of network_name/mac_address.
  nics = var.network_interfaces != null ? var.network_interfaces : [{
    type = "network", network = var.network_name, bridge = null, dev = null,
    mode = "bridge", mac = var.mac_address, model = "virtio"
  }]
  interfaces = [for n in local.nics : {
    type  = n.type == "macvtap" ? "direct" : n.type
    model = { type = n.model }
    mac   = n.mac == null ? null : { address = lower(n.mac) }
    source = {
      network = n.type == "network" ? { network = n.network } : null
      bridge  = n.type == "bridge" ? { bridge = n.bridge } : null
      direct  = n.type == "macvtap" ? { dev = n.dev, mode = n.mode } : null
    }
  }]

  # Data disks: vdb, vdc, ... on virtio; on scsi sda, sdb, sdd, ... (sdc is
  # the cloud-init cdrom's name when it is on scsi).
  scsi_letters = [for c in split("", "abdefghijklmnopqrstuvwxyz") : c if !(c == "c")]
  data_disks = [for i, d in var.data_disks : merge(d, {
    index = i
    dev = (d.bus == "virtio"
      ? "vd${substr("bcdefghijklmnopqrstuvwxyz", length([for e in slice(var.data_disks, 0, i) : e if e.bus == "virtio"]), 1)}"
    : "sd${local.scsi_letters[length([for e in slice(var.data_disks, 0, i) : e if e.bus == "scsi"])]}")
  })]
  needs_scsi = var.cdrom_bus == "scsi" || anytrue([for d in var.data_disks : d.bus == "scsi"])

  features = var.acpi ? { acpi = true } : null

  cpu = var.cpu_mode == null && var.cpu_model == null ? null : {
    mode  = coalesce(var.cpu_mode, "custom")
    model = var.cpu_model
  }
}

# Data disks: empty qcow2 volumes in the pool, one per data_disks entry.
resource "libvirt_volume" "data" {
  count = length(var.data_disks)

  host          = var.host
  name          = "${var.name}-data-${count.index}.qcow2"
  pool          = var.pool
  capacity      = var.data_disks[count.index].size_gib * 1073741824
  capacity_unit = "bytes"
  target = {
    format = { type = "qcow2" }
  }
}

locals {
  # The domain's os and devices, as the module writes them (tests assert on
  # these: attributes left unset get invented values from a mock provider).
  os = {
    type         = "hvm"
    type_machine = var.machine
    # "efi": libvirt picks OVMF from the host's firmware descriptors (Debian:
    # package ovmf) and keeps an NVRAM copy per domain. BIOS is libvirt's
    # default and is left unstated.
    firmware = var.firmware == "efi" ? "efi" : null
    kernel   = var.kernel
    initrd   = var.initrd
    cmdline  = var.cmdline
  }

  devices = {
    disks = concat(
      [
        {
          device    = null
          source    = { volume = { pool = var.pool, volume = libvirt_volume.root.name } }
          target    = { dev = "vda", bus = "virtio" }
          driver    = { type = "qcow2" }
          read_only = null
          wwn       = null
        },
        {
          device    = "cdrom"
          source    = { volume = { pool = var.pool, volume = libvirt_volume.cloudinit.name } }
          target    = { dev = local.cdrom_dev, bus = var.cdrom_bus }
          driver    = { type = "raw" }
          read_only = true
          wwn       = null
        },
      ],
      [for d in local.data_disks : {
        device    = null
        source    = { volume = { pool = var.pool, volume = libvirt_volume.data[d.index].name } }
        target    = { dev = d.dev, bus = d.bus }
        driver    = { type = "qcow2" }
        read_only = null
        wwn       = d.wwn == null ? null : lower(d.wwn)
      }],
    )
    # Absent lists are null, not []: libvirt has no empty device lists, so
    # the provider reads them back as null.
    controllers = local.needs_scsi ? [{ type = "scsi", model = "virtio-scsi" }] : null
    interfaces  = local.interfaces
    serials     = [{ target = { port = 0 } }]
    consoles    = [{ target = { type = "serial", port = 0 } }]
    channels = [
      {
        source = { unix = {} }
        target = { virt_io = { name = "org.qemu.guest_agent.0" } }
      },
    ]
    graphics = var.graphics == null ? null : [
      { vnc = { listen = var.graphics.listen, auto_port = var.graphics.auto_port } },
    ]
  }
}

# The address lookup. Data sources have no host yet (the provider gives
# resources one), and this one would look the domain up on the provider's
# uri: on a named host it is left out, and ip_address is null.
data "libvirt_domain_interface_addresses" "this" {
  count = var.host == null ? 1 : 0

  domain = libvirt_domain.this.id
  source = var.address_source
  wait   = var.wait_for_ip_timeout == null || !var.running ? null : { timeout = var.wait_for_ip_timeout, until = "ipv4" }
}

locals {
  # Each NIC's fixed MAC, else the one libvirt assigned (read back into the
  # domain). The first NIC is the one whose address ip_address reports.
  nic_macs = [for i, n in local.nics :
    n.mac != null ? lower(n.mac) : try(lower(libvirt_domain.this.devices.interfaces[i].mac.address), null)
  ]
  nic_mac = local.nic_macs[0]
}

module "address" {
  source = "./modules/nic-address"

  interfaces  = one(data.libvirt_domain_interface_addresses.this[*].interfaces)
  mac_address = local.nic_mac
}

resource "libvirt_domain" "this" {
  host        = var.host
  name        = var.name
  type        = var.domain_type
  memory      = var.memory_mib
  memory_unit = "MiB"
  vcpu        = var.vcpus
  running     = var.running
  autostart   = var.autostart

  os = local.os

  # ACPI: graceful shutdown (virsh shutdown, the provider's stop) and PCI
  # hot-plug; UEFI needs it.
  features = local.features
  cpu      = local.cpu

  devices = local.devices
}
