# Several libvirt hosts: which node lands on which host (the round-robin
# rule and node_hosts), what goes where (network, image copies, disks,
# domains), the bridge and clone modes, and the validation of it all.
# Placement is asserted on the module's own values (outputs, locals and the
# host arguments it sets), never on values a mock provider invents.

mock_provider "libvirt" {}
mock_provider "talos" {}

variables {
  cluster_name       = "lab"
  talos_image        = "/var/tmp/talos/nocloud-amd64.raw"
  talos_version      = "v1.9.5"
  controlplane_count = 3
  worker_count       = 2
}

run "without_hosts_everything_stays_on_the_provider_uri" {
  command = plan

  assert {
    condition     = alltrue([for n in values(output.nodes) : n.host == null])
    error_message = "without hosts no node may be placed on a named host"
  }
  assert {
    condition     = length(libvirt_network.this) == 1 && length(libvirt_volume.talos_image_copy) == 0
    error_message = "without hosts: one NAT network, one image, no copies"
  }
  assert {
    condition     = jsonencode(output.nodes_by_host) == jsonencode({ "" = ["lab-cp-1", "lab-cp-2", "lab-cp-3", "lab-worker-1", "lab-worker-2"] })
    error_message = "without hosts all nodes are on the provider's own uri"
  }
  assert {
    condition = (alltrue([for d in values(libvirt_domain.node) : d.host == null]) && alltrue([for v in values(libvirt_volume.node) : v.host == null])
    && libvirt_volume.talos_image.host == null && libvirt_network.this[0].host == null)
    error_message = "without hosts no resource may name a host"
  }
}

run "three_hosts_controlplanes_first_then_workers" {
  command = plan

  variables {
    hosts  = ["virt-1", "virt-2", "virt-3"]
    bridge = "br0"
  }

  assert {
    condition = { for name, n in output.nodes : name => n.host } == {
      "lab-cp-1"     = "virt-1"
      "lab-cp-2"     = "virt-2"
      "lab-cp-3"     = "virt-3"
      "lab-worker-1" = "virt-1"
      "lab-worker-2" = "virt-2"
    }
    error_message = "control planes must take one host each in order, then the workers continue the round-robin"
  }
  assert {
    condition = jsonencode(output.nodes_by_host) == jsonencode({
      "virt-1" = ["lab-cp-1", "lab-worker-1"]
      "virt-2" = ["lab-cp-2", "lab-worker-2"]
      "virt-3" = ["lab-cp-3"]
    })
    error_message = "nodes_by_host must list each host's nodes"
  }
  assert {
    condition = alltrue([for name, n in output.nodes :
      libvirt_domain.node[name].host == n.host && libvirt_volume.node[name].host == n.host
    ])
    error_message = "each node's domain and disk must be made through its host"
  }
}

run "one_controlplane_workers_continue_on_the_next_hosts" {
  command = plan

  variables {
    hosts              = ["virt-1", "virt-2", "virt-3"]
    bridge             = "br0"
    controlplane_count = 1
    worker_count       = 4
  }

  assert {
    condition     = join(",", [for name in ["lab-cp-1", "lab-worker-1", "lab-worker-2", "lab-worker-3", "lab-worker-4"] : output.nodes[name].host]) == "virt-1,virt-2,virt-3,virt-1,virt-2"
    error_message = "workers must continue the round-robin after the last control plane"
  }
}

run "more_controlplanes_than_hosts_without_anti_affinity" {
  command = plan

  variables {
    hosts                      = ["virt-1", "virt-2"]
    bridge                     = "br0"
    controlplane_count         = 3
    worker_count               = 1
    controlplane_anti_affinity = false
  }

  assert {
    condition     = join(",", [for name in ["lab-cp-1", "lab-cp-2", "lab-cp-3", "lab-worker-1"] : output.nodes[name].host]) == "virt-1,virt-2,virt-1,virt-2"
    error_message = "without anti-affinity the round-robin wraps around the hosts"
  }
}

run "node_hosts_pins_single_nodes" {
  command = plan

  variables {
    hosts      = ["virt-1", "virt-2", "virt-3"]
    bridge     = "br0"
    node_hosts = { "lab-worker-2" = "virt-3", "lab-worker-1" = "virt-2" }
  }

  assert {
    condition = { for name, n in output.nodes : name => n.host } == {
      "lab-cp-1"     = "virt-1"
      "lab-cp-2"     = "virt-2"
      "lab-cp-3"     = "virt-3"
      "lab-worker-1" = "virt-2"
      "lab-worker-2" = "virt-3"
    }
    error_message = "node_hosts must move exactly the nodes it names"
  }
  assert {
    condition     = libvirt_domain.node["lab-worker-1"].host == "virt-2" && libvirt_volume.node["lab-worker-2"].host == "virt-3"
    error_message = "a pinned node's domain and disk must follow node_hosts"
  }
}

