# Domains and disks: counts, sizes in MiB, disks backed by the shared Talos
# image, NICs with the reserved MACs.

mock_provider "libvirt" {
  mock_resource "libvirt_volume" {
    defaults = {
      path = "/var/lib/libvirt/images/lab-talos.raw"
    }
  }
}
mock_provider "talos" {}

variables {
  cluster_name       = "lab"
  talos_image        = "file:///var/tmp/talos/nocloud-amd64.raw"
  talos_version      = "v1.9.5"
  controlplane_count = 3
  worker_count       = 2
  # Secrets made outside the module: these files apply, and the module's
  # own talos_machine_secrets has prevent_destroy, which the test cleanup
  # would trip over (tests/secrets.tftest.hcl covers them, plan only).
  machine_secrets = {
    machine_secrets = {
      certs = {
        etcd               = { cert = "bW9jay1ldGNkLWNh", key = "bW9jay1ldGNkLWtleQ==" }
        k8s                = { cert = "bW9jay1rOHMtY2E=", key = "bW9jay1rOHMta2V5" }
        k8s_aggregator     = { cert = "bW9jay1hZ2ctY2E=", key = "bW9jay1hZ2cta2V5" }
        k8s_serviceaccount = { key = "bW9jay1zYS1rZXk=" }
        os                 = { cert = "bW9jay1vcy1jYQ==", key = "bW9jay1vcy1rZXk=" }
      }
      cluster = { id = "mock-cluster-id", secret = "mock-cluster-secret" }
      secrets = {
        bootstrap_token             = "abcdef.0123456789abcdef"
        secretbox_encryption_secret = "bW9jay1zZWNyZXRib3g="
      }
      trustdinfo = { token = "mock.trustd" }
    }
    client_configuration = {
      ca_certificate     = "bW9jay1vcy1jYQ=="
      client_certificate = "bW9jay1hZG1pbi1jZXJ0"
      client_key         = "bW9jay1hZG1pbi1rZXk="
    }
  }
}

run "default_counts" {
  command = plan

  variables {
    controlplane_count = null
    worker_count       = null
  }

  assert {
    condition     = length(libvirt_domain.node) == 2 && length(output.controlplane_ips) == 1 && length(output.worker_ips) == 1
    error_message = "defaults are one control plane and one worker"
  }
}

run "node_counts_and_names" {
  command = plan

  assert {
    condition     = length(libvirt_domain.node) == 5 && length(libvirt_volume.node) == 5
    error_message = "5 nodes need 5 domains and 5 disks"
  }
  assert {
    condition     = join(",", sort(keys(libvirt_domain.node))) == "lab-cp-1,lab-cp-2,lab-cp-3,lab-worker-1,lab-worker-2"
    error_message = "nodes must be named <cluster>-cp-N and <cluster>-worker-N"
  }
  assert {
    condition     = libvirt_domain.node["lab-cp-2"].name == "lab-cp-2"
    error_message = "domain name must be the node name"
  }
}

run "controlplane_only_cluster" {
  command = plan

  variables {
    controlplane_count = 1
    worker_count       = 0
  }

  assert {
    condition     = length(libvirt_domain.node) == 1 && length(output.worker_ips) == 0
    error_message = "worker_count 0 means no worker domains"
  }
}

run "controlplane_size_in_mib" {
  command = plan

  variables {
    controlplane = { memory_mib = 6144, vcpus = 4 }
  }

  assert {
    condition     = libvirt_domain.node["lab-cp-1"].memory == 6144 && libvirt_domain.node["lab-cp-1"].memory_unit == "MiB"
    error_message = "control-plane memory must be sent in MiB"
  }
  assert {
    condition     = libvirt_domain.node["lab-cp-3"].vcpu == 4
    error_message = "control-plane vcpus not wired"
  }
  assert {
    condition     = libvirt_domain.node["lab-worker-1"].memory == 2048 && libvirt_domain.node["lab-worker-1"].vcpu == 2
    error_message = "workers must keep their own defaults"
  }
}

