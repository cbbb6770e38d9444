list "libvirt_domain_snapshot" "db" {
  provider         = libvirt
  include_resource = true
  config {
    domain = "db1"
  }
}
