# Without mac_address the module sets no MAC and reports the one libvirt
# assigned. A file of its own: the other file's state already holds a
# domain with a fixed MAC, which an in-place mock update would keep.

mock_provider "libvirt" {}

variables {
  name      = "vm1"
  image_url = "http://127.0.0.1:8080/debian-12.qcow2"
}

run "mac_output_is_libvirts" {
  # OpenTofu's mock leaves the computed MAC null, Terraform's invents one;
  # either way the output must be what the domain reports, not a fixed MAC.
  assert {
    condition     = output.mac_address == try(lower(libvirt_domain.this.devices.interfaces[0].mac.address), null)
    error_message = "mac_address must report the MAC libvirt assigned"
  }
}
