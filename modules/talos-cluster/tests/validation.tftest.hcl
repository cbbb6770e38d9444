# Every input validation rule rejects what it should.

mock_provider "libvirt" {}
mock_provider "talos" {}

variables {
  cluster_name  = "lab"
  talos_image   = "/var/tmp/talos/nocloud-amd64.raw"
  talos_version = "v1.9.5"
}

run "accepts_local_image_path" {
  command = plan

  assert {
    condition     = libvirt_volume.talos_image.create.content.url == "/var/tmp/talos/nocloud-amd64.raw"
    error_message = "an absolute path is a valid talos_image"
  }
}

run "reject_bad_cluster_name" {
  command = plan
  variables { cluster_name = "Lab_1" }
  expect_failures = [var.cluster_name]
}

run "reject_even_controlplane_count" {
  command = plan
  variables { controlplane_count = 2 }
  expect_failures = [var.controlplane_count]
}

run "reject_too_many_workers" {
  command = plan
  variables { worker_count = 21 }
  expect_failures = [var.worker_count]
}

run "reject_negative_workers" {
  command = plan
  variables { worker_count = -1 }
  expect_failures = [var.worker_count]
}

run "reject_small_controlplane_memory" {
  command = plan
  variables { controlplane = { memory_mib = 1024 } }
  expect_failures = [var.controlplane]
}

run "reject_single_vcpu_controlplane" {
  command = plan
  variables { controlplane = { vcpus = 1 } }
  expect_failures = [var.controlplane]
}

run "reject_small_controlplane_disk" {
  command = plan
  variables { controlplane = { disk_gib = 5 } }
  expect_failures = [var.controlplane]
}

run "reject_small_worker_memory" {
  command = plan
  variables { worker = { memory_mib = 512 } }
  expect_failures = [var.worker]
}

run "reject_zero_vcpu_worker" {
  command = plan
  variables { worker = { vcpus = 0 } }
  expect_failures = [var.worker]
}

run "reject_fractional_worker_disk" {
  command = plan
  variables { worker = { disk_gib = 12.5 } }
  expect_failures = [var.worker]
}

run "reject_relative_image" {
  command = plan
  variables { talos_image = "talos.raw" }
  expect_failures = [var.talos_image]
}

run "reject_unknown_image_format" {
  command = plan
  variables { talos_image_format = "vmdk" }
  expect_failures = [var.talos_image_format]
}

run "reject_bad_cidr" {
  command = plan
  variables { network_cidr = "10.17.0.0/33" }
  expect_failures = [var.network_cidr]
}

run "reject_ipv6_cidr" {
  command = plan
  variables { network_cidr = "fd00:17::/64" }
  expect_failures = [var.network_cidr]
}

run "reject_tiny_network" {
  command = plan
  variables { network_cidr = "10.17.0.0/28" }
  expect_failures = [var.network_cidr]
}

run "reject_bad_dns_domain" {
  command = plan
  variables { dns_domain = "Lab_Local" }
  expect_failures = [var.dns_domain]
}

run "reject_bad_talos_version" {
  command = plan
  variables { talos_version = "1.9" }
  expect_failures = [var.talos_version]
}

run "reject_bad_kubernetes_version" {
  command = plan
  variables { kubernetes_version = "latest" }
  expect_failures = [var.kubernetes_version]
}

run "reject_install_disk_outside_dev" {
  command = plan
  variables { install_disk = "vda" }
  expect_failures = [var.install_disk]
}

run "reject_vip_not_ipv4" {
  command = plan
  variables { vip = "api.lab.local" }
  expect_failures = [var.vip]
}

run "reject_unknown_domain_type" {
  command = plan
  variables { domain_type = "lxc" }
  expect_failures = [var.domain_type]
}
