terraform {
  required_providers {
    libvirt = {
      source = "virtxml/libvirt"
    }
  }
}

# Several hosts in one provider block: resources choose theirs with `host`.
# Resources without `host` live on `uri`.
provider "libvirt" {
  uri = "qemu+ssh://deploy@hv1.example.net/system?sshauth=agent"
  hosts = {
    hv1 = { uri = "qemu+ssh://deploy@hv1.example.net/system?sshauth=agent" }
    hv2 = { uri = "qemu+ssh://deploy@hv2.example.net/system?sshauth=agent" }
  }
}

# The same NFS export mounted at /srv/vm on both hosts, a pool over it on each.
resource "libvirt_pool" "shared" {
  for_each = toset(["hv1", "hv2"])

  host   = each.key
  name   = "shared"
  type   = "dir"
  target = { path = "/srv/vm" }
}

resource "libvirt_volume" "web_root" {
  host     = "hv1"
  name     = "web-root.qcow2"
  pool     = libvirt_pool.shared["hv1"].name
  capacity = 10737418240
  target   = { format = { type = "qcow2" } }
}

# Changing host to "hv2" migrates the running domain live (an in-place
# update): its disk is in a pool both hosts have under the same path.
resource "libvirt_domain" "web" {
  host        = "hv1"
  name        = "web"
  type        = "kvm"
  memory      = 2048
  memory_unit = "MiB"
  vcpu        = 2
  running     = true

  os = { type = "hvm" }

  devices = {
    disks = [{
      source = { volume = { pool = libvirt_volume.web_root.pool, volume = libvirt_volume.web_root.name } }
      target = { dev = "vda", bus = "virtio" }
    }]
  }

  depends_on = [libvirt_pool.shared]
}
