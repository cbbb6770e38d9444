# The import block form: the id is the pool's name or UUID.
import {
  to = libvirt_pool.images
  id = "images"
}
