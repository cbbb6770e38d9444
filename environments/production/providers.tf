# One provider, three hosts: every resource names its host (a key of
# libvirt_hosts); the provider's own uri is the first host's, so nothing
# falls back to the machine running tofu.

provider "libvirt" {
  uri   = local.provider_uri
  hosts = { for name, uri in var.libvirt_hosts : name => { uri = uri } }
}

provider "talos" {}
