# Production defines no resources yet: it pins the providers and the
# backend so that the first resources land in a prepared root.

provider "libvirt" {
  uri = var.libvirt_uri
}

provider "talos" {}

variable "libvirt_uri" {
  description = "libvirt connection URI of the production host, e.g. qemu+ssh://deploy@virt-1.example.internal/system. Required: production never defaults to the machine running tofu."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]+\\+(ssh|libssh|libssh2|tls|tcp)://([^@/]+@)?[^@/:?]+(:[0-9]+)?/", var.libvirt_uri))
    error_message = "libvirt_uri must name a remote host with a transport, e.g. qemu+ssh://deploy@virt-1.example.internal/system or qemu+tls://virt-1.example.internal/system."
  }

  validation {
    condition     = !can(regex("^[a-z0-9+]+://([^@/]+@)?(localhost|127\\.[0-9.]+|\\[::1\\])(:[0-9]+)?/", var.libvirt_uri))
    error_message = "libvirt_uri must not point at the local host (localhost, 127.x, [::1]): production runs against its own host."
  }
}
