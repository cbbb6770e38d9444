# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0, ~> 0.1"
  hashes = [
    "h1:7FkarNefaQf1bZ7WDQZZCXZZDr27ibL1rJ7dJ89BUvo=",
    "h1:MT7Lu3zZyXIpQaxOO+Snaltw8EZlDX02B2o4LbcBaH4=",
    "h1:aKdKCzurfSvt12M+PPeagoWNSmi4aXimeD4PqXfEvGw=",
    "h1:o7URNyJgQ8+JOU2KPtmAEqxLSd7nWnGVt+eZqdURob8=",
  ]
}
