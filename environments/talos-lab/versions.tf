terraform {
  required_version = ">= 1.9.0"

  required_providers {
    libvirt = {
      source  = "virtxml/libvirt"
      version = "~> 0.1"
    }
    talos = {
      source  = "siderolabs/talos"
      version = "~> 0.11.0"
    }
  }
}

provider "libvirt" {
  uri = var.libvirt_uri
}

provider "talos" {}
