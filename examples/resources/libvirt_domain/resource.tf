# A cloud-init guest: a qcow2 overlay on a base image as its root disk, a
# NoCloud seed ISO as cdrom, one NIC on a libvirt network, serial console,
# guest-agent channel, a VNC console on localhost and a virtio RNG.
resource "libvirt_network" "lab" {
  name = "lab"
  ips  = [{ address = "10.233.10.1", prefix = 24, dhcp = { ranges = [{ start = "10.233.10.100", end = "10.233.10.199" }] } }]
}

resource "libvirt_volume" "base" {
  name   = "debian-12-base.qcow2"
  pool   = "default"
  create = { content = { url = "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2" } }
}

resource "libvirt_volume" "web1_root" {
  name          = "web1.qcow2"
  pool          = "default"
  capacity      = 20
  capacity_unit = "GiB"
  target        = { format = { type = "qcow2" } }
  backing_store = { path = libvirt_volume.base.path, format = { type = "qcow2" } }
}

resource "libvirt_cloudinit_disk" "web1" {
  name      = "web1-seed"
  meta_data = yamlencode({ instance-id = "web1", local-hostname = "web1" })
  user_data = <<-EOT
    #cloud-config
    ssh_authorized_keys:
      - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyOnly admin@example
  EOT
}

resource "libvirt_volume" "web1_seed" {
  name   = "web1-seed.iso"
  pool   = "default"
  create = { content = { url = libvirt_cloudinit_disk.web1.path } }
}

resource "libvirt_domain" "web1" {
  name        = "web1"
  type        = "kvm" # "qemu" where KVM is not available (TCG emulation)
  memory      = 2048
  memory_unit = "MiB" # without a unit libvirt reads KiB: memory = 2048 would be 2 MiB
  vcpu        = 2
  running     = true
  autostart   = true

  # No machine: libvirt picks the default (pc). For UEFI write
  # os = { type = "hvm", firmware = "efi" }: libvirt selects OVMF from the
  # host's firmware descriptors (Debian: package ovmf), needs features.acpi,
  # and keeps a per-domain NVRAM copy that is deleted with the domain.
  os       = { type = "hvm" }
  features = { acpi = true, apic = {} } # ACPI: graceful shutdown and PCI hot-plug

  devices = {
    disks = [
      {
        # no driver.type: the provider sends the volume's format (qcow2)
        source = { volume = { pool = libvirt_volume.web1_root.pool, volume = libvirt_volume.web1_root.name } }
        target = { dev = "vda", bus = "virtio" }
      },
      {
        # the seed ISO, read-only on SCSI (cloud kernels often lack SATA/IDE)
        device    = "cdrom"
        source    = { volume = { pool = libvirt_volume.web1_seed.pool, volume = libvirt_volume.web1_seed.name } }
        target    = { dev = "sda", bus = "scsi" }
        read_only = true
      },
    ]
    controllers = [{ type = "scsi", model = "virtio-scsi" }]
    interfaces = [{
      type   = "network"
      mac    = { address = "52:54:00:0a:00:65" }
      model  = { type = "virtio" }
      source = { network = { network = libvirt_network.lab.name } }
    }]
    serials  = [{ target = { port = 0 } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
    channels = [{
      source = { unix = {} }
      target = { virt_io = { name = "org.qemu.guest_agent.0" } }
    }]
    graphics = [{ vnc = { listen = "127.0.0.1", auto_port = true } }]
    # entropy from the host's /dev/urandom, as virt-install adds to every VM
    rngs = [{ model = "virtio", backend = { random = "/dev/urandom" } }]
  }
}

# vcpu_current / current_memory changes, disk and NIC hot-plug, running and
# autostart apply to the running guest. Other changes (on_reboot, cpu,
# features, ...) are written to the definition and take effect at the next
# boot; restart_on_change = true restarts the guest during apply instead.
output "web1_console" {
  value = libvirt_domain.web1.console_urls
}
