# terraform query -generate-config-out=adopted.tf
list "libvirt_domain" "web" {
  provider         = libvirt
  include_resource = true
  config {
    name  = "web-*"   # a shell pattern
    state = "running" # or "stopped"
  }
}
