variable "name" {
  description = "Domain name; also the prefix of every volume the module creates."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$", var.name))
    error_message = "name must be 1-63 characters of lowercase letters, digits and '-', starting and ending with a letter or digit (it is also used as the hostname)."
  }
}

variable "pool" {
  description = "Storage pool for the base image, the root overlay and the cloud-init ISO volume."
  type        = string
  default     = "default"
  nullable    = false
}

variable "image_url" {
  description = "http(s):// or file:// URL of the base image to upload into the pool. Set exactly one of image_url, image_path, base_volume, base_volume_name."
  type        = string
  default     = null

  validation {
    condition     = length([for s in [var.image_url, var.image_path, var.base_volume_name] : s if s != null && s != ""]) + (var.base_volume == null ? 0 : 1) == 1
    error_message = "Set exactly one of image_url, image_path, base_volume or base_volume_name."
  }

  validation {
    condition     = var.image_url == null || can(regex("^(https?|file)://", var.image_url))
    error_message = "image_url must start with http://, https:// or file:// (use image_path for a local path)."
  }
}

variable "image_path" {
  description = "Local path (on the machine running tofu) of the base image to upload into the pool."
  type        = string
  default     = null

  validation {
    condition     = var.image_path == null || startswith(coalesce(var.image_path, "/"), "/")
    error_message = "image_path must be an absolute path."
  }
}

variable "base_volume_name" {
  description = "Name of an existing volume in pool (a directory pool) to use as the backing image instead of uploading one; several VMs can share it."
  type        = string
  default     = null

  validation {
    condition     = var.base_volume_name == null || can(regex("^[^/]+$", coalesce(var.base_volume_name, "-")))
    error_message = "base_volume_name is a volume name in pool, not a path: it must not contain '/'."
  }
}

variable "base_volume" {
  description = "A shared base volume created once by the caller (pass the libvirt_volume resource itself, e.g. base_volume = libvirt_volume.base): each instance gets a qcow2 overlay backed by its absolute path, so N instances need one upload. Its capacity, when known, is checked against disk_size_gib; image_format must be its format. null: see image_url."
  type = object({
    name     = string
    pool     = string
    path     = string
    capacity = optional(number)
  })
  default = null
}

variable "image_format" {
  description = "Format of the base image (qcow2 or raw)."
  type        = string
  default     = "qcow2"
  nullable    = false

  validation {
    condition     = contains(["qcow2", "raw"], var.image_format)
    error_message = "image_format must be \"qcow2\" or \"raw\"."
  }
}

variable "disk_size_gib" {
  description = "Size of the root disk (a qcow2 overlay on the base image) in GiB. It must not be smaller than the image."
  type        = number
  default     = 10
  nullable    = false

  validation {
    condition     = var.disk_size_gib >= 1 && var.disk_size_gib <= 65536 && floor(var.disk_size_gib) == var.disk_size_gib
    error_message = "disk_size_gib must be a whole number of GiB between 1 and 65536."
  }
}

variable "domain_type" {
  description = "libvirt domain type: \"kvm\" (hardware virtualization) or \"qemu\" (TCG emulation, for hosts without usable KVM)."
  type        = string
  default     = "kvm"
  nullable    = false

  validation {
    condition     = contains(["kvm", "qemu"], var.domain_type)
    error_message = "domain_type must be \"kvm\" or \"qemu\"."
  }
}

variable "memory_mib" {
  description = "Memory in MiB (sent to libvirt with memory_unit = \"MiB\")."
  type        = number
  default     = 1024
  nullable    = false

  validation {
    condition     = var.memory_mib >= 128 && var.memory_mib <= 1048576 && floor(var.memory_mib) == var.memory_mib
    error_message = "memory_mib must be a whole number of MiB between 128 and 1048576 (1 TiB)."
  }
}

variable "vcpus" {
  description = "Number of virtual CPUs."
  type        = number
  default     = 1
  nullable    = false

  validation {
    condition     = var.vcpus >= 1 && var.vcpus <= 256 && floor(var.vcpus) == var.vcpus
    error_message = "vcpus must be a whole number between 1 and 256."
  }
}

