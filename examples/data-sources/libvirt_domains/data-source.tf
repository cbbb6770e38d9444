# The OpenTofu path to adopting a host (see the guide "Adopting a whole host"):
# the running web domains, their import ids, and the configuration that adopts them.
data "libvirt_domains" "web" {
  name  = "web-*"
  state = "running"
}

output "web_import_ids" {
  value = { for d in data.libvirt_domains.web.objects : d.name => d.id }
}

# tofu apply && tofu output -raw adopt_web > adopted.tf
output "adopt_web" {
  value = data.libvirt_domains.web.configuration
}
