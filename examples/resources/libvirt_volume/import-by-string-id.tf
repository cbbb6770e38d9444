# The import block form: the id is the volume's key (its path for file-based
# pools) or "pool/name".
import {
  to = libvirt_volume.vm1_disk
  id = "default/vm1.qcow2"
}
