# The root disk may not be smaller than the uploaded image. This file has its
# own state: the mock provider updates in place, so a base volume left from
# another run would keep its earlier (mocked) capacity.
#
# OpenTofu's copy of disk_size.tftest.hcl: OpenTofu mocks computed values
# at plan time and reports a precondition that fails during apply as an
# error rather than an expected failure, so the failing run is a plan here.

mock_provider "libvirt" {}

variables {
  name      = "vm1"
  pool      = "tfpool"
  image_url = "http://127.0.0.1:8080/debian-12.qcow2"
}

run "disk_smaller_than_image_rejected" {
  command = plan

  variables {
    disk_size_gib = 4
  }

  override_resource {
    target = libvirt_volume.base
    values = {
      capacity = 8589934592
    }
  }

  expect_failures = [libvirt_volume.root]
}

run "disk_as_large_as_image_accepted" {
  variables {
    disk_size_gib = 8
  }

  override_resource {
    target = libvirt_volume.base
    values = {
      capacity = 8589934592
    }
  }

  assert {
    condition     = libvirt_volume.root.capacity == 8589934592 && libvirt_volume.base[0].capacity == 8589934592
    error_message = "an 8 GiB disk on an 8 GiB image must be accepted"
  }
}