run "hosts_without_nodes_get_nothing" {
  command = plan

  variables {
    hosts              = ["virt-1", "virt-2", "virt-3", "virt-4"]
    bridge             = "br0"
    controlplane_count = 1
    worker_count       = 1
  }

  assert {
    condition     = join(",", keys(output.nodes_by_host)) == "virt-1,virt-2"
    error_message = "only hosts with nodes appear in nodes_by_host"
  }
  assert {
    condition     = join(",", keys(libvirt_volume.talos_image_copy)) == "virt-2"
    error_message = "only hosts with nodes get a copy of the image"
  }
}

run "image_once_per_host_disks_from_their_host" {
  command = plan

  variables {
    hosts  = ["virt-1", "virt-2", "virt-3"]
    bridge = "br0"
  }

  assert {
    condition     = libvirt_volume.talos_image.name == "lab-talos.raw" && join(",", sort(keys(libvirt_volume.talos_image_copy))) == "virt-2,virt-3"
    error_message = "the first host keeps the image's usual name, the others get copies"
  }
  assert {
    condition     = libvirt_volume.talos_image_copy["virt-3"].name == "lab-talos-virt-3.raw" && libvirt_volume.talos_image_copy["virt-3"].create.content.url == "/var/tmp/talos/nocloud-amd64.raw"
    error_message = "a copy is the same image uploaded under a per-host name"
  }
  assert {
    condition     = libvirt_volume.talos_image.create.content.staging_pool == null && libvirt_volume.talos_image_copy["virt-2"].create.content.staging_pool == null
    error_message = "without talos_image_staging_pool the image is uploaded into pool directly"
  }
  assert {
    condition     = libvirt_volume.talos_image.host == "virt-1" && libvirt_volume.talos_image_copy["virt-2"].host == "virt-2" && libvirt_volume.talos_image_copy["virt-3"].host == "virt-3"
    error_message = "the image and each copy must be uploaded through their own host"
  }
  assert {
    condition = { for name in keys(output.nodes) : name => local.node_image[name].name } == {
      "lab-cp-1"     = "lab-talos.raw"
      "lab-cp-2"     = "lab-talos-virt-2.raw"
      "lab-cp-3"     = "lab-talos-virt-3.raw"
      "lab-worker-1" = "lab-talos.raw"
      "lab-worker-2" = "lab-talos-virt-2.raw"
    }
    error_message = "each node disk must be made from the image on its own host"
  }
}

run "bridge_replaces_the_nat_network" {
  command = plan

  variables {
    hosts  = ["virt-1", "virt-2", "virt-3"]
    bridge = "br0"
  }

  assert {
    condition     = length(libvirt_network.this) == 0 && output.network_name == null
    error_message = "with bridge no libvirt network is created"
  }
  assert {
    condition = alltrue([for name, d in local.node_devices :
      d.interfaces[0].type == "bridge" && d.interfaces[0].source.bridge.bridge == "br0" && d.interfaces[0].source.network == null
      && d.interfaces[0].mac.address == output.nodes[name].mac
    ])
    error_message = "every node's NIC must be on the bridge with its fixed MAC"
  }
  assert {
    condition     = talos_machine_configuration_apply.node["lab-cp-2"].node == "10.17.0.11" && talos_machine_configuration_apply.node["lab-worker-1"].node == "10.17.0.20"
    error_message = "on a bridge Talos is reached at the node's planned address (the LAN's DHCP reservation)"
  }
}

run "single_named_host_keeps_the_nat_network" {
  command = plan

  variables {
    hosts              = ["virt-1"]
    controlplane_count = 1
  }

  assert {
    condition     = length(libvirt_network.this) == 1 && libvirt_network.this[0].forward.mode == "nat"
    error_message = "one host needs no bridge: the NAT network stays"
  }
  assert {
    condition     = libvirt_network.this[0].host == "virt-1" && libvirt_volume.talos_image.host == "virt-1"
    error_message = "the NAT network and the image must be on the one host"
  }
  assert {
    condition     = alltrue([for n in values(output.nodes) : n.host == "virt-1"]) && length(libvirt_volume.talos_image_copy) == 0
    error_message = "with one host everything is on it, one image"
  }
  assert {
    condition     = alltrue([for d in values(local.node_devices) : d.interfaces[0].type == "network" && d.interfaces[0].source.network.network == "lab"])
    error_message = "the nodes stay on the NAT network"
  }
}

