# A VM whose root disk is an RBD image in Ceph: the cephx key in a libvirt
# secret, an rbd pool that uses it, the guest image copied into RBD, and a
# domain booting from it as a network disk. The host needs libvirt's rbd
# storage driver and QEMU's rbd driver (Debian: libvirt-daemon-driver-storage-rbd,
# qemu-block-extra). scripts/testenv-ceph.sh sets up a single-node test cluster
# and writes the key and monitor to /var/cache/tfplv/env-ceph.sh.
terraform {
  required_providers {
    libvirt = {
      source  = "virtxml/libvirt"
      version = ">= 0.1.0"
    }
  }
}

variable "libvirt_uri" {
  type    = string
  default = "qemu:///system"
}

variable "ceph_key" {
  description = "The cephx key of client.libvirt as `ceph auth get-key client.libvirt` prints it (base64)."
  type        = string
  sensitive   = true
}

variable "ceph_monitor" {
  description = "A Ceph monitor's address and port."
  type        = object({ host = string, port = string })
  default     = { host = "127.0.0.1", port = "6789" }
}

variable "staging_pool" {
  description = "A dir pool on the same host that holds the image while it is copied into RBD."
  type        = string
  default     = "default"
}

variable "guest_dir" {
  description = "Folder with root.qcow2, vmlinuz and initrd.img (scripts/build-guest-image.sh)."
  type        = string
}

provider "libvirt" {
  uri = var.libvirt_uri
}

# The key: libvirt hands it to its rbd storage driver and to QEMU; it is
# never written into pool or domain XML. Private: libvirt never returns it.
resource "libvirt_secret" "ceph" {
  usage        = { type = "ceph", name = "client.libvirt secret" }
  value_base64 = var.ceph_key
  private      = "yes"
}

# The Ceph pool "rbd" as a libvirt pool. Define the same pool (and secret)
# on every host that runs these VMs: the images are shared storage.
resource "libvirt_pool" "ceph" {
  name = "ceph-rbd"
  type = "rbd"
  source = {
    name = "rbd"
    host = [{ name = var.ceph_monitor.host, port = var.ceph_monitor.port }]
    auth = {
      type     = "ceph"
      username = "libvirt"
      secret   = { uuid = libvirt_secret.ceph.uuid }
    }
  }
}

# libvirt cannot upload into RBD: the image is uploaded into a staging volume
# of staging_pool, copied into RBD by QEMU (a block copy in a paused
# transient domain; the qcow2 image becomes raw) and the staging volume is
# deleted. TF_LOG=INFO logs both steps' progress.
resource "libvirt_volume" "root" {
  name          = "vm-rbd-root"
  pool          = libvirt_pool.ceph.name
  capacity      = 4
  capacity_unit = "GiB"
  create = {
    content = {
      url          = "${var.guest_dir}/root.qcow2"
      staging_pool = var.staging_pool
    }
  }
}

resource "libvirt_domain" "vm" {
  name        = "vm-rbd"
  type        = "kvm"
  memory      = 512
  memory_unit = "MiB"
  vcpu        = 1
  running     = true

  os = {
    type    = "hvm"
    kernel  = "${var.guest_dir}/vmlinuz"
    initrd  = "${var.guest_dir}/initrd.img"
    cmdline = "root=/dev/vda rw console=ttyS0"
  }

  devices = {
    disks = [{
      # A network disk: QEMU opens the RBD image itself, with the secret's key.
      type   = "network"
      driver = { name = "qemu", type = "raw" }
      source = {
        network = {
          protocol = "rbd"
          name     = "rbd/${libvirt_volume.root.name}"
          hosts    = [{ name = var.ceph_monitor.host, port = var.ceph_monitor.port }]
          auth = {
            username = "libvirt"
            secret   = { type = "ceph", uuid = libvirt_secret.ceph.uuid }
          }
        }
      }
      target = { dev = "vda", bus = "virtio" }
    }]
    consoles = [{ target = { type = "serial", port = 0 } }]
  }
}

output "rbd_image" {
  value = libvirt_volume.root.path # "rbd/vm-rbd-root"
}
