# libvirt ships filters of its own (clean-traffic, ...): list yours by name
list "libvirt_nwfilter" "mine" {
  provider         = libvirt
  include_resource = true
  config {
    name = "site-*"
  }
}
