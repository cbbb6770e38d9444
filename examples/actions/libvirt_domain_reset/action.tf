# A hung guest: terraform apply -invoke=action.libvirt_domain_reset.web
action "libvirt_domain_reset" "web" {
  config {
    domain = "web"
  }
}
