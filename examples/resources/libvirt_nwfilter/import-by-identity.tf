import {
  to       = libvirt_nwfilter.guard
  identity = { uuid = "6d0c1a2b-3e4f-4a5b-8c9d-0e1f2a3b4c5d" }
}
