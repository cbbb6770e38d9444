# The Ignition config of a Fedora CoreOS guest, written on the machine running
# OpenTofu (here the libvirt host: uri = "qemu:///system"). `content` is
# usually data.ignition_config.x.rendered or a Butane transpilation.
resource "libvirt_ignition" "fcos" {
  name = "fcos1-ignition"
  content = jsonencode({
    ignition = { version = "3.4.0" }
    passwd = {
      users = [{
        name              = "core"
        sshAuthorizedKeys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyOnly admin@example"]
      }]
    }
  })
}

# The guest reads it through QEMU's fw_cfg under the name Ignition looks for.
# libvirt gives QEMU access to the file while the domain runs. A change of
# `content` gives a new `path`, which updates the domain definition.
resource "libvirt_domain" "fcos1" {
  name        = "fcos1"
  type        = "kvm"
  memory      = 2048
  memory_unit = "MiB"
  vcpu        = 2
  running     = true
  os          = { type = "hvm" }

  sys_info = [{
    fw_cfg = {
      entry = [{ name = "opt/com.coreos/config", file = libvirt_ignition.fcos.path }]
    }
  }]

  # devices = { disks = [ ...the Fedora CoreOS qcow2... ], ... }
}

# With a remote `uri` the file is on the wrong machine: upload it into a pool
# on the libvirt host and point the fw_cfg entry at the volume's `path`.
resource "libvirt_volume" "fcos1_ignition" {
  name   = "fcos1.ign"
  pool   = "default"
  create = { content = { url = libvirt_ignition.fcos.path } }
}
