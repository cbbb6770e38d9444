# Production defines no resources yet: it pins the providers and the
# backend so that the first resources land in a prepared root.

provider "libvirt" {
  uri = var.libvirt_uri
}

provider "talos" {}

variable "libvirt_uri" {
  description = "libvirt connection URI of the production host, e.g. qemu+ssh://deploy@virt-1.example.internal/system."
  type        = string
  default     = "qemu:///system"
}
