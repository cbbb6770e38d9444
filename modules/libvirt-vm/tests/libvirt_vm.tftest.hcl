# Mock-provider tests for modules/libvirt-vm: every input reaches the
# resource attribute it is meant for, the cloud-init CD-ROM is attached
# read-only on the right bus, outputs come from the interface-addresses data
# source, and every validation rule rejects what it should.

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
  mock_resource "libvirt_domain" {
    defaults = {
      id = "6f1f8a0e-2f38-4b6f-9a53-0c4a1b2c3d4e"
    }
  }
}

variables {
  name         = "vm1"
  pool         = "tfpool"
  image_url    = "http://127.0.0.1:8080/debian-12.qcow2"
  network_name = "labnet"
  mac_address  = "52:54:00:AA:BB:CC"
}

run "domain_defaults" {
  command = plan

  assert {
    condition     = libvirt_domain.this.type == "kvm"
    error_message = "domain_type must default to kvm"
  }
  assert {
    condition     = libvirt_domain.this.memory == 1024 && libvirt_domain.this.memory_unit == "MiB"
    error_message = "memory must default to 1024 with memory_unit MiB"
  }
  assert {
    condition     = libvirt_domain.this.vcpu == 1 && libvirt_domain.this.os.type == "hvm"
    error_message = "one vCPU and an hvm OS by default"
  }
  assert {
    condition     = libvirt_domain.this.running == true && libvirt_domain.this.autostart == false
    error_message = "running must default to true and autostart to false"
  }
  assert {
    # unset attributes get mock values (they are Optional+Computed): check what the module writes
    condition     = var.kernel == null && var.cmdline == null
    error_message = "no direct kernel boot unless asked"
  }
}

run "sizes_and_type_wired" {
  command = plan

  variables {
    memory_mib  = 3072
    vcpus       = 3
    domain_type = "qemu"
    autostart   = true
    running     = false
  }

  assert {
    condition     = libvirt_domain.this.memory == 3072 && libvirt_domain.this.memory_unit == "MiB"
    error_message = "memory_mib must be passed as MiB"
  }
  assert {
    condition     = libvirt_domain.this.vcpu == 3
    error_message = "vcpus not wired"
  }
  assert {
    condition     = libvirt_domain.this.type == "qemu"
    error_message = "domain_type not wired"
  }
  assert {
    condition     = libvirt_domain.this.autostart == true && libvirt_domain.this.running == false
    error_message = "autostart/running not wired"
  }
  assert {
    condition     = data.libvirt_domain_interface_addresses.this[0].wait == null
    error_message = "a stopped domain must not wait for an address"
  }
}

run "base_image_from_url" {
  command = plan

  assert {
    condition     = length(libvirt_volume.base) == 1
    error_message = "an image_url must create one base volume"
  }
  assert {
    condition     = libvirt_volume.base[0].create.content.url == "http://127.0.0.1:8080/debian-12.qcow2"
    error_message = "image_url must become create.content.url"
  }
  assert {
    condition     = libvirt_volume.base[0].pool == "tfpool" && libvirt_volume.base[0].name == "vm1-base.qcow2"
    error_message = "base volume must be vm1-base.qcow2 in the pool"
  }
  assert {
    condition     = libvirt_volume.base[0].target.format.type == "qcow2"
    error_message = "base volume format must follow image_format"
  }
}

run "base_image_from_local_raw_path" {
  command = plan

  variables {
    image_url    = null
    image_path   = "/var/tmp/images/root.raw"
    image_format = "raw"
  }

  assert {
    condition     = libvirt_volume.base[0].create.content.url == "/var/tmp/images/root.raw"
    error_message = "image_path must become create.content.url"
  }
  assert {
    condition     = libvirt_volume.base[0].target.format.type == "raw" && libvirt_volume.base[0].name == "vm1-base.raw"
    error_message = "a raw image must be uploaded as raw"
  }
  assert {
    condition     = libvirt_volume.root.backing_store.format.type == "raw"
    error_message = "the overlay must declare the backing format raw"
  }
}

