# Sizes without their unit: libvirt reads a domain's memory in KiB and a
# volume's capacity in bytes.
variable "memory" {
  type    = number
  default = 2048
}

resource "libvirt_domain" "kib" {
  name           = "kib"
  type           = "kvm"
  memory         = 2048
  current_memory = 1024
  os             = { type = "hvm" }
}

resource "libvirt_domain" "kib_from_variable" {
  name   = "kib-from-variable"
  type   = "kvm"
  memory = var.memory
}

resource "libvirt_domain" "kib_on_purpose" {
  name                = "kib-on-purpose"
  type                = "kvm"
  memory              = 2097152
  memory_unit         = "KiB"
  maximum_memory      = 4
  maximum_memory_unit = "GiB"
}

resource "libvirt_volume" "bytes" {
  name       = "bytes.qcow2"
  pool       = "default"
  capacity   = 20
  allocation = 512
}

resource "libvirt_volume" "big_enough" {
  name     = "big.raw"
  pool     = "default"
  capacity = 10737418240
}

resource "libvirt_volume" "with_unit" {
  name          = "unit.qcow2"
  pool          = "default"
  capacity      = 20
  capacity_unit = "GiB"
}
