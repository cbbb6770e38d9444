import {
  to       = libvirt_domain.web1
  identity = { uuid = "8b5bd4b2-6f6c-4a4c-9d5c-0c7f4c3b2a10" }
}
