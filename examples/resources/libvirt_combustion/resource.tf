# A Combustion first-boot script for openSUSE MicroOS, written on the machine
# running OpenTofu (here the libvirt host: uri = "qemu:///system").
resource "libvirt_combustion" "microos" {
  name    = "microos1-combustion"
  content = <<-EOF
    #!/bin/bash
    # combustion: network
    echo 'root:$6$examplesalt$examplehash' | chpasswd -e
    mkdir -pm700 /root/.ssh
    echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleKeyOnly admin@example' >> /root/.ssh/authorized_keys
    systemctl enable sshd.service
  EOF
}

# Combustion reads its script from QEMU's fw_cfg before it looks for a config
# drive. libvirt gives QEMU access to the file while the domain runs.
resource "libvirt_domain" "microos1" {
  name        = "microos1"
  type        = "kvm"
  memory      = 2048
  memory_unit = "MiB"
  vcpu        = 2
  running     = true
  os          = { type = "hvm" }

  sys_info = [{
    fw_cfg = {
      entry = [{ name = "opt/org.opensuse.combustion/script", file = libvirt_combustion.microos.path }]
    }
  }]

  # devices = { disks = [ ...the MicroOS qcow2... ], ... }
}
