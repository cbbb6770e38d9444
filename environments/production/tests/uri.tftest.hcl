# environments/production must be given the URI of its (remote) host.

mock_provider "libvirt" {}
mock_provider "talos" {}

run "remote_ssh_uri_accepted" {
  command = plan
  variables {
    libvirt_uri = "qemu+ssh://deploy@virt-1.example.internal/system?keyfile=/home/deploy/.ssh/id_ed25519"
  }
  assert {
    condition     = var.libvirt_uri == "qemu+ssh://deploy@virt-1.example.internal/system?keyfile=/home/deploy/.ssh/id_ed25519"
    error_message = "a remote qemu+ssh URI must be accepted"
  }
}

run "remote_tls_uri_with_port_accepted" {
  command = plan
  variables {
    libvirt_uri = "qemu+tls://virt-1.example.internal:16514/system"
  }
  assert {
    condition     = startswith(var.libvirt_uri, "qemu+tls://")
    error_message = "a remote qemu+tls URI must be accepted"
  }
}

run "reject_local_system_uri" {
  command = plan
  variables { libvirt_uri = "qemu:///system" }
  expect_failures = [var.libvirt_uri]
}

run "reject_localhost_over_ssh" {
  command = plan
  variables { libvirt_uri = "qemu+ssh://root@localhost/system" }
  expect_failures = [var.libvirt_uri]
}

run "reject_loopback_over_tcp" {
  command = plan
  variables { libvirt_uri = "qemu+tcp://127.0.0.1:16509/system" }
  expect_failures = [var.libvirt_uri]
}

run "reject_unix_socket_transport" {
  command = plan
  variables { libvirt_uri = "qemu+unix:///system" }
  expect_failures = [var.libvirt_uri]
}
