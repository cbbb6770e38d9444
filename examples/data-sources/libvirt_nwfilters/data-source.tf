data "libvirt_nwfilters" "all" {
  name = "*"
}

# tofu apply && tofu output -raw adopt_nwfilters > adopted_nwfilters.tf
output "adopt_nwfilters" {
  value = data.libvirt_nwfilters.all.configuration
}
