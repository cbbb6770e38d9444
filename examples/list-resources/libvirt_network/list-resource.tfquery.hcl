list "libvirt_network" "all" {
  provider         = libvirt
  include_resource = true
}
