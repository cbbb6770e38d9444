# Mock-provider tests of the hardware inputs of modules/libvirt-vm: the NIC
# list (network, bridge, macvtap), data disks, firmware, machine, CPU and
# ACPI, and the rules that reject what libvirt would refuse or what cannot
# mean anything.
#
# Document attributes are Optional+Computed (the provider keeps what libvirt
# holds where the configuration is silent), so the mock provider invents
# values for those the module leaves unset: "left unset" is asserted on what
# the module writes (its locals), not on the mocked result.

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
  name      = "vm2"
  pool      = "tfpool"
  image_url = "http://127.0.0.1:8080/debian-12.qcow2"
}

# --- NICs -------------------------------------------------------------------

run "single_nic_when_no_list" {
  command = plan

  variables {
    network_name = "labnet"
  }

  assert {
    condition     = length(libvirt_domain.this.devices.interfaces) == 1 && libvirt_domain.this.devices.interfaces[0].source.network.network == "labnet"
    error_message = "without network_interfaces the VM keeps one NIC on network_name"
  }
  assert {
    condition     = libvirt_domain.this.devices.interfaces[0].type == "network" && libvirt_domain.this.devices.interfaces[0].model.type == "virtio"
    error_message = "the single NIC is a virtio NIC of type network"
  }
}

run "three_nics_network_bridge_macvtap" {
  command = plan

  variables {
    network_interfaces = [
      { network = "labnet", mac = "52:54:00:0A:00:01" },
      { type = "bridge", bridge = "br0", mac = "52:54:00:0a:00:02", model = "e1000e" },
      { type = "macvtap", dev = "eno1", mode = "vepa" },
    ]
  }

  assert {
    condition     = length(libvirt_domain.this.devices.interfaces) == 3
    error_message = "every listed NIC must become an interface, in order"
  }
  assert {
    condition = (libvirt_domain.this.devices.interfaces[0].type == "network"
      && libvirt_domain.this.devices.interfaces[0].source.network.network == "labnet"
      && local.interfaces[0].source.bridge == null
    && libvirt_domain.this.devices.interfaces[0].mac.address == "52:54:00:0a:00:01")
    error_message = "NIC 0 must be on network labnet with its MAC lowercased"
  }
  assert {
    condition = (libvirt_domain.this.devices.interfaces[1].type == "bridge"
      && libvirt_domain.this.devices.interfaces[1].source.bridge.bridge == "br0"
      && local.interfaces[1].source.network == null
    && libvirt_domain.this.devices.interfaces[1].model.type == "e1000e")
    error_message = "NIC 1 must be a bridge NIC on br0 with model e1000e"
  }
  assert {
    condition = (libvirt_domain.this.devices.interfaces[2].type == "direct"
      && libvirt_domain.this.devices.interfaces[2].source.direct.dev == "eno1"
      && libvirt_domain.this.devices.interfaces[2].source.direct.mode == "vepa"
    && libvirt_domain.this.devices.interfaces[2].model.type == "virtio")
    error_message = "NIC 2 must be a macvtap (interface type direct) on eno1 in vepa mode, virtio by default"
  }
  assert {
    condition     = output.mac_addresses[0] == "52:54:00:0a:00:01" && output.mac_addresses[1] == "52:54:00:0a:00:02"
    error_message = "mac_addresses must list the fixed MACs in NIC order"
  }
  assert {
    condition     = output.mac_address == "52:54:00:0a:00:01"
    error_message = "mac_address must be the first NIC's"
  }
}

run "macvtap_mode_defaults_to_bridge" {
  command = plan

  variables {
    network_interfaces = [{ type = "macvtap", dev = "eno1" }]
  }

  assert {
    condition     = libvirt_domain.this.devices.interfaces[0].source.direct.mode == "bridge"
    error_message = "a macvtap NIC's mode must default to bridge"
  }
}

run "reject_empty_nic_list" {
  command = plan
  variables { network_interfaces = [] }
  expect_failures = [var.network_interfaces]
}

run "reject_unknown_nic_type" {
  command = plan
  variables { network_interfaces = [{ type = "vde", network = "labnet" }] }
  expect_failures = [var.network_interfaces]
}

run "reject_network_nic_without_network" {
  command = plan
  variables { network_interfaces = [{ type = "network" }] }
  expect_failures = [var.network_interfaces]
}

run "reject_bridge_nic_with_network_field" {
  command = plan
  variables { network_interfaces = [{ type = "bridge", network = "br0" }] }
  expect_failures = [var.network_interfaces]
}