run "clone_mode_copies_the_image_on_the_host" {
  command = plan

  variables {
    hosts          = ["virt-1", "virt-2", "virt-3"]
    bridge         = "br0"
    node_disk_mode = "clone"
    worker         = { disk_gib = 40 }
  }

  assert {
    condition     = libvirt_volume.node["lab-cp-3"].name == "lab-cp-3.raw" && libvirt_volume.node["lab-cp-3"].target.format.type == "raw"
    error_message = "a cloned disk keeps the image's format"
  }
  assert {
    condition     = libvirt_volume.node["lab-cp-3"].create.clone.volume == "lab-talos-virt-3.raw" && local.node_backing_store["lab-cp-3"] == null
    error_message = "a cloned disk is a copy of the image on its own host, without backing store"
  }
  assert {
    condition     = libvirt_volume.node["lab-worker-1"].capacity == 40 * 1073741824
    error_message = "a cloned disk is grown to the node's size"
  }
  assert {
    condition     = local.node_devices["lab-cp-1"].disks[0].driver.type == "raw"
    error_message = "the domain must open a cloned disk in the image's format"
  }
}

run "overlay_mode_is_the_default" {
  command = plan

  assert {
    condition     = libvirt_volume.node["lab-cp-1"].name == "lab-cp-1.qcow2" && libvirt_volume.node["lab-cp-1"].create == null && libvirt_volume.node["lab-cp-1"].backing_store.format.type == "raw"
    error_message = "by default node disks are qcow2 overlays on the image"
  }
  assert {
    condition     = local.node_devices["lab-cp-1"].disks[0].driver.type == "qcow2"
    error_message = "an overlay is opened as qcow2"
  }
}

run "rbd_network_disks" {
  command = plan

  variables {
    hosts                    = ["virt-1", "virt-2", "virt-3"]
    bridge                   = "br0"
    pool                     = "ceph"
    node_disk_mode           = "clone"
    talos_image_staging_pool = "default"
    rbd = {
      ceph_pool   = "k8s"
      monitors    = [{ host = "10.0.0.1" }, { host = "10.0.0.2", port = "3300" }]
      username    = "libvirt"
      secret_uuid = "6c0fb5d1-8a5e-5c38-9f0e-3d8b4a1c2e7f"
    }
  }

  assert {
    condition = alltrue([for name, d in local.node_devices :
      d.disks[0].type == "network" && d.disks[0].source.volume == null && d.disks[0].source.network.protocol == "rbd"
      && d.disks[0].source.network.name == "k8s/${name}.raw" && d.disks[0].driver.name == "qemu" && d.disks[0].driver.type == "raw"
    ])
    error_message = "with rbd each node disk is a raw RBD network disk named <ceph_pool>/<node>.raw"
  }
  assert {
    condition = (length(local.node_devices["lab-cp-2"].disks[0].source.network.hosts) == 2
      && local.node_devices["lab-cp-2"].disks[0].source.network.hosts[1].name == "10.0.0.2" && local.node_devices["lab-cp-2"].disks[0].source.network.hosts[1].port == "3300"
    && local.node_devices["lab-cp-2"].disks[0].source.network.hosts[0].port == null)
    error_message = "the monitors must reach the disk's hosts"
  }
  assert {
    condition = alltrue([for d in values(local.node_devices) :
      d.disks[0].source.network.auth.username == "libvirt" && d.disks[0].source.network.auth.secret.type == "ceph"
      && d.disks[0].source.network.auth.secret.uuid == "6c0fb5d1-8a5e-5c38-9f0e-3d8b4a1c2e7f"
    ])
    error_message = "every disk authenticates with the one secret UUID (the same on every host)"
  }
  assert {
    condition     = libvirt_volume.node["lab-cp-2"].pool == "ceph" && libvirt_volume.node["lab-cp-2"].host == "virt-2"
    error_message = "the RBD image is still made through the node's host in pool"
  }
  assert {
    condition     = libvirt_volume.talos_image.create.content.staging_pool == "default" && libvirt_volume.talos_image_copy["virt-3"].create.content.staging_pool == "default"
    error_message = "the image and its copies go into RBD through the staging pool"
  }
}

run "volume_disks_without_rbd" {
  command = plan

  assert {
    condition = alltrue([for name, d in local.node_devices :
      d.disks[0].type == null && d.disks[0].source.network == null && d.disks[0].source.volume.volume == "${name}.qcow2" && d.disks[0].driver.name == null
    ])
    error_message = "without rbd the node disks stay volume disks"
  }
}

# --- validation ----------------------------------------------------------------

run "reject_empty_hosts" {
  command = plan
  variables { hosts = [] }
  expect_failures = [var.hosts]
}

run "reject_duplicate_hosts" {
  command = plan
  variables {
    hosts  = ["virt-1", "virt-2", "virt-1"]
    bridge = "br0"
  }
  expect_failures = [var.hosts]
}

run "reject_bad_host_name" {
  command = plan
  variables {
    hosts  = ["virt 1", "virt-2", "virt-3"]
    bridge = "br0"
  }
  expect_failures = [var.hosts]
}

