# environments/production must be given its (remote) hosts: at least three,
# each URI with a remote transport, none of them the local machine.

mock_provider "libvirt" {}
mock_provider "talos" {}

variables {
  libvirt_hosts = {
    virt-1 = "qemu+ssh://deploy@virt-1.example.internal/system"
    virt-2 = "qemu+ssh://deploy@virt-2.example.internal/system"
    virt-3 = "qemu+ssh://deploy@virt-3.example.internal/system"
  }
  ceph_monitors = ["ceph-mon-1.example.internal", "ceph-mon-2.example.internal:3300"]
  ceph_key      = "AQBj1uJgAAAAABAAp0PEDHOjwv3gQ5bLqbNw5g=="
  network_cidr  = "10.20.0.0/24"
  talos_image   = "/var/lib/talos/nocloud-amd64-v1.9.5.raw"
}

run "remote_ssh_uri_accepted" {
  command = plan
  variables {
    libvirt_hosts = {
      virt-1 = "qemu+ssh://deploy@virt-1.example.internal/system?keyfile=/home/deploy/.ssh/id_ed25519"
      virt-2 = "qemu+ssh://deploy@virt-2.example.internal/system"
      virt-3 = "qemu+ssh://deploy@virt-3.example.internal/system"
    }
  }
  assert {
    condition     = var.libvirt_hosts["virt-1"] == "qemu+ssh://deploy@virt-1.example.internal/system?keyfile=/home/deploy/.ssh/id_ed25519"
    error_message = "a remote qemu+ssh URI must be accepted"
  }
}

run "remote_tls_uri_with_port_accepted" {
  command = plan
  variables {
    libvirt_hosts = {
      virt-1 = "qemu+tls://virt-1.example.internal:16514/system"
      virt-2 = "qemu+tls://virt-2.example.internal:16514/system"
      virt-3 = "qemu+libssh2://deploy@virt-3.example.internal/system"
    }
  }
  assert {
    condition     = startswith(local.provider_uri, "qemu+tls://")
    error_message = "a remote qemu+tls URI must be accepted"
  }
}

run "provider_uri_is_the_first_host" {
  command = plan
  assert {
    condition     = join(",", local.host_names) == "virt-1,virt-2,virt-3" && local.provider_uri == "qemu+ssh://deploy@virt-1.example.internal/system"
    error_message = "the hosts are taken in name order and the first one is the provider's own uri"
  }
}

run "reject_local_system_uri" {
  command = plan
  variables {
    libvirt_hosts = {
      virt-1 = "qemu:///system"
      virt-2 = "qemu+ssh://deploy@virt-2.example.internal/system"
      virt-3 = "qemu+ssh://deploy@virt-3.example.internal/system"
    }
  }
  expect_failures = [var.libvirt_hosts]
}

run "reject_localhost_over_ssh" {
  command = plan
  variables {
    libvirt_hosts = {
      virt-1 = "qemu+ssh://deploy@virt-1.example.internal/system"
      virt-2 = "qemu+ssh://root@localhost/system"
      virt-3 = "qemu+ssh://deploy@virt-3.example.internal/system"
    }
  }
  expect_failures = [var.libvirt_hosts]
}

run "reject_loopback_over_tcp" {
  command = plan
  variables {
    libvirt_hosts = {
      virt-1 = "qemu+ssh://deploy@virt-1.example.internal/system"
      virt-2 = "qemu+ssh://deploy@virt-2.example.internal/system"
      virt-3 = "qemu+tcp://127.0.0.1:16509/system"
    }
  }
  expect_failures = [var.libvirt_hosts]
}

run "reject_unix_socket_transport" {
  command = plan
  variables {
    libvirt_hosts = {
      virt-1 = "qemu+unix:///system"
      virt-2 = "qemu+ssh://deploy@virt-2.example.internal/system"
      virt-3 = "qemu+ssh://deploy@virt-3.example.internal/system"
    }
  }
  expect_failures = [var.libvirt_hosts]
}

run "reject_fewer_than_three_hosts" {
  command = plan
  variables {
    libvirt_hosts = {
      virt-1 = "qemu+ssh://deploy@virt-1.example.internal/system"
      virt-2 = "qemu+ssh://deploy@virt-2.example.internal/system"
    }
  }
  expect_failures = [var.libvirt_hosts]
}

run "reject_two_names_for_one_machine" {
  command = plan
  variables {
    libvirt_hosts = {
      virt-1 = "qemu+ssh://deploy@virt-1.example.internal/system"
      virt-2 = "qemu+tls://VIRT-1.example.internal/system"
      virt-3 = "qemu+ssh://deploy@virt-3.example.internal/system"
    }
  }
  expect_failures = [var.libvirt_hosts]
}

run "reject_bad_host_name" {
  command = plan
  variables {
    libvirt_hosts = {
      virt_1 = "qemu+ssh://deploy@virt-1.example.internal/system"
      virt-2 = "qemu+ssh://deploy@virt-2.example.internal/system"
      virt-3 = "qemu+ssh://deploy@virt-3.example.internal/system"
    }
  }
  expect_failures = [var.libvirt_hosts]
}
