list "libvirt_pool" "all" {
  provider         = libvirt
  include_resource = true
}
