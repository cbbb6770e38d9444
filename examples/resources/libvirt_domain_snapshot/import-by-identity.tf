# domain: its UUID or name
import {
  to       = libvirt_domain_snapshot.before_upgrade
  identity = { domain = "web1", name = "before-upgrade" }
}
