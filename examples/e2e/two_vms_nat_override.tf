# Test-only override for examples/two-vms-nat on the local test machine
# (examples/e2e/two-vms-nat.sh copies it next to the example's main.tf):
# the network gets no forward (isolated: the guests have no route out), the
# guests install nothing and use the small direct-kernel test guest.
resource "libvirt_network" "nat" {
  forward = null
}

resource "libvirt_cloudinit_disk" "seed" {
  user_data = "#cloud-config\n{}\n"
}

locals {
  vms = {
    web = { mac = "52:54:00:11:03:0a", host = 10, memory = 512, vcpu = 1 }
    db  = { mac = "52:54:00:11:03:0b", host = 11, memory = 512, vcpu = 1 }
  }
}
