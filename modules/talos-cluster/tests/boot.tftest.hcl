# What a Talos image needs to boot and run under libvirt: an x86-64-v2 CPU
# chosen from the domain type, ACPI, q35 (and UEFI on request), the guest
# agent channel, SCSI disks with stable WWNs and the install disk that
# matches them.
#
# Attributes the module leaves unset are Optional+Computed in the provider, so
# a mock provider invents values for them: "unset" is asserted on the module's
# locals (local.os, local.node_devices, local.cpu).

mock_provider "libvirt" {}
mock_provider "talos" {}

variables {
  cluster_name       = "lab"
  talos_image        = "/var/tmp/talos/nocloud-amd64.raw"
  talos_version      = "v1.9.5"
  controlplane_count = 3
  worker_count       = 2
  # Given secrets, so runs may apply (the module's own have prevent_destroy).
  machine_secrets = {
    machine_secrets = {
      certs = {
        etcd               = { cert = "ZQ==", key = "ZQ==" }
        k8s                = { cert = "aw==", key = "aw==" }
        k8s_aggregator     = { cert = "YQ==", key = "YQ==" }
        k8s_serviceaccount = { key = "cw==" }
        os                 = { cert = "bw==", key = "bw==" }
      }
      cluster    = { id = "boot-test", secret = "c2VjcmV0" }
      secrets    = { bootstrap_token = "abcdef.0123456789abcdef", secretbox_encryption_secret = "Yg==" }
      trustdinfo = { token = "t.t" }
    }
    client_configuration = { ca_certificate = "bw==", client_certificate = "Yw==", client_key = "aw==" }
  }
}

run "kvm_passes_the_host_cpu_through" {
  command = plan

  assert {
    # cpu.model is left unset (Optional+Computed: a mock invents one), so the module's own value is checked
    condition     = alltrue([for d in libvirt_domain.node : d.type == "kvm" && d.cpu.mode == "host-passthrough"]) && local.cpu.model == null
    error_message = "under kvm every node must get the host CPU (host-passthrough)"
  }
}

run "tcg_gets_qemus_maximum_cpu" {
  command = plan

  variables {
    domain_type = "qemu"
  }

  assert {
    condition     = alltrue([for d in libvirt_domain.node : d.type == "qemu" && d.cpu.mode == "maximum"]) && local.cpu.model == null
    error_message = "under qemu (TCG) every node must get mode maximum (-cpu max), not the qemu64 default"
  }
}

run "named_cpu_model" {
  command = plan

  variables {
    domain_type = "qemu"
    cpu_model   = "Nehalem"
  }

  assert {
    condition     = alltrue([for d in libvirt_domain.node : d.cpu.mode == "custom" && d.cpu.model == "Nehalem"])
    error_message = "a cpu_model must be sent as mode custom with that model, whatever the domain type"
  }
}

run "reject_cpu_below_x86_64_v2" {
  command = plan
  variables { cpu_model = "qemu64" }
  expect_failures = [var.cpu_model]
}

run "reject_core2duo" {
  command = plan
  variables { cpu_model = "Core2Duo" }
  expect_failures = [var.cpu_model]
}

run "reject_bad_cpu_model_name" {
  command = plan
  variables { cpu_model = "host passthrough" }
  expect_failures = [var.cpu_model]
}

run "acpi_q35_bios_by_default" {
  command = plan

  assert {
    condition     = alltrue([for d in libvirt_domain.node : d.features.acpi != null && d.features.apic != null])
    error_message = "every node needs ACPI (graceful shutdown) and APIC"
  }
  assert {
    condition     = alltrue([for d in libvirt_domain.node : d.os.type_machine == "q35"]) && local.os.firmware == null && local.os.firmware_info == null
    error_message = "nodes must be q35 with BIOS by default"
  }
}

run "uefi_on_request" {
  command = plan

  variables {
    firmware = "efi"
  }

  assert {
    condition     = alltrue([for d in libvirt_domain.node : d.os.firmware == "efi" && d.os.type_machine == "q35" && d.features.acpi != null])
    error_message = "firmware efi must reach every node, on q35 with ACPI"
  }
  assert {
    condition = alltrue([for d in libvirt_domain.node :
      length(d.os.firmware_info.features) == 1 && d.os.firmware_info.features[0].name == "secure-boot" && d.os.firmware_info.features[0].enabled == "no"
    ])
    error_message = "UEFI nodes must ask for a firmware without Secure Boot (Talos' standard images are not signed for the enrolled Microsoft keys)"
  }
}

run "reject_efi_on_pc" {
  command = plan
  variables {
    firmware = "efi"
    machine  = "pc"
  }
  expect_failures = [var.firmware]
}

run "reject_unknown_machine" {
  command = plan
  variables { machine = "virt" }
  expect_failures = [var.machine]
}

