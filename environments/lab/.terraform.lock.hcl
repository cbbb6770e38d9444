# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0"
  hashes = [
    "h1:c5JYP1cUCmS2JPFHKRxz3+uZ6i2pcmm7d11VkYB267s=",
    "h1:ojaxPP0kQ4GK3xt8K6eZU4CYRe3NgulAGcSodU31hms=",
    "h1:rjnyi1Tbd2/XmxD+XoQGzl2Vu72m8YH7uugQjsOsPpM=",
    "h1:tIhtZQOmpimEtYR+nXW/1PBy5c2NEHbq7EuYxrb7SQg=",
  ]
}