run "reject_more_controlplanes_than_hosts" {
  command = plan
  variables {
    hosts  = ["virt-1", "virt-2"]
    bridge = "br0"
  }
  expect_failures = [var.hosts]
}

run "reject_node_hosts_unknown_host" {
  command = plan
  variables {
    hosts      = ["virt-1", "virt-2", "virt-3"]
    bridge     = "br0"
    node_hosts = { "lab-worker-1" = "virt-9" }
  }
  expect_failures = [var.node_hosts]
}

run "reject_node_hosts_unknown_node" {
  command = plan
  variables {
    hosts      = ["virt-1", "virt-2", "virt-3"]
    bridge     = "br0"
    node_hosts = { "lab-worker-3" = "virt-1" }
  }
  expect_failures = [var.node_hosts]
}

run "reject_node_hosts_without_hosts" {
  command = plan
  variables { node_hosts = { "lab-worker-1" = "virt-1" } }
  expect_failures = [var.node_hosts]
}

run "reject_node_hosts_breaking_anti_affinity" {
  command = plan
  variables {
    hosts      = ["virt-1", "virt-2", "virt-3"]
    bridge     = "br0"
    node_hosts = { "lab-cp-3" = "virt-1" }
  }
  expect_failures = [libvirt_domain.node]
}

run "node_hosts_may_share_without_anti_affinity" {
  command = plan
  variables {
    hosts                      = ["virt-1", "virt-2", "virt-3"]
    bridge                     = "br0"
    node_hosts                 = { "lab-cp-3" = "virt-1" }
    controlplane_anti_affinity = false
  }
  assert {
    condition     = join(",", output.nodes_by_host["virt-1"]) == "lab-cp-1,lab-cp-3,lab-worker-1"
    error_message = "without anti-affinity two control planes may share a host"
  }
}

run "reject_several_hosts_without_bridge" {
  command = plan
  variables { hosts = ["virt-1", "virt-2", "virt-3"] }
  expect_failures = [var.bridge]
}

run "reject_bad_bridge_name" {
  command = plan
  variables { bridge = "br 0" }
  expect_failures = [var.bridge]
}

run "reject_overlapping_addresses_on_bridge" {
  command = plan
  variables {
    bridge           = "br0"
    worker_ip_offset = 12
  }
  expect_failures = [var.bridge]
}

run "reject_addresses_outside_subnet_on_bridge" {
  command = plan
  variables {
    bridge           = "br0"
    worker_ip_offset = 254
  }
  expect_failures = [var.bridge]
}

run "reject_vip_on_a_node_on_bridge" {
  command = plan
  variables {
    bridge = "br0"
    vip    = "10.17.0.11"
  }
  expect_failures = [var.bridge]
}

run "reject_bad_node_disk_mode" {
  command = plan
  variables { node_disk_mode = "copy" }
  expect_failures = [var.node_disk_mode]
}

run "reject_rbd_without_clone" {
  command = plan
  variables {
    talos_image_staging_pool = "default"
    rbd                      = { ceph_pool = "k8s", monitors = [{ host = "10.0.0.1" }], username = "libvirt", secret_uuid = "6c0fb5d1-8a5e-5c38-9f0e-3d8b4a1c2e7f" }
  }
  expect_failures = [var.rbd]
}

run "reject_rbd_without_monitors" {
  command = plan
  variables {
    node_disk_mode           = "clone"
    talos_image_staging_pool = "default"
    rbd                      = { ceph_pool = "k8s", monitors = [], username = "libvirt", secret_uuid = "6c0fb5d1-8a5e-5c38-9f0e-3d8b4a1c2e7f" }
  }
  expect_failures = [var.rbd]
}

run "reject_rbd_bad_secret_uuid" {
  command = plan
  variables {
    node_disk_mode           = "clone"
    talos_image_staging_pool = "default"
    rbd                      = { ceph_pool = "k8s", monitors = [{ host = "10.0.0.1" }], username = "libvirt", secret_uuid = "not-a-uuid" }
  }
  expect_failures = [var.rbd]
}

run "reject_rbd_qcow2_image" {
  command = plan
  variables {
    node_disk_mode           = "clone"
    talos_image_format       = "qcow2"
    talos_image_staging_pool = "default"
    rbd                      = { ceph_pool = "k8s", monitors = [{ host = "10.0.0.1" }], username = "libvirt", secret_uuid = "6c0fb5d1-8a5e-5c38-9f0e-3d8b4a1c2e7f" }
  }
  expect_failures = [var.rbd]
}

run "reject_rbd_without_staging_pool" {
  command = plan
  variables {
    node_disk_mode = "clone"
    rbd            = { ceph_pool = "k8s", monitors = [{ host = "10.0.0.1" }], username = "libvirt", secret_uuid = "6c0fb5d1-8a5e-5c38-9f0e-3d8b4a1c2e7f" }
  }
  expect_failures = [var.rbd]
}