variable "network_name" {
  description = "Name of the libvirt network of the single virtio NIC used when network_interfaces is null."
  type        = string
  default     = "default"
  nullable    = false
}

variable "mac_address" {
  description = "Fixed MAC address of the single NIC used when network_interfaces is null (for DHCP reservations); null lets libvirt pick one."
  type        = string
  default     = null

  validation {
    condition     = var.mac_address == null || can(regex("^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$", coalesce(var.mac_address, "-")))
    error_message = "mac_address must be six colon-separated hex octets, for example 52:54:00:12:34:56."
  }

  validation {
    condition     = var.mac_address == null || try(parseint(substr(coalesce(var.mac_address, "00"), 0, 2), 16) % 2 == 0, false)
    error_message = "mac_address must be a unicast address (the lowest bit of the first octet must be 0)."
  }
}

variable "network_interfaces" {
  description = <<-EOT
    The VM's NICs, in order (the first one's address is the ip_address output); null: one virtio NIC on network_name with mac_address.
    Each: type "network" (a libvirt network: set network), "bridge" (a host bridge such as br0: set bridge) or "macvtap" (a direct
    attachment to a host interface: set dev; mode "bridge" (default), "vepa", "private" or "passthrough"); mac (null: libvirt picks
    one); model (default "virtio"). Bridge and macvtap NICs get no libvirt DHCP lease: use address_source = "agent" for them.
  EOT
  type = list(object({
    type    = optional(string, "network")
    network = optional(string)
    bridge  = optional(string)
    dev     = optional(string)
    mode    = optional(string, "bridge")
    mac     = optional(string)
    model   = optional(string, "virtio")
  }))
  default = null

  validation {
    condition     = var.network_interfaces == null || try(length(var.network_interfaces) >= 1, false)
    error_message = "network_interfaces must list at least one NIC (or be null for the single NIC of network_name)."
  }

  validation {
    condition     = alltrue([for n in coalesce(var.network_interfaces, []) : contains(["network", "bridge", "macvtap"], n.type)])
    error_message = "Each NIC's type must be \"network\", \"bridge\" or \"macvtap\"."
  }

  validation {
    condition = alltrue([for n in coalesce(var.network_interfaces, []) :
      (n.type == "network") == (n.network != null) && (n.type == "bridge") == (n.bridge != null) && (n.type == "macvtap") == (n.dev != null)
    ])
    error_message = "Each NIC sets exactly the field of its type: network for \"network\", bridge for \"bridge\", dev for \"macvtap\"."
  }

  validation {
    condition     = alltrue([for n in coalesce(var.network_interfaces, []) : contains(["bridge", "vepa", "private", "passthrough"], n.mode)])
    error_message = "A macvtap NIC's mode must be \"bridge\", \"vepa\", \"private\" or \"passthrough\"."
  }

  validation {
    condition = alltrue([for n in coalesce(var.network_interfaces, []) :
      n.mac == null || (can(regex("^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$", coalesce(n.mac, "-"))) && try(parseint(substr(coalesce(n.mac, "00"), 0, 2), 16) % 2 == 0, false))
    ])
    error_message = "Each NIC's mac must be six colon-separated hex octets of a unicast address, for example 52:54:00:12:34:56."
  }

  validation {
    condition     = length(distinct([for n in coalesce(var.network_interfaces, []) : lower(n.mac) if n.mac != null])) == length([for n in coalesce(var.network_interfaces, []) : n.mac if n.mac != null])
    error_message = "Two NICs have the same mac."
  }

  validation {
    condition     = alltrue([for n in coalesce(var.network_interfaces, []) : can(regex("^[a-z0-9-]+$", n.model))])
    error_message = "Each NIC's model must be a QEMU NIC model name such as virtio, e1000e or rtl8139."
  }

  validation {
    condition     = var.network_interfaces == null || (var.mac_address == null && var.network_name == "default")
    error_message = "network_interfaces replaces network_name and mac_address: set the network and mac in each NIC instead."
  }
}

