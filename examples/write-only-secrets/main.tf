# Secrets that never reach the state: a VM whose cloud-init user data (with a
# password hash and a key) and VNC password are write-only attributes, fed from
# ephemeral variables. Neither value is in terraform.tfstate, in a saved plan
# (`tofu show -json`) or in the logs; the provider hands them to the seed ISO
# and to libvirt at apply. Needs OpenTofu 1.11+ or Terraform 1.11+.
#
#   TF_VAR_user_data="$(cat user-data.yaml)" TF_VAR_vnc_password=s3cret tofu apply
#
# Ephemeral variables must be given again at every plan and apply. A new value
# alone plans nothing: raise the matching *_wo_version to write it.
terraform {
  required_providers {
    libvirt = {
      source  = "virtxml/libvirt"
      version = ">= 0.1.0"
    }
  }
}

provider "libvirt" {
  uri = "qemu:///system"
}

variable "user_data" {
  description = "cloud-config for the guest: users, password hashes, keys."
  type        = string
  ephemeral   = true
}

variable "vnc_password" {
  description = "The VNC console's password (QEMU uses at most 8 characters)."
  type        = string
  ephemeral   = true
}

variable "secrets_version" {
  description = "Raise it to write new values of user_data and vnc_password."
  type        = number
  default     = 1
}

resource "libvirt_cloudinit_disk" "seed" {
  name      = "wo-demo-seed"
  meta_data = "instance-id: wo-demo-${var.secrets_version}\nlocal-hostname: wo-demo\n"

  # Built into the ISO at apply; the ISO's path is named after the plain
  # inputs and this version, its checksum is known after apply.
  user_data_wo         = var.user_data
  user_data_wo_version = var.secrets_version
}

# A new version gives the seed a new path, which replaces this volume; the
# domain reads the new seed at its next boot (the instance-id above changes
# with the version, so cloud-init applies the new user data).
resource "libvirt_volume" "seed" {
  name   = "wo-demo-seed.iso"
  pool   = "default"
  create = { content = { url = libvirt_cloudinit_disk.seed.path } }
}

# An empty disk here; install an OS on it or give it a backing_store image
# (examples/quickstart).
resource "libvirt_volume" "root" {
  name          = "wo-demo.qcow2"
  pool          = "default"
  capacity      = 10
  capacity_unit = "GiB"
  target        = { format = { type = "qcow2" } }
}

resource "libvirt_domain" "vm" {
  name        = "wo-demo"
  type        = "kvm"
  memory      = 1
  memory_unit = "GiB"
  vcpu        = 1
  running     = true

  os = { type = "hvm" }

  devices = {
    disks = [
      {
        source = { volume = { pool = libvirt_volume.root.pool, volume = libvirt_volume.root.name } }
        target = { dev = "vda", bus = "virtio" }
      },
      {
        device    = "cdrom"
        source    = { volume = { pool = libvirt_volume.seed.pool, volume = libvirt_volume.seed.name } }
        target    = { dev = "sda", bus = "scsi" }
        read_only = true
      },
    ]
    controllers = [{ type = "scsi", model = "virtio-scsi" }]
    graphics = [{
      vnc = {
        listen    = "127.0.0.1"
        auto_port = true
        # written into the domain XML; libvirt shows it only to
        # `virsh dumpxml --security-info`. A new version changes the
        # definition; the running guest's console takes it at its next boot.
        passwd_wo         = var.vnc_password
        passwd_wo_version = var.secrets_version
      }
    }]
  }
}
