terraform {
  required_providers {
    libvirt = {
      source = "virtxml/libvirt"
    }
  }
}

# The local system daemon. Without uri, the provider uses LIBVIRT_DEFAULT_URI,
# and qemu:///system when that is not set either.
provider "libvirt" {
  uri = "qemu:///system"
}
