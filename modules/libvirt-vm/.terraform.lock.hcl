# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0"
  hashes = [
    "h1:QrG/+LqkeOPBcIs4R/AJT9ikjta8a4EkhnGqk+cCBs4=",
  ]
}