run "reject_macvtap_without_dev" {
  command = plan
  variables { network_interfaces = [{ type = "macvtap", bridge = "br0" }] }
  expect_failures = [var.network_interfaces]
}

run "reject_unknown_macvtap_mode" {
  command = plan
  variables { network_interfaces = [{ type = "macvtap", dev = "eno1", mode = "bridged" }] }
  expect_failures = [var.network_interfaces]
}

run "reject_bad_nic_mac" {
  command = plan
  variables { network_interfaces = [{ network = "labnet", mac = "01:00:5e:00:00:01" }] }
  expect_failures = [var.network_interfaces]
}

run "reject_duplicate_nic_macs" {
  command = plan
  variables {
    network_interfaces = [
      { network = "labnet", mac = "52:54:00:0a:00:01" },
      { type = "bridge", bridge = "br0", mac = "52:54:00:0A:00:01" },
    ]
  }
  expect_failures = [var.network_interfaces]
}

run "reject_bad_nic_model" {
  command = plan
  variables { network_interfaces = [{ network = "labnet", model = "Virtio NIC" }] }
  expect_failures = [var.network_interfaces]
}

run "reject_nic_list_with_mac_address" {
  command = plan
  variables {
    mac_address        = "52:54:00:0a:00:09"
    network_interfaces = [{ network = "labnet" }]
  }
  expect_failures = [var.network_interfaces]
}

# --- data disks -----------------------------------------------------------------

run "no_data_disks_by_default" {
  command = plan

  assert {
    condition     = length(libvirt_volume.data) == 0 && length(libvirt_domain.this.devices.disks) == 2
    error_message = "without data_disks the VM has only its root disk and the cdrom"
  }
}

run "data_disks_volumes_and_devices" {
  command = plan

  variables {
    cdrom_bus = "sata"
    data_disks = [
      { size_gib = 5 },
      { size_gib = 50, bus = "scsi", wwn = "0x5000C500ABCDEF01" },
      { size_gib = 6 },
      { size_gib = 7, bus = "scsi" },
      { size_gib = 8, bus = "scsi" },
    ]
  }

  assert {
    condition     = length(libvirt_volume.data) == 5 && libvirt_volume.data[1].name == "vm2-data-1.qcow2" && libvirt_volume.data[1].pool == "tfpool"
    error_message = "each data disk must be a volume <name>-data-N.qcow2 in the pool"
  }
  assert {
    condition     = libvirt_volume.data[1].capacity == 50 * 1073741824 && libvirt_volume.data[1].capacity_unit == "bytes" && libvirt_volume.data[1].target.format.type == "qcow2"
    error_message = "size_gib must become the capacity in bytes of a qcow2 volume"
  }
  assert {
    condition     = libvirt_volume.data[0].create == null && local.data_disks[0].size_gib == 5
    error_message = "a data disk is empty: no content to upload (the volume block has no backing_store)"
  }
  assert {
    condition     = [for d in slice(libvirt_domain.this.devices.disks, 2, 7) : d.target.dev] == ["vdb", "sda", "vdc", "sdb", "sdd"]
    error_message = "data disks must be named per bus in order (vdb, vdc on virtio; sda, sdb, sdd on scsi, sdc being the cdrom's)"
  }
  assert {
    condition     = [for d in slice(libvirt_domain.this.devices.disks, 2, 7) : d.target.bus] == ["virtio", "scsi", "virtio", "scsi", "scsi"]
    error_message = "data disks must be on their bus"
  }
  assert {
    condition     = libvirt_domain.this.devices.disks[3].source.volume.volume == "vm2-data-1.qcow2" && libvirt_domain.this.devices.disks[3].wwn == "0x5000c500abcdef01"
    error_message = "the scsi disk must attach its volume with its wwn"
  }
  assert {
    condition     = local.devices.disks[2].wwn == null && local.devices.disks[2].read_only == null
    error_message = "a disk without wwn has none, and data disks are writable"
  }
  assert {
    condition     = length(libvirt_domain.this.devices.controllers) == 1 && libvirt_domain.this.devices.controllers[0].model == "virtio-scsi"
    error_message = "scsi data disks need the virtio-scsi controller even when the cdrom is on sata"
  }
}

run "data_disk_paths_output" {
  variables {
    data_disks = [{ size_gib = 2 }, { size_gib = 3 }]
  }

  assert {
    condition     = output.data_disk_paths == [libvirt_volume.data[0].path, libvirt_volume.data[1].path]
    error_message = "data_disk_paths must list the data volumes' paths in order"
  }
}

