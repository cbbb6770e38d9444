import {
  to       = libvirt_secret.data_luks
  identity = { uuid = "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d" }
}
