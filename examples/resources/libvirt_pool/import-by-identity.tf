import {
  to       = libvirt_pool.images
  identity = { uuid = "c3a4e2d1-7b8f-4e2a-9c1d-5f6e7a8b9c0d" }
}
