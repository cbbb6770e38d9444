# The root disk may not be smaller than the uploaded image. This file has its
# own state: the mock provider updates in place, so a base volume left from
# another run would keep its earlier (mocked) capacity.
#
# Terraform applies overrides at apply time (override_during defaults to
# apply), so the check fails during apply here; OpenTofu reads
# disk_size.tofutest.hcl instead, where it fails during plan.

mock_provider "libvirt" {}

variables {
  name      = "vm1"
  pool      = "tfpool"
  image_url = "http://127.0.0.1:8080/debian-12.qcow2"
}

run "disk_smaller_than_image_rejected" {
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