run "reject_data_disk_zero_size" {
  command = plan
  variables { data_disks = [{ size_gib = 0 }] }
  expect_failures = [var.data_disks]
}

run "reject_data_disk_bus" {
  command = plan
  variables { data_disks = [{ size_gib = 1, bus = "sata" }] }
  expect_failures = [var.data_disks]
}

run "reject_wwn_on_virtio" {
  command = plan
  variables { data_disks = [{ size_gib = 1, wwn = "5000c500abcdef01" }] }
  expect_failures = [var.data_disks]
}

run "reject_short_wwn" {
  command = plan
  variables { data_disks = [{ size_gib = 1, bus = "scsi", wwn = "5000c500abcd" }] }
  expect_failures = [var.data_disks]
}

run "reject_duplicate_wwn" {
  command = plan
  variables {
    data_disks = [
      { size_gib = 1, bus = "scsi", wwn = "5000c500abcdef01" },
      { size_gib = 1, bus = "scsi", wwn = "0x5000C500ABCDEF01" },
    ]
  }
  expect_failures = [var.data_disks]
}

# --- firmware, machine, CPU, ACPI ------------------------------------------------------

run "platform_defaults" {
  command = plan

  assert {
    condition     = libvirt_domain.this.features.acpi != null
    error_message = "ACPI must be on by default"
  }
  assert {
    condition     = local.os.firmware == null && local.os.type_machine == null
    error_message = "BIOS and libvirt's default machine unless asked"
  }
  assert {
    condition     = local.cpu == null
    error_message = "no cpu element unless asked"
  }
}

run "efi_q35" {
  command = plan

  variables {
    firmware = "efi"
    machine  = "q35"
  }

  assert {
    condition     = libvirt_domain.this.os.firmware == "efi" && libvirt_domain.this.os.type_machine == "q35" && libvirt_domain.this.os.type == "hvm"
    error_message = "firmware efi and machine q35 must reach os"
  }
  assert {
    condition     = libvirt_domain.this.features.acpi != null
    error_message = "UEFI keeps ACPI"
  }
}

run "acpi_off" {
  command = plan

  variables {
    acpi = false
  }

  assert {
    condition     = local.features == null
    error_message = "acpi = false must leave ACPI out"
  }
}

run "cpu_host_passthrough" {
  command = plan

  variables {
    cpu_mode = "host-passthrough"
  }

  assert {
    condition     = libvirt_domain.this.cpu.mode == "host-passthrough" && local.cpu.model == null
    error_message = "cpu_mode must reach cpu.mode"
  }
}

run "cpu_named_model_is_custom" {
  command = plan

  variables {
    domain_type = "qemu"
    cpu_model   = "Nehalem"
  }

  assert {
    condition     = libvirt_domain.this.cpu.mode == "custom" && libvirt_domain.this.cpu.model == "Nehalem"
    error_message = "a cpu_model alone must be sent as mode custom with that model"
  }
}

run "cpu_maximum_under_tcg" {
  command = plan

  variables {
    domain_type = "qemu"
    cpu_mode    = "maximum"
  }

  assert {
    condition     = libvirt_domain.this.cpu.mode == "maximum"
    error_message = "maximum must be allowed under TCG"
  }
}

run "reject_unknown_firmware" {
  command = plan
  variables { firmware = "uefi" }
  expect_failures = [var.firmware]
}

run "reject_efi_without_acpi" {
  command = plan
  variables {
    firmware = "efi"
    acpi     = false
  }
  expect_failures = [var.firmware]
}

run "reject_bad_machine" {
  command = plan
  variables { machine = "Q35 machine" }
  expect_failures = [var.machine]
}

run "reject_unknown_cpu_mode" {
  command = plan
  variables { cpu_mode = "passthrough" }
  expect_failures = [var.cpu_mode]
}

run "reject_host_passthrough_under_tcg" {
  command = plan
  variables {
    domain_type = "qemu"
    cpu_mode    = "host-passthrough"
  }
  expect_failures = [var.cpu_mode]
}

run "reject_model_with_host_model" {
  command = plan
  variables {
    cpu_mode  = "host-model"
    cpu_model = "Nehalem"
  }
  expect_failures = [var.cpu_model]
}

run "reject_custom_without_model" {
  command = plan
  variables { cpu_mode = "custom" }
  expect_failures = [var.cpu_model]
}
