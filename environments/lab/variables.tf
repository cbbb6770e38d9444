variable "libvirt_uri" {
  description = "libvirt connection URI."
  type        = string
  default     = "qemu:///system"
}

variable "name_prefix" {
  description = "Prefix of the network and VM names (lets several copies of the lab share a host)."
  type        = string
  default     = "lab"
}

variable "pool" {
  description = "Storage pool for the VMs' volumes."
  type        = string
  default     = "default"
}

variable "domain_type" {
  description = "\"kvm\", or \"qemu\" where KVM guests cannot run."
  type        = string
  default     = "kvm"
}

variable "network_cidr" {
  description = "Subnet of the lab's isolated network (no forwarding: the VMs reach only each other and the host)."
  type        = string
  default     = "10.77.0.0/24"
}

variable "guest_dir" {
  description = "Directory of a locally built guest (root.qcow2, vmlinuz, initrd.img, booted with direct kernel boot), as made by scripts/build-guest-image.sh; null uses image_url instead."
  type        = string
  default     = null
}

variable "image_url" {
  description = "Cloud image for the VMs when guest_dir is null."
  type        = string
  default     = "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2"
}

variable "vms" {
  description = "The lab's VMs: name suffix => size and host number in network_cidr (the DHCP reservation)."
  type = map(object({
    host          = number
    memory_mib    = optional(number, 512)
    vcpus         = optional(number, 1)
    disk_size_gib = optional(number, 4)
  }))
  default = {
    "1" = { host = 11 }
    "2" = { host = 12 }
  }
}

variable "ssh_authorized_keys" {
  description = "SSH keys installed in every VM."
  type        = list(string)
  default     = []
}
