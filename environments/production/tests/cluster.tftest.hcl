# The three-host cluster on Ceph RBD: a cephx secret and an rbd pool per
# host, the nodes spread over the hosts (control planes one per host), and
# the validation of the Ceph inputs.

mock_provider "libvirt" {
  mock_resource "libvirt_secret" {
    defaults = {
      id = "0b0c5a56-7f4f-4d7e-9a55-2c1b9c7d1e01"
    }
  }
}
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
  vip           = "10.20.0.5"
  talos_image   = "/var/lib/talos/nocloud-amd64-v1.9.5.raw"
}

run "a_ceph_secret_per_host" {
  command = plan

  assert {
    condition     = join(",", sort(keys(libvirt_secret.ceph))) == "virt-1,virt-2,virt-3"
    error_message = "every host needs the cephx key"
  }
  assert {
    condition = alltrue([for h, s in libvirt_secret.ceph :
      s.host == h && s.usage.type == "ceph" && s.usage.name == "client.libvirt secret" && s.private == "yes"
    ])
    error_message = "each secret is a private ceph secret on its own host"
  }
  assert {
    condition     = nonsensitive(libvirt_secret.ceph["virt-2"].value_base64 == var.ceph_key)
    error_message = "the secret must hold ceph_key as given (base64)"
  }
  assert {
    condition     = length(distinct([for s in values(libvirt_secret.ceph) : s.uuid])) == 1 && libvirt_secret.ceph["virt-1"].uuid == local.ceph_secret_uuid
    error_message = "every host's secret must have the same UUID (disks name it, domains migrate with it)"
  }
}

run "an_rbd_pool_per_host_on_the_same_ceph_pool" {
  command = plan

  assert {
    condition = alltrue([for h, p in libvirt_pool.ceph :
      p.host == h && p.name == "ceph" && p.type == "rbd" && p.source.name == "libvirt" && p.autostart == true
    ])
    error_message = "each host gets the libvirt pool ceph, type rbd, on the Ceph pool libvirt"
  }
  assert {
    # A port left out is null in the configuration (local.ceph_monitors);
    # the provider may fill it in, so the plan does not know it.
    condition = (length(libvirt_pool.ceph["virt-1"].source.host) == 2 && local.ceph_monitors[0].port == null
      && libvirt_pool.ceph["virt-1"].source.host[0].name == "ceph-mon-1.example.internal"
    && libvirt_pool.ceph["virt-1"].source.host[1].name == "ceph-mon-2.example.internal" && libvirt_pool.ceph["virt-1"].source.host[1].port == "3300")
    error_message = "the monitors (with their ports) must reach the pool's source hosts"
  }
  assert {
    condition = alltrue([for h, p in libvirt_pool.ceph :
      p.source.auth.type == "ceph" && p.source.auth.username == "libvirt" && p.source.auth.secret.uuid == local.ceph_secret_uuid
    ])
    error_message = "each pool authenticates with the secret on its own host"
  }
}

run "three_controlplanes_one_per_host_workers_round_robin" {
  command = plan

  variables {
    worker_count = 4
  }

  assert {
    condition = jsonencode({ for name, n in module.cluster.nodes : name => n.host }) == jsonencode({
      "prod-cp-1"     = "virt-1"
      "prod-cp-2"     = "virt-2"
      "prod-cp-3"     = "virt-3"
      "prod-worker-1" = "virt-1"
      "prod-worker-2" = "virt-2"
      "prod-worker-3" = "virt-3"
      "prod-worker-4" = "virt-1"
    })
    error_message = "control planes take one host each, workers continue the round-robin"
  }
  assert {
    condition     = jsonencode(output.nodes_by_host) == jsonencode({ "virt-1" = ["prod-cp-1", "prod-worker-1", "prod-worker-4"], "virt-2" = ["prod-cp-2", "prod-worker-2"], "virt-3" = ["prod-cp-3", "prod-worker-3"] })
    error_message = "nodes_by_host must show the spread"
  }
}

run "more_hosts_spread_further" {
  command = plan

  variables {
    libvirt_hosts = {
      virt-1 = "qemu+ssh://deploy@virt-1.example.internal/system"
      virt-2 = "qemu+ssh://deploy@virt-2.example.internal/system"
      virt-3 = "qemu+ssh://deploy@virt-3.example.internal/system"
      virt-4 = "qemu+tls://virt-4.example.internal/system"
    }
    worker_count = 2
  }

  assert {
    condition     = join(",", [for name in ["prod-cp-1", "prod-cp-2", "prod-cp-3", "prod-worker-1", "prod-worker-2"] : module.cluster.nodes[name].host]) == "virt-1,virt-2,virt-3,virt-4,virt-1"
    error_message = "with a fourth host the first worker lands on it"
  }
  assert {
    condition     = length(libvirt_pool.ceph) == 4 && length(libvirt_secret.ceph) == 4
    error_message = "every host gets its secret and pool"
  }
}

run "reject_no_ceph_monitor" {
  command = plan
  variables { ceph_monitors = [] }
  expect_failures = [var.ceph_monitors]
}

run "reject_bad_ceph_monitor" {
  command = plan
  variables { ceph_monitors = ["ceph-mon-1.example.internal:port"] }
  expect_failures = [var.ceph_monitors]
}

run "reject_ceph_key_not_base64" {
  command = plan
  variables { ceph_key = "not a key" }
  expect_failures = [var.ceph_key]
}

run "reject_ceph_user_with_client_prefix" {
  command = plan
  variables { ceph_user = "client.libvirt" }
  expect_failures = [var.ceph_user]
}

run "reject_staging_pool_that_is_the_rbd_pool" {
  command = plan
  variables { staging_pool = "ceph" }
  expect_failures = [var.staging_pool]
}