variable "data_disks" {
  description = "Extra empty qcow2 disks in pool (<name>-data-N.qcow2), attached after the root disk: size_gib (whole GiB), bus \"virtio\" (default; vdb, vdc, ...) or \"scsi\" (sda, sdb, sdd, ... on the virtio-scsi controller), and on scsi an optional wwn (16 hex digits) so the guest sees a stable /dev/disk/by-id name."
  type = list(object({
    size_gib = number
    bus      = optional(string, "virtio")
    wwn      = optional(string)
  }))
  default  = []
  nullable = false

  validation {
    condition     = alltrue([for d in var.data_disks : d.size_gib >= 1 && d.size_gib <= 65536 && floor(d.size_gib) == d.size_gib])
    error_message = "Each data disk's size_gib must be a whole number of GiB between 1 and 65536."
  }

  validation {
    condition     = alltrue([for d in var.data_disks : contains(["virtio", "scsi"], d.bus)])
    error_message = "Each data disk's bus must be \"virtio\" or \"scsi\"."
  }

  validation {
    condition     = alltrue([for d in var.data_disks : d.wwn == null || (d.bus == "scsi" && can(regex("^(0x)?[0-9A-Fa-f]{16}$", coalesce(d.wwn, "-"))))])
    error_message = "A data disk's wwn must be 16 hex digits, and only scsi disks have one (libvirt refuses a wwn on virtio)."
  }

  validation {
    condition     = length(distinct([for d in var.data_disks : lower(trimprefix(d.wwn, "0x")) if d.wwn != null])) == length([for d in var.data_disks : d.wwn if d.wwn != null])
    error_message = "Two data disks have the same wwn."
  }

  validation {
    condition     = length([for d in var.data_disks : d if d.bus == "virtio"]) <= 24 && length([for d in var.data_disks : d if d.bus == "scsi"]) <= 24
    error_message = "At most 24 data disks per bus."
  }
}

variable "firmware" {
  description = "\"bios\" (default: SeaBIOS) or \"efi\" (UEFI: libvirt selects OVMF from the host's firmware descriptors, e.g. Debian's ovmf package; needs acpi)."
  type        = string
  default     = "bios"
  nullable    = false

  validation {
    condition     = contains(["bios", "efi"], var.firmware)
    error_message = "firmware must be \"bios\" or \"efi\"."
  }

  validation {
    condition     = var.firmware != "efi" || var.acpi
    error_message = "firmware = \"efi\" needs acpi = true (OVMF requires ACPI)."
  }
}

variable "machine" {
  description = "QEMU machine type (os type_machine), e.g. \"q35\" or \"pc\"; null (default) lets libvirt choose (pc on x86_64)."
  type        = string
  default     = null

  validation {
    condition     = var.machine == null || can(regex("^[a-z0-9][a-z0-9._-]*$", coalesce(var.machine, "-")))
    error_message = "machine must be a QEMU machine type such as q35, pc or pc-q35-7.2."
  }
}

variable "cpu_mode" {
  description = "CPU mode: \"host-passthrough\" (the host CPU; kvm only), \"host-model\", \"maximum\" (everything the hypervisor can emulate) or \"custom\" (needs cpu_model). null (default) with cpu_model null: libvirt's default CPU (qemu64 on x86_64, which lacks x86-64-v2)."
  type        = string
  default     = null

  validation {
    condition     = var.cpu_mode == null || contains(["host-passthrough", "host-model", "maximum", "custom"], coalesce(var.cpu_mode, "-"))
    error_message = "cpu_mode must be \"host-passthrough\", \"host-model\", \"maximum\" or \"custom\"."
  }

  validation {
    condition     = var.cpu_mode != "host-passthrough" || var.domain_type == "kvm"
    error_message = "cpu_mode = \"host-passthrough\" needs domain_type = \"kvm\" (TCG cannot pass the host CPU through; use \"maximum\" or a named cpu_model)."
  }
}

variable "cpu_model" {
  description = "Named CPU model (e.g. \"Nehalem\", \"EPYC\", \"max\"), sent with mode custom; null: none. Only with cpu_mode null or \"custom\"."
  type        = string
  default     = null

  validation {
    condition     = var.cpu_model == null || contains(["custom"], coalesce(var.cpu_mode, "custom"))
    error_message = "cpu_model only goes with cpu_mode = \"custom\" (or cpu_mode unset)."
  }

  validation {
    condition     = var.cpu_mode != "custom" || var.cpu_model != null
    error_message = "cpu_mode = \"custom\" needs a cpu_model."
  }
}