run "existing_base_volume" {
  command = plan

  variables {
    image_url        = null
    base_volume_name = "golden-debian.qcow2"
  }

  assert {
    condition     = length(libvirt_volume.base) == 0
    error_message = "no base volume may be uploaded when base_volume_name is set"
  }
  assert {
    condition     = libvirt_volume.root.backing_store.path == "golden-debian.qcow2"
    error_message = "the overlay must be backed by the existing volume"
  }
}

run "root_overlay_on_base" {
  variables {
    disk_size_gib = 20
  }

  assert {
    condition     = libvirt_volume.root.capacity == 20 * 1073741824 && libvirt_volume.root.capacity_unit == "bytes"
    error_message = "disk_size_gib must become capacity in bytes"
  }
  assert {
    condition     = libvirt_volume.root.target.format.type == "qcow2" && libvirt_volume.root.name == "vm1-root.qcow2"
    error_message = "the root disk must be a qcow2 overlay named vm1-root.qcow2"
  }
  assert {
    condition     = libvirt_volume.root.backing_store.path == libvirt_volume.base[0].path
    error_message = "the overlay must be backed by the uploaded base volume"
  }
  assert {
    condition     = output.disk_path == libvirt_volume.root.path
    error_message = "disk_path must be the overlay's path"
  }
}

run "root_disk_attached_virtio" {
  command = plan

  assert {
    condition     = libvirt_domain.this.devices.disks[0].source.volume.volume == "vm1-root.qcow2" && libvirt_domain.this.devices.disks[0].source.volume.pool == "tfpool"
    error_message = "first disk must be the root overlay from the pool"
  }
  assert {
    condition     = libvirt_domain.this.devices.disks[0].target.bus == "virtio" && libvirt_domain.this.devices.disks[0].target.dev == "vda"
    error_message = "root disk must be vda on virtio"
  }
  assert {
    condition     = libvirt_domain.this.devices.disks[0].driver.type == "qcow2" && local.devices.disks[0].read_only == null
    error_message = "root disk must be a writable qcow2 disk"
  }
}

run "cloudinit_cdrom_read_only_on_scsi" {
  command = plan

  assert {
    condition     = libvirt_domain.this.devices.disks[1].device == "cdrom" && libvirt_domain.this.devices.disks[1].read_only != null
    error_message = "cloud-init must be attached as a read-only cdrom"
  }
  assert {
    condition     = libvirt_domain.this.devices.disks[1].source.volume.volume == libvirt_volume.cloudinit.name
    error_message = "the cdrom must be the cloud-init ISO volume"
  }
  assert {
    condition     = libvirt_domain.this.devices.disks[1].target.bus == "scsi"
    error_message = "cdrom bus must default to scsi"
  }
  assert {
    condition     = length(libvirt_domain.this.devices.controllers) == 1 && libvirt_domain.this.devices.controllers[0].type == "scsi" && libvirt_domain.this.devices.controllers[0].model == "virtio-scsi"
    error_message = "a scsi cdrom needs exactly one virtio-scsi controller"
  }
}

run "cloudinit_cdrom_on_sata" {
  command = plan

  variables {
    cdrom_bus = "sata"
  }

  assert {
    condition     = libvirt_domain.this.devices.disks[1].target.bus == "sata"
    error_message = "cdrom_bus not wired"
  }
  assert {
    condition     = local.devices.controllers == null
    error_message = "no virtio-scsi controller without a scsi cdrom"
  }
}

run "cloudinit_iso_uploaded_into_pool" {
  assert {
    condition     = libvirt_volume.cloudinit.create.content.url == libvirt_cloudinit_disk.this.path
    error_message = "the ISO volume must upload the cloud-init disk's path"
  }
  assert {
    condition     = libvirt_volume.cloudinit.pool == "tfpool" && output.cloudinit_volume == "vm1-cloudinit.iso"
    error_message = "the ISO volume must be vm1-cloudinit.iso in the pool"
  }
}

