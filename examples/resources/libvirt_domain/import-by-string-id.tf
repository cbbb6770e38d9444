# The import block form (OpenTofu 1.5+, Terraform 1.5+): the id is the
# domain's name or UUID. The next plan shows only the import when the
# configuration writes what the domain has.
import {
  to = libvirt_domain.web1
  id = "web1"
}