variable "acpi" {
  description = "Expose ACPI to the guest (features acpi): graceful shutdown through the power button and PCI hot-plug. Default true."
  type        = bool
  default     = true
  nullable    = false
}

variable "cdrom_bus" {
  description = "Bus of the cloud-init CD-ROM. \"scsi\" (default) adds a virtio-scsi controller; Debian cloud kernels have no SATA driver, so \"sata\" only suits guests that have one."
  type        = string
  default     = "scsi"
  nullable    = false

  validation {
    condition     = contains(["scsi", "sata", "ide"], var.cdrom_bus)
    error_message = "cdrom_bus must be \"scsi\", \"sata\" or \"ide\"."
  }
}

variable "user_data" {
  description = "cloud-init user-data; null renders a default #cloud-config that sets the hostname and installs ssh_authorized_keys."
  type        = string
  default     = null
  sensitive   = true
}

variable "ssh_authorized_keys" {
  description = "SSH public keys for the default user-data (ignored when user_data is set)."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "meta_data" {
  description = "cloud-init meta-data; null renders instance-id and local-hostname from name."
  type        = string
  default     = null
}

variable "network_config" {
  description = "cloud-init network-config (version 1 or 2 YAML); null lets the guest use DHCP."
  type        = string
  default     = null
}

variable "kernel" {
  description = "Host path of a kernel for direct kernel boot; null boots from the disk."
  type        = string
  default     = null
}

variable "initrd" {
  description = "Host path of the initrd for direct kernel boot (requires kernel)."
  type        = string
  default     = null

  validation {
    condition     = var.initrd == null || var.kernel != null
    error_message = "initrd requires kernel (direct kernel boot)."
  }
}

variable "cmdline" {
  description = "Kernel command line for direct kernel boot (requires kernel), e.g. \"root=/dev/vda rw console=ttyS0\"."
  type        = string
  default     = null

  validation {
    condition     = var.cmdline == null || var.kernel != null
    error_message = "cmdline requires kernel (direct kernel boot)."
  }
}

variable "graphics" {
  description = "VNC console, or null for none. listen is the host address VNC binds to (keep it on loopback); auto_port lets libvirt pick the port."
  type = object({
    listen    = optional(string, "127.0.0.1")
    auto_port = optional(bool, true)
  })
  default = null
}

variable "autostart" {
  description = "Start the domain when libvirtd starts."
  type        = bool
  default     = false
  nullable    = false
}

variable "running" {
  description = "Whether the domain should be running."
  type        = bool
  default     = true
  nullable    = false
}

variable "address_source" {
  description = "Where the ip_address output is read from: \"lease\" (libvirt's DHCP leases), \"agent\" (qemu guest agent), \"arp\" or \"any\"."
  type        = string
  default     = "lease"
  nullable    = false

  validation {
    condition     = contains(["lease", "agent", "arp", "any"], var.address_source)
    error_message = "address_source must be one of \"lease\", \"agent\", \"arp\", \"any\"."
  }
}

variable "wait_for_ip_timeout" {
  description = "How long reading the address waits for the guest to report an IPv4 address (e.g. \"5m\"); null reads once without waiting (the output may then be null until the next refresh)."
  type        = string
  default     = "5m"
}

variable "host" {
  description = "The libvirt host the VM lives on: a name from the provider's hosts map. Every volume the module creates (base image, root overlay, data disks, cloud-init ISO) and the domain use that host's connection; the address lookup is left out (data sources have no host yet), so ip_address is null. null (default): the provider's own uri, as before hosts existed."
  type        = string
  default     = null

  validation {
    condition     = var.host == null || can(regex("^[A-Za-z0-9][A-Za-z0-9_.-]*$", coalesce(var.host, "-")))
    error_message = "host must be the name of one of the provider's hosts (letters, digits, '_', '.', '-'), or null for the provider's own uri."
  }
}
