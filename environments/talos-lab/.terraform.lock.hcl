# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0"
  hashes = [
    "h1:0kZ4vXXKK7kHF4PtfIel98jtVY8BC7IxbCnbbBA8Ens=",
    "h1:rhRmMTtADqmQyGW3m0tsyr5gnxLhZ41jpijrV59xw2E=",
    "h1:stwtAOoQrJIQvcf44f50zMrGdPUrZ8vYrDwJ9jMBQXM=",
    "h1:vSu1+WrtHzaP73MLcBM73irBsunUlOiX+YCcHs+OCP8=",
  ]
}
