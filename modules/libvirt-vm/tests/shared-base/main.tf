# Test fixture (tests/shared_base.tftest.hcl): the caller uploads one base
# volume and passes it to several instances of the module, as
# environments/lab does.

terraform {
  required_providers {
    libvirt = { source = "virtxml/libvirt" }
  }
}

variable "instances" {
  type    = set(string)
  default = ["a", "b", "c"]
}

resource "libvirt_volume" "base" {
  name   = "shared-base.qcow2"
  pool   = "tfpool"
  target = { format = { type = "qcow2" } }
  create = { content = { url = "http://127.0.0.1:8080/debian-12.qcow2" } }
}

module "vm" {
  source   = "../.."
  for_each = var.instances

  name          = "shared-${each.key}"
  pool          = "tfpool"
  base_volume   = libvirt_volume.base
  disk_size_gib = 8
}

output "disk_paths" {
  value = { for k, m in module.vm : k => m.disk_path }
}
