# A shared base volume: the caller uploads the image once and every
# instance gets a qcow2 overlay backed by that volume's path.

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
  name = "vm3"
  pool = "tfpool"
}

run "overlay_on_given_base_volume" {
  command = plan

  variables {
    base_volume = {
      name     = "golden.qcow2"
      pool     = "images"
      path     = "/srv/images/golden.qcow2"
      capacity = 4294967296
    }
  }

  assert {
    condition     = length(libvirt_volume.base) == 0
    error_message = "no image may be uploaded when base_volume is given"
  }
  assert {
    condition     = libvirt_volume.root.backing_store.path == "/srv/images/golden.qcow2" && libvirt_volume.root.backing_store.format.type == "qcow2"
    error_message = "the overlay must be backed by the base volume's absolute path"
  }
  assert {
    condition     = libvirt_volume.root.pool == "tfpool" && libvirt_volume.root.name == "vm3-root.qcow2"
    error_message = "the overlay lives in the module's pool"
  }
}

run "base_volume_capacity_checked" {
  command = plan

  variables {
    disk_size_gib = 2
    base_volume = {
      name     = "golden.qcow2"
      pool     = "images"
      path     = "/srv/images/golden.qcow2"
      capacity = 4294967296
    }
  }

  expect_failures = [libvirt_volume.root]
}

run "reject_base_volume_with_image_url" {
  command = plan

  variables {
    image_url   = "http://127.0.0.1:8080/debian-12.qcow2"
    base_volume = { name = "golden.qcow2", pool = "images", path = "/srv/images/golden.qcow2" }
  }

  expect_failures = [var.image_url]
}

run "one_upload_for_three_instances" {
  module {
    source = "./tests/shared-base"
  }

  # The fixture's base volume gets a path of its own; any volume the
  # instances made themselves would have the mock's default path.
  override_resource {
    target = libvirt_volume.base
    values = {
      path     = "/var/lib/libvirt/images/shared-base.qcow2"
      capacity = 2147483648
    }
  }

  assert {
    condition     = length(module.vm) == 3
    error_message = "the fixture must make three instances"
  }
  assert {
    condition     = alltrue([for k, m in module.vm : m.base_path == "/var/lib/libvirt/images/shared-base.qcow2"])
    error_message = "every instance's overlay must be backed by the one shared base volume"
  }
}