run "reject_unknown_firmware" {
  command = plan
  variables { firmware = "uefi" }
  expect_failures = [var.firmware]
}

run "guest_agent_channel" {
  command = plan

  assert {
    condition = alltrue([for d in libvirt_domain.node :
      length(d.devices.channels) == 1 && d.devices.channels[0].target.virt_io.name == "org.qemu.guest_agent.0" && d.devices.channels[0].source.unix != null
    ])
    error_message = "every node needs the virtio-serial guest agent channel org.qemu.guest_agent.0"
  }
}

# Applied, so that later runs can compare with its outputs (OpenTofu leaves
# a plan run's outputs unknown to later runs).
run "scsi_disks_with_wwn" {
  assert {
    condition = alltrue([for d in libvirt_domain.node :
      d.devices.disks[0].target.bus == "scsi" && d.devices.disks[0].target.dev == "sda" && can(regex("^0x5[0-9a-f]{15}$", d.devices.disks[0].wwn))
    ])
    error_message = "every node disk must be sda on scsi with an NAA-5 WWN (0x5 + 15 hex digits)"
  }
  assert {
    condition     = alltrue([for d in libvirt_domain.node : length(d.devices.controllers) == 1 && d.devices.controllers[0].type == "scsi" && d.devices.controllers[0].model == "virtio-scsi"])
    error_message = "scsi disks need a virtio-scsi controller"
  }
  assert {
    condition     = length(distinct([for d in libvirt_domain.node : d.devices.disks[0].wwn])) == 5
    error_message = "WWNs must differ between nodes"
  }
  assert {
    condition     = alltrue([for name, d in libvirt_domain.node : d.devices.disks[0].wwn == output.nodes[name].wwn])
    error_message = "the nodes output must report each disk's WWN"
  }
}

run "wwns_differ_between_clusters" {
  command = plan

  variables {
    cluster_name = "other"
    lab_nodes    = run.scsi_disks_with_wwn.nodes
  }

  assert {
    condition     = length(setintersection([for n in output.nodes : n.wwn], [for n in var.lab_nodes : n.wwn])) == 0
    error_message = "two clusters on one host must not share WWNs"
  }
}

run "wwns_stable_when_workers_are_added" {
  command = plan

  variables {
    worker_count = 4
    lab_nodes    = run.scsi_disks_with_wwn.nodes
  }

  assert {
    condition     = length(var.lab_nodes) == 5 && alltrue([for name, n in var.lab_nodes : output.nodes[name].wwn == n.wwn])
    error_message = "adding nodes must not change the WWN of existing nodes"
  }
}

run "install_disk_follows_the_bus" {
  command = plan

  variables {
    disk_bus      = "virtio"
    image_factory = false # the install patch is then known at plan
  }

  assert {
    condition     = alltrue([for d in libvirt_domain.node : d.devices.disks[0].target.bus == "virtio" && d.devices.disks[0].target.dev == "vda"]) && alltrue([for d in local.node_devices : d.disks[0].wwn == null])
    error_message = "disk_bus virtio: vda without WWN (libvirt refuses a WWN on virtio)"
  }
  assert {
    condition     = alltrue([for d in local.node_devices : d.controllers == null])
    error_message = "no SCSI controller without SCSI disks"
  }
  assert {
    condition     = yamldecode(data.talos_machine_configuration.role["worker"].config_patches[0]).machine.install.disk == "/dev/vda"
    error_message = "on virtio Talos must install to /dev/vda"
  }
}

run "reject_unknown_disk_bus" {
  command = plan
  variables { disk_bus = "sata" }
  expect_failures = [var.disk_bus]
}

run "boots_the_disk_by_default" {
  command = plan

  assert {
    condition     = local.os.kernel == null && local.os.initrd == null && local.os.cmdline == null
    error_message = "without kernel_boot the nodes boot their disk"
  }
}

run "direct_kernel_boot" {
  command = plan

  variables {
    kernel_boot = {
      kernel  = "/var/lib/talos/kernel-amd64"
      initrd  = "/var/lib/talos/initramfs-amd64.xz"
      cmdline = "talos.platform=nocloud console=ttyS0"
    }
  }

  assert {
    condition = alltrue([for d in libvirt_domain.node :
      d.os.kernel == "/var/lib/talos/kernel-amd64" && d.os.initrd == "/var/lib/talos/initramfs-amd64.xz" && d.os.cmdline == "talos.platform=nocloud console=ttyS0"
    ])
    error_message = "kernel_boot must reach every node's os"
  }
}

run "reject_relative_kernel_path" {
  command = plan
  variables { kernel_boot = { kernel = "kernel-amd64" } }
  expect_failures = [var.kernel_boot]
}
