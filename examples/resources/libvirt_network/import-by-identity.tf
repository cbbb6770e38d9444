import {
  to       = libvirt_network.cluster
  identity = { uuid = "2f1e4f1b-59f1-4a45-9b8a-6a2c1d0e7f31" }
}
