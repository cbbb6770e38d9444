# terraform apply -invoke=action.libvirt_domain_shutdown.web
# The domain stays shut off until something starts it: a libvirt_domain with
# running = true plans the start at the next apply.
action "libvirt_domain_shutdown" "web" {
  config {
    domain  = "web"
    timeout = "2m" # then forced off
  }
}
