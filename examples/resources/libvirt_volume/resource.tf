# A base image downloaded once into the pool. The content is streamed into the
# volume (no temporary copy, flat memory); a qcow2 image keeps its format and
# its virtual size. A failed download leaves no volume behind.
resource "libvirt_volume" "debian_base" {
  name   = "debian-12-base.qcow2"
  pool   = "default"
  create = { content = { url = "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2" } }
}

# A verified image: the digest of the bytes as published is computed while
# they stream (no second read); a mismatch fails the create and leaves no
# volume. The digest is recorded in content_digest. A dropped connection is
# resumed (HTTP Range) up to 4 times, and the digest is still checked.
# verify_content re-reads the volume at every refresh (libvirt's download
# stream) and plans its replacement when it was truncated or altered.
resource "libvirt_volume" "debian_verified" {
  name           = "debian-12-verified.qcow2"
  pool           = "default"
  verify_content = true
  create = {
    content = {
      url      = "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2"
      checksum = "sha512:0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000cafe"
    }
  }
}

# The digest from the checksum file the distribution publishes next to the
# image (SHA256SUMS / SHA512SUMS / CHECKSUM), matched by the image's file name.
# Volumes with the same content on one host share one download: the first
# downloads it, the others are copies made on the host. content_source and
# content_bytes record, per volume, what its create did.
resource "libvirt_volume" "ubuntu_root" {
  for_each = toset(["vm-a", "vm-b", "vm-c"])
  name     = "${each.key}-root.img"
  pool     = "default"
  create = {
    content = {
      url          = "https://cloud-images.ubuntu.com/noble/current/noble-server-cloudimg-amd64.img"
      checksum_url = "https://cloud-images.ubuntu.com/noble/current/SHA256SUMS"
      # kept here by digest: later applies and other hosts read it from here;
      # beyond 20 GiB the images used least recently are removed
      cache_dir      = pathexpand("~/.cache/libvirt-images")
      cache_max_size = "20GiB"
    }
  }
}

# Printed at the end of every apply: what each volume's create transferred,
# e.g. { "vm-a" = "download 617349120", "vm-b" = "copy 0", "vm-c" = "copy 0" }
# on the first apply, "cache 617349120" for a volume created later from the
# cache folder.
output "image_transfers" {
  value = { for k, v in libvirt_volume.ubuntu_root : k => "${v.content_source} ${v.content_bytes}" }
}

# A mirror behind a private certificate authority.
resource "libvirt_volume" "internal_base" {
  name = "internal-base.qcow2"
  pool = "default"
  create = {
    content = {
      url          = "https://mirror.internal.example/images/base.qcow2"
      checksum_url = "https://mirror.internal.example/images/SHA256SUMS"
      tls_ca_file  = "/etc/ssl/internal-ca.pem"
    }
  }
}

# A copy-on-write overlay (linked clone) on the base image, grown to 20 GiB.
# Raising capacity later resizes the volume in place; lowering it is refused.
# Deleting the base while overlays use it is refused too.
resource "libvirt_volume" "vm1_disk" {
  name          = "vm1.qcow2"
  pool          = "default"
  capacity      = 20
  capacity_unit = "GiB"
  target        = { format = { type = "qcow2" } }
  backing_store = {
    path   = libvirt_volume.debian_base.path
    format = { type = "qcow2" }
  }
}

# Content from a local file: any path (or file:// URL) on the machine running
# OpenTofu, such as a cloud-init seed ISO.
resource "libvirt_cloudinit_disk" "vm1" {
  name      = "vm1"
  user_data = "#cloud-config\n"
  meta_data = "instance-id: vm1\nlocal-hostname: vm1\n"
}

resource "libvirt_volume" "vm1_seed" {
  name   = "vm1-seed.iso"
  pool   = "default"
  create = { content = { url = libvirt_cloudinit_disk.vm1.path } }
}

# An empty 10 GiB data disk.
resource "libvirt_volume" "data" {
  name          = "data.qcow2"
  pool          = "default"
  capacity      = 10
  capacity_unit = "GiB"
  target        = { format = { type = "qcow2" } }
}

# A full, independent copy of another volume, made by libvirt on the host (no
# backing chain: an overlay is flattened), grown to 30 GiB. Progress is
# logged at INFO (TF_LOG=INFO).
resource "libvirt_volume" "vm2_root" {
  name          = "vm2-root.qcow2"
  pool          = "default"
  capacity      = 30
  capacity_unit = "GiB"
  create        = { clone = { volume = libvirt_volume.vm1_disk.name } }
}

# A "latest" image: its server's ETag, Last-Modified and size are recorded
# (content_upstream) and asked again at every plan; when the file changed, the
# plan replaces the volume with the new content.
resource "libvirt_volume" "debian_latest" {
  name = "debian-12-latest.qcow2"
  pool = "default"
  create = {
    content = {
      url            = "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2"
      checksum_url   = "https://cloud.debian.org/images/cloud/bookworm/latest/SHA512SUMS"
      track_upstream = true
    }
  }
}

# Compressed images (gzip, xz, zstd) are decompressed while they stream.
resource "libvirt_volume" "fedora_base" {
  name   = "fedora-base.raw"
  pool   = "default"
  create = { content = { url = "https://images.example.com/fedora.raw.xz" } }
}

# An image in a Ceph rbd pool: libvirt cannot upload into RBD, so the content
# goes into a staging volume of a dir pool on the same host first and QEMU
# copies it into the RBD image (raw; the qcow2 image is converted). The
# staging volume is deleted afterwards; a failure leaves nothing behind.
resource "libvirt_volume" "rbd_root" {
  name = "vm3-root"
  pool = "ceph-rbd" # a libvirt_pool of type rbd
  create = {
    content = {
      url          = "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2"
      staging_pool = "default"
    }
  }
}
