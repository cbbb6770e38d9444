# The import block form: the id is the volume's key (its path for file-based
# pools) or "pool/name".
import {
  to = libvirt_volume.vm1_disk
  id = "default/vm1.qcow2"
}

# Adopting a base image uploaded by hand: with its content and checksum in the
# configuration, the plan compares the volume with the content (a volume cut
# short is replaced, with a warning naming the byte), checks the digest and
# records it in content_digest; verify_content then re-reads it at every
# refresh like a volume the provider created, so a later truncation plans its
# replacement instead of "No changes".
import {
  to = libvirt_volume.debian_adopted
  id = "default/debian-12.qcow2"
}

resource "libvirt_volume" "debian_adopted" {
  name           = "debian-12.qcow2"
  pool           = "default"
  verify_content = true
  create = {
    content = {
      url          = "https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2"
      checksum_url = "https://cloud.debian.org/images/cloud/bookworm/latest/SHA512SUMS"
    }
  }
}
