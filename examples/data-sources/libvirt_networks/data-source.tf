data "libvirt_networks" "all" {
  name = "*"
}

# tofu apply && tofu output -raw adopt_networks > adopted_networks.tf
output "adopt_networks" {
  value = data.libvirt_networks.all.configuration
}
