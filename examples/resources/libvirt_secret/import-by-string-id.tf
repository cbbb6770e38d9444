# The import block form: the id is the secret's UUID or usage id.
import {
  to = libvirt_secret.data_luks
  id = "/var/lib/libvirt/images/data.luks"
}