run "worker_size_in_mib" {
  command = plan

  variables {
    worker = { memory_mib = 3072, vcpus = 3, disk_gib = 40 }
  }

  assert {
    condition     = libvirt_domain.node["lab-worker-2"].memory == 3072 && libvirt_domain.node["lab-worker-2"].memory_unit == "MiB" && libvirt_domain.node["lab-worker-2"].vcpu == 3
    error_message = "worker size not wired"
  }
  assert {
    condition     = libvirt_volume.node["lab-worker-2"].capacity == 40 * 1073741824 && libvirt_volume.node["lab-cp-1"].capacity == 20 * 1073741824
    error_message = "disk_gib must become capacity in bytes per role"
  }
}

run "talos_image_uploaded_once" {
  command = plan

  variables {
    talos_image_format = "qcow2"
  }

  assert {
    condition     = libvirt_volume.talos_image.create.content.url == "file:///var/tmp/talos/nocloud-amd64.raw" && libvirt_volume.talos_image.target.format.type == "qcow2"
    error_message = "talos_image must be uploaded with its format"
  }
  assert {
    condition     = libvirt_volume.talos_image.name == "lab-talos.qcow2" && libvirt_volume.talos_image.pool == "default"
    error_message = "the Talos image volume must be named after the cluster in the pool"
  }
}

run "node_disks_backed_by_talos_image" {
  assert {
    condition     = alltrue([for v in libvirt_volume.node : v.backing_store.path == libvirt_volume.talos_image.path && v.backing_store.format.type == "raw" && v.target.format.type == "qcow2"])
    error_message = "every node disk must be a qcow2 overlay on the Talos image"
  }
}

run "domain_boots_node_disk" {
  command = plan

  variables {
    pool = "talos"
  }

  assert {
    condition     = alltrue([for name, d in libvirt_domain.node : d.devices.disks[0].source.volume.volume == "${name}.qcow2" && d.devices.disks[0].source.volume.pool == "talos"])
    error_message = "each domain must boot its own disk from the pool"
  }
  assert {
    condition     = libvirt_domain.node["lab-cp-1"].devices.disks[0].target.bus == "scsi" && libvirt_domain.node["lab-cp-1"].devices.disks[0].target.dev == "sda"
    error_message = "the node disk must be sda on scsi by default"
  }
  assert {
    condition     = libvirt_domain.node["lab-cp-1"].os.type == "hvm"
    error_message = "nodes must be hvm guests"
  }
}

run "domain_nic_on_cluster_network" {
  command = plan

  assert {
    condition     = alltrue([for d in libvirt_domain.node : d.devices.interfaces[0].source.network.network == "lab" && d.devices.interfaces[0].model.type == "virtio"])
    error_message = "every NIC must be virtio on the cluster network"
  }
  assert {
    condition     = alltrue([for name, d in libvirt_domain.node : d.devices.interfaces[0].mac.address == output.nodes[name].mac])
    error_message = "every NIC must carry the node's reserved MAC"
  }
}

run "domain_type_and_console" {
  command = plan

  variables {
    domain_type = "qemu"
    autostart   = false
  }

  assert {
    condition     = alltrue([for d in libvirt_domain.node : d.type == "qemu" && d.running == true && d.autostart == false])
    error_message = "domain_type/autostart not wired or nodes not running"
  }
  assert {
    condition     = libvirt_network.this[0].autostart == false
    error_message = "autostart must reach the network too"
  }
  assert {
    condition     = libvirt_domain.node["lab-worker-1"].devices.serials[0].target.port == 0 && libvirt_domain.node["lab-worker-1"].devices.consoles[0].target.type == "serial"
    error_message = "nodes need a serial console (Talos logs there)"
  }
}

run "outputs_node_map" {
  command = plan

  assert {
    condition     = output.nodes["lab-cp-2"].role == "controlplane" && output.nodes["lab-cp-2"].ip == "10.17.0.11" && output.nodes["lab-worker-1"].role == "worker"
    error_message = "nodes output must list role and ip"
  }
  assert {
    condition     = join(",", output.controlplane_ips) == "10.17.0.10,10.17.0.11,10.17.0.12" && join(",", output.worker_ips) == "10.17.0.20,10.17.0.21"
    error_message = "ip outputs must be ordered by node"
  }
  assert {
    condition     = output.network_name == "lab"
    error_message = "network_name output"
  }
}
