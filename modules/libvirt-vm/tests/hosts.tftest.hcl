# host: every libvirt object of the VM is made through the named host's
# connection; without it the provider's own uri is used, as before.

mock_provider "libvirt" {
  mock_resource "libvirt_volume" {
    defaults = {
      path = "/var/lib/libvirt/images/mock.qcow2"
    }
  }
  mock_resource "libvirt_cloudinit_disk" {
    defaults = {
      path = "/tmp/mock-cloudinit.iso"
    }
  }
}

variables {
  name       = "vm1"
  pool       = "tfpool"
  image_url  = "http://127.0.0.1:8080/debian-12.qcow2"
  data_disks = [{ size_gib = 5 }, { size_gib = 6, bus = "scsi" }]
}

run "no_host_by_default" {
  command = plan

  assert {
    condition = alltrue(concat(
      [libvirt_volume.base[0].host == null, libvirt_volume.root.host == null, libvirt_volume.cloudinit.host == null, libvirt_domain.this.host == null],
      [for v in libvirt_volume.data : v.host == null],
    ))
    error_message = "without host nothing may name a host (the provider's own uri)"
  }
  assert {
    condition     = length(data.libvirt_domain_interface_addresses.this) == 1
    error_message = "without host the address lookup stays"
  }
}

run "host_reaches_every_object" {
  command = plan

  variables {
    host = "virt-2"
    # A fixed MAC: the address module's input is then known at plan.
    mac_address = "52:54:00:aa:bb:01"
  }

  assert {
    condition     = libvirt_volume.base[0].host == "virt-2" && libvirt_volume.root.host == "virt-2"
    error_message = "the base image and the root overlay must be on the VM's host"
  }
  assert {
    condition     = length(libvirt_volume.data) == 2 && alltrue([for v in libvirt_volume.data : v.host == "virt-2"])
    error_message = "every data disk must be on the VM's host"
  }
  assert {
    condition     = libvirt_volume.cloudinit.host == "virt-2"
    error_message = "the cloud-init ISO must be uploaded into the pool of the VM's host"
  }
  assert {
    condition     = libvirt_domain.this.host == "virt-2"
    error_message = "the domain must be defined on the VM's host"
  }
  assert {
    condition     = length(data.libvirt_domain_interface_addresses.this) == 0 && output.ip_address == null
    error_message = "the address data source has no host: on a named host it must be left out (it would ask the provider's uri)"
  }
}

run "reject_bad_host_name" {
  command = plan
  variables { host = "virt 2" }
  expect_failures = [var.host]
}

run "reject_empty_host_name" {
  command = plan
  variables { host = "" }
  expect_failures = [var.host]
}