run "default_cloudinit_documents" {
  command = plan

  variables {
    ssh_authorized_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAItest lab@example"]
  }

  assert {
    condition     = startswith(nonsensitive(libvirt_cloudinit_disk.this.user_data), "#cloud-config\n")
    error_message = "default user-data must be #cloud-config"
  }
  assert {
    condition     = strcontains(nonsensitive(libvirt_cloudinit_disk.this.user_data), "hostname: vm1")
    error_message = "default user-data must set the hostname"
  }
  assert {
    condition     = strcontains(nonsensitive(libvirt_cloudinit_disk.this.user_data), "AAAAItest lab@example")
    error_message = "default user-data must install ssh_authorized_keys"
  }
  assert {
    condition     = strcontains(libvirt_cloudinit_disk.this.meta_data, "local-hostname: vm1") && strcontains(libvirt_cloudinit_disk.this.meta_data, "instance-id: vm1")
    error_message = "default meta-data must carry instance-id and local-hostname"
  }
  assert {
    condition     = libvirt_cloudinit_disk.this.network_config == null
    error_message = "no network-config unless given"
  }
}

run "custom_cloudinit_documents" {
  command = plan

  variables {
    user_data      = "#cloud-config\npackages: [htop]\n"
    meta_data      = "instance-id: custom-1\n"
    network_config = "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n"
  }

  assert {
    condition     = nonsensitive(libvirt_cloudinit_disk.this.user_data) == "#cloud-config\npackages: [htop]\n"
    error_message = "user_data must pass through unchanged"
  }
  assert {
    condition     = libvirt_cloudinit_disk.this.meta_data == "instance-id: custom-1\n"
    error_message = "meta_data must pass through unchanged"
  }
  assert {
    condition     = strcontains(libvirt_cloudinit_disk.this.network_config, "dhcp4: true")
    error_message = "network_config must pass through"
  }
}

run "nic_on_named_network_with_fixed_mac" {
  command = plan

  assert {
    condition     = libvirt_domain.this.devices.interfaces[0].source.network.network == "labnet" && libvirt_domain.this.devices.interfaces[0].type == "network"
    error_message = "the NIC must be on network_name"
  }
  assert {
    condition     = libvirt_domain.this.devices.interfaces[0].model.type == "virtio"
    error_message = "the NIC must be virtio"
  }
  assert {
    condition     = libvirt_domain.this.devices.interfaces[0].mac.address == "52:54:00:aa:bb:cc"
    error_message = "the fixed MAC must be passed (lowercased)"
  }
}

run "console_and_guest_agent" {
  command = plan

  assert {
    condition     = libvirt_domain.this.devices.serials[0].target.port == 0 && libvirt_domain.this.devices.consoles[0].target.type == "serial"
    error_message = "serial port 0 with a serial console is required"
  }
  assert {
    condition     = libvirt_domain.this.devices.channels[0].target.virt_io.name == "org.qemu.guest_agent.0" && libvirt_domain.this.devices.channels[0].source.unix != null
    error_message = "the guest-agent channel must be a unix-socket virtio channel"
  }
  assert {
    condition     = local.devices.graphics == null
    error_message = "no graphics unless asked"
  }
}

run "vnc_graphics" {
  command = plan

  variables {
    graphics = { listen = "127.0.0.1" }
  }

  assert {
    condition     = libvirt_domain.this.devices.graphics[0].vnc.listen == "127.0.0.1" && libvirt_domain.this.devices.graphics[0].vnc.auto_port == true
    error_message = "graphics must become a VNC device with listen and auto_port"
  }
}

run "direct_kernel_boot" {
  command = plan

  variables {
    kernel  = "/var/cache/guest/vmlinuz"
    initrd  = "/var/cache/guest/initrd.img"
    cmdline = "root=/dev/vda rw console=ttyS0"
  }

  assert {
    condition     = libvirt_domain.this.os.kernel == "/var/cache/guest/vmlinuz" && libvirt_domain.this.os.initrd == "/var/cache/guest/initrd.img"
    error_message = "kernel/initrd not wired"
  }
  assert {
    condition     = libvirt_domain.this.os.cmdline == "root=/dev/vda rw console=ttyS0"
    error_message = "cmdline not wired"
  }
}

