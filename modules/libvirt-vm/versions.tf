terraform {
  # Cross-variable validation needs OpenTofu 1.9 / Terraform 1.9 or later.
  required_version = ">= 1.9.0"

  required_providers {
    libvirt = {
      source  = "virtxml/libvirt"
      version = ">= 0.1.0"
    }
  }
}
