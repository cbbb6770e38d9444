# One aliased provider block per remote hypervisor. Resources choose a host with
# `provider = libvirt.<alias>`; each block opens its own connection.

# Over SSH, with a dedicated key and known_hosts file. The host key must
# already be trusted, for example with:
#   ssh-keyscan -p 2222 hv1.example.net >> ~/.ssh/known_hosts
provider "libvirt" {
  alias = "hv1"
  uri   = "qemu+ssh://deploy@hv1.example.net:2222/system?keyfile=~/.ssh/id_ed25519_hv&known_hosts=~/.ssh/known_hosts&sshauth=privkey"
}

# Over SSH, authenticating through the running ssh-agent only.
provider "libvirt" {
  alias = "hv2"
  uri   = "qemu+ssh://deploy@hv2.example.net/system?sshauth=agent"
}

# Over TLS with client certificates from one directory
# (cacert.pem, clientcert.pem, clientkey.pem).
provider "libvirt" {
  alias = "hv3"
  uri   = "qemu+tls://hv3.example.net/system?pkipath=/etc/libvirt-clients/hv3"
}

resource "libvirt_network" "hv1_lab" {
  provider = libvirt.hv1

  name = "lab"
  forward = {
    mode = "nat"
  }
  ips = [{
    address = "192.168.150.1"
    prefix  = 24
  }]
}

resource "libvirt_network" "hv3_lab" {
  provider = libvirt.hv3

  name = "lab"
  forward = {
    mode = "nat"
  }
  ips = [{
    address = "192.168.151.1"
    prefix  = 24
  }]
}
