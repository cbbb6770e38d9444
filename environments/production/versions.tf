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

  # State lives in a shared S3-compatible bucket with locking; the bucket,
  # key and endpoint are given at init time:
  #   tofu init -backend-config=production.s3.tfbackend (see README.md)
  backend "s3" {}
}
