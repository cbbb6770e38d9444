data "libvirt_pools" "all" {
  name = "*"
}

# tofu apply && tofu output -raw adopt_pools > adopted_pools.tf
output "adopt_pools" {
  value = data.libvirt_pools.all.configuration
}
