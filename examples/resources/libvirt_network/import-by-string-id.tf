# The import block form: the id is the network's name or UUID.
import {
  to = libvirt_network.cluster
  id = "cluster"
}
