# The import block form: the id is the filter's name or UUID.
import {
  to = libvirt_nwfilter.guard
  id = "guard-host"
}
