variable "libvirt_uri" {
  description = "libvirt connection URI."
  type        = string
  default     = "qemu:///system"
}

variable "pool" {
  description = "Storage pool for the Talos image and node disks."
  type        = string
  default     = "default"
}

variable "domain_type" {
  description = "\"kvm\", or \"qemu\" where KVM guests cannot run (Talos under TCG is very slow)."
  type        = string
  default     = "kvm"
}

variable "talos_image" {
  description = "Talos nocloud disk image in raw format (http(s)/file URL or absolute local path), e.g. nocloud-amd64.raw downloaded from the Talos Image Factory and decompressed."
  type        = string
}

variable "talos_version" {
  description = "Talos version of the image."
  type        = string
  default     = "v1.9.5"
}
