# The passphrase of an encrypted (LUKS) volume. libvirt looks a LUKS volume's
# secret up by UUID and requires usage type "volume"; the usage id is the
# volume's path (the pool's directory and the volume's name). The value is
# sensitive: it never shows in plans or logs, but it is stored in the state,
# so keep the state encrypted. A private secret's value is never read back
# from libvirt: the state keeps the value last applied.
# Changing the passphrase later updates the secret in place but does not
# re-key the volume: it would no longer open. Replace the volume instead.
variable "luks_passphrase" {
  type      = string
  sensitive = true
}

resource "libvirt_secret" "data_luks" {
  description = "passphrase of data.luks"
  private     = "yes"
  usage = {
    type   = "volume"
    volume = "/var/lib/libvirt/images/data.luks"
  }
  value = var.luks_passphrase
}

# libvirt formats the volume as LUKS (qemu-img) with the secret's value as
# passphrase. A domain disk on this volume names the same secret in its
# devices.disks[].encryption (format "luks", secrets of type "passphrase").
resource "libvirt_volume" "data_luks" {
  name          = "data.luks"
  pool          = "default"
  capacity      = 10
  capacity_unit = "GiB"
  target = {
    format = { type = "raw" }
    encryption = {
      format = "luks"
      secret = { type = "passphrase", uuid = libvirt_secret.data_luks.id }
    }
  }
}

# A Ceph client key for an RBD pool or disk: `ceph auth get-key` prints the
# key as base64, which value_base64 takes as is (libvirt stores the decoded
# bytes). Changing the key later updates the secret in place, same UUID.
variable "ceph_key" {
  type      = string
  sensitive = true
}

resource "libvirt_secret" "ceph" {
  usage        = { type = "ceph", name = "client.libvirt secret" }
  value_base64 = var.ceph_key
}

# A write-only value (OpenTofu 1.11+): sent to libvirt, never stored in the
# plan or the state; it accepts ephemeral values. Bump value_wo_version to set
# a new value: the state has nothing to compare value_wo with.
variable "tls_key_passphrase" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "libvirt_secret" "tls" {
  usage            = { type = "tls", name = "vnc-tls" }
  value_wo         = var.tls_key_passphrase
  value_wo_version = 1
}
