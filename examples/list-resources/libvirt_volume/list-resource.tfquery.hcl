list "libvirt_volume" "images" {
  provider         = libvirt
  include_resource = true
  config {
    pool = "default"
    name = "*.qcow2"
  }
}