run "address_lookup_wiring" {
  variables {
    address_source      = "agent"
    wait_for_ip_timeout = "90s"
  }

  assert {
    condition     = data.libvirt_domain_interface_addresses.this[0].domain == libvirt_domain.this.id
    error_message = "addresses must be read for this domain"
  }
  assert {
    condition     = data.libvirt_domain_interface_addresses.this[0].source == "agent"
    error_message = "address_source not wired"
  }
  assert {
    condition     = data.libvirt_domain_interface_addresses.this[0].wait.timeout == "90s" && data.libvirt_domain_interface_addresses.this[0].wait.until == "ipv4"
    error_message = "wait_for_ip_timeout must wait for an IPv4 address"
  }
}

run "outputs_wired" {
  assert {
    condition     = output.mac_address == "52:54:00:aa:bb:cc"
    error_message = "mac_address must be the NIC's fixed MAC"
  }
  assert {
    condition     = output.id == "6f1f8a0e-2f38-4b6f-9a53-0c4a1b2c3d4e" && output.name == "vm1"
    error_message = "id/name outputs must come from the domain"
  }
  assert {
    condition     = output.ip_address == module.address.ip_address
    error_message = "ip_address must come from the address selection"
  }
}

# --- validation rules -------------------------------------------------------

run "reject_bad_name" {
  command = plan
  variables { name = "Bad_Name" }
  expect_failures = [var.name]
}

run "reject_small_memory" {
  command = plan
  variables { memory_mib = 64 }
  expect_failures = [var.memory_mib]
}

run "reject_fractional_memory" {
  command = plan
  variables { memory_mib = 1536.5 }
  expect_failures = [var.memory_mib]
}

run "reject_zero_vcpus" {
  command = plan
  variables { vcpus = 0 }
  expect_failures = [var.vcpus]
}

run "reject_too_many_vcpus" {
  command = plan
  variables { vcpus = 512 }
  expect_failures = [var.vcpus]
}

run "reject_bad_mac" {
  command = plan
  variables { mac_address = "52:54:00:zz:00:01" }
  expect_failures = [var.mac_address]
}

run "reject_multicast_mac" {
  command = plan
  variables { mac_address = "01:00:5e:00:00:01" }
  expect_failures = [var.mac_address]
}

run "reject_two_image_sources" {
  command = plan
  variables {
    image_path = "/var/tmp/images/root.qcow2"
  }
  expect_failures = [var.image_url]
}

run "reject_no_image_source" {
  command = plan
  variables { image_url = null }
  expect_failures = [var.image_url]
}

run "reject_image_url_without_scheme" {
  command = plan
  variables { image_url = "127.0.0.1/debian.qcow2" }
  expect_failures = [var.image_url]
}

run "reject_relative_image_path" {
  command = plan
  variables {
    image_url  = null
    image_path = "images/root.qcow2"
  }
  expect_failures = [var.image_path]
}

run "reject_base_volume_path" {
  command = plan
  variables {
    image_url        = null
    base_volume_name = "/var/lib/libvirt/images/golden.qcow2"
  }
  expect_failures = [var.base_volume_name]
}

run "reject_zero_disk" {
  command = plan
  variables { disk_size_gib = 0 }
  expect_failures = [var.disk_size_gib]
}

run "reject_unknown_domain_type" {
  command = plan
  variables { domain_type = "xen" }
  expect_failures = [var.domain_type]
}

run "reject_unknown_cdrom_bus" {
  command = plan
  variables { cdrom_bus = "usb" }
  expect_failures = [var.cdrom_bus]
}

run "reject_initrd_without_kernel" {
  command = plan
  variables { initrd = "/var/cache/guest/initrd.img" }
  expect_failures = [var.initrd]
}

run "reject_cmdline_without_kernel" {
  command = plan
  variables { cmdline = "console=ttyS0" }
  expect_failures = [var.cmdline]
}

run "reject_unknown_address_source" {
  command = plan
  variables { address_source = "dhcp" }
  expect_failures = [var.address_source]
}
