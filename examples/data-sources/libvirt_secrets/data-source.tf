data "libvirt_secrets" "all" {
  name = "*"
}

# tofu apply && tofu output -raw adopt_secrets > adopted_secrets.tf
output "adopt_secrets" {
  value = data.libvirt_secrets.all.configuration
}
