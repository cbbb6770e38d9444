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
  description = "http(s):// or file:// URL of the base image to upload into the pool. Set exactly one of image_url, image_path, base_volume_name."
  type        = string
  default     = null

  validation {
    condition     = length([for s in [var.image_url, var.image_path, var.base_volume_name] : s if s != null && s != ""]) == 1
    error_message = "Set exactly one of image_url, image_path or base_volume_name."
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
  description = "Name of the libvirt network the virtio NIC is attached to."
  type        = string
  default     = "default"
  nullable    = false
}

variable "mac_address" {
  description = "Fixed MAC address of the NIC (for DHCP reservations); null lets libvirt pick one."
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
