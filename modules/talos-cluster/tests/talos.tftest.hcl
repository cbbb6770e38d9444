# The Talos chain: secrets, per-role machine configuration with patches,
# per-node apply (hostname patch, reserved address), bootstrap, kubeconfig,
# client configuration and the sensitive outputs.

mock_provider "libvirt" {}
mock_provider "talos" {
  mock_resource "talos_image_factory_schematic" {
    defaults = {
      id = "376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba"
    }
  }
  mock_data "talos_image_factory_urls" {
    defaults = {
      # OpenTofu wants every attribute of a mocked nested object.
      urls = {
        installer             = "factory.talos.dev/installer/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba:v1.9.5"
        installer_secureboot  = "factory.talos.dev/installer-secureboot/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba:v1.9.5"
        disk_image            = "https://factory.talos.dev/image/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba/v1.9.5/nocloud-amd64.raw.xz"
        disk_image_secureboot = "https://factory.talos.dev/image/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba/v1.9.5/nocloud-amd64-secureboot.raw.xz"
        iso                   = "https://factory.talos.dev/image/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba/v1.9.5/nocloud-amd64.iso"
        iso_secureboot        = "https://factory.talos.dev/image/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba/v1.9.5/nocloud-amd64-secureboot.iso"
        kernel                = "https://factory.talos.dev/image/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba/v1.9.5/kernel-amd64"
        kernel_command_line   = "https://factory.talos.dev/image/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba/v1.9.5/cmdline-nocloud-amd64"
        initramfs             = "https://factory.talos.dev/image/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba/v1.9.5/initramfs-amd64.xz"
        uki                   = "https://factory.talos.dev/image/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba/v1.9.5/nocloud-amd64-uki.efi"
        pxe                   = "https://pxe.factory.talos.dev/pxe/376567988ad370138ad8b2698212367b8edcb69b5fd68c80be1f2ec7d603b4ba/v1.9.5/nocloud-amd64"
      }
    }
  }
  mock_resource "talos_cluster_kubeconfig" {
    defaults = {
      kubeconfig_raw = "apiVersion: v1\nkind: Config\nclusters: []\n"
    }
  }
  mock_data "talos_client_configuration" {
    defaults = {
      talos_config = "context: lab\ncontexts: {}\n"
    }
  }
}

variables {
  cluster_name       = "lab"
  talos_image        = "file:///var/tmp/talos/nocloud-amd64.raw"
  controlplane_count = 3
  worker_count       = 2
  vip                = "10.17.0.5"
  talos_version      = "v1.9.5"
  kubernetes_version = "1.32.0"
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

run "one_machine_configuration_per_role" {
  command = plan

  assert {
    condition     = join(",", sort(keys(data.talos_machine_configuration.role))) == "controlplane,worker"
    error_message = "there must be one configuration per role"
  }
  assert {
    condition     = data.talos_machine_configuration.role["controlplane"].machine_type == "controlplane" && data.talos_machine_configuration.role["worker"].machine_type == "worker"
    error_message = "machine_type must be the role"
  }
  assert {
    condition     = data.talos_machine_configuration.role["worker"].cluster_name == "lab"
    error_message = "cluster_name must reach the configuration"
  }
}

run "no_worker_configuration_without_workers" {
  command = plan

  variables {
    worker_count = 0
  }

  assert {
    condition     = join(",", keys(data.talos_machine_configuration.role)) == "controlplane"
    error_message = "no worker configuration when worker_count = 0"
  }
  assert {
    condition     = length(talos_machine_configuration_apply.node) == 3
    error_message = "only the 3 control planes get a configuration"
  }
}

run "versions_reach_configuration" {
  command = plan

  assert {
    condition     = data.talos_machine_configuration.role["controlplane"].talos_version == "v1.9.5" && data.talos_machine_configuration.role["controlplane"].kubernetes_version == "1.32.0"
    error_message = "talos_version/kubernetes_version must reach the configuration"
  }
}

run "endpoint_is_vip" {
  command = plan

  assert {
    condition     = data.talos_machine_configuration.role["worker"].cluster_endpoint == "https://10.17.0.5:6443"
    error_message = "with a VIP the cluster endpoint is the VIP"
  }
  assert {
    condition     = output.endpoint == "https://10.17.0.5:6443"
    error_message = "endpoint output must be the VIP endpoint"
  }
}

run "endpoint_without_vip_is_first_controlplane" {
  command = plan

  variables {
    vip = null
  }

  assert {
    condition     = output.endpoint == "https://10.17.0.10:6443" && data.talos_machine_configuration.role["controlplane"].cluster_endpoint == "https://10.17.0.10:6443"
    error_message = "without a VIP the endpoint is the first control plane"
  }
}

run "install_disk_patch_on_both_roles" {
  variables {
    install_disk = "/dev/sda"
  }

  assert {
    condition     = yamldecode(data.talos_machine_configuration.role["controlplane"].config_patches[0]).machine.install.disk == "/dev/sda"
    error_message = "control planes must install to install_disk"
  }
  assert {
    condition     = yamldecode(data.talos_machine_configuration.role["worker"].config_patches[0]).machine.install.disk == "/dev/sda"
    error_message = "workers must install to install_disk"
  }
}

run "vip_patch_only_on_controlplanes" {
  command = plan

  assert {
    condition     = yamldecode(data.talos_machine_configuration.role["controlplane"].config_patches[1]).machine.network.interfaces[0].vip.ip == "10.17.0.5"
    error_message = "control planes must carry the VIP patch"
  }
  assert {
    condition     = length(data.talos_machine_configuration.role["worker"].config_patches) == 1
    error_message = "workers must not carry the VIP patch"
  }
}

run "no_vip_patch_without_vip" {
  command = plan

  variables {
    vip = null
  }

  assert {
    condition     = length(data.talos_machine_configuration.role["controlplane"].config_patches) == 1
    error_message = "no VIP patch without a VIP"
  }
}

run "extra_patches_per_role" {
  command = plan

  variables {
    controlplane_config_patches = ["cluster:\n  allowSchedulingOnControlPlanes: true\n"]
    worker_config_patches       = ["machine:\n  kubelet:\n    extraArgs:\n      max-pods: \"50\"\n"]
  }

  assert {
    condition     = yamldecode(data.talos_machine_configuration.role["controlplane"].config_patches[2]).cluster.allowSchedulingOnControlPlanes == true
    error_message = "controlplane_config_patches must follow the module's patches"
  }
  assert {
    condition     = yamldecode(data.talos_machine_configuration.role["worker"].config_patches[1]).machine.kubelet.extraArgs["max-pods"] == "50"
    error_message = "worker_config_patches must follow the module's patches"
  }
  assert {
    condition     = length(data.talos_machine_configuration.role["worker"].config_patches) == 2
    error_message = "control-plane patches must not reach workers"
  }
}

run "apply_per_node" {
  command = plan

  assert {
    condition     = length(talos_machine_configuration_apply.node) == 5
    error_message = "every node needs a configuration apply"
  }
  assert {
    condition     = talos_machine_configuration_apply.node["lab-cp-2"].node == "10.17.0.11" && talos_machine_configuration_apply.node["lab-cp-2"].endpoint == "10.17.0.11"
    error_message = "apply must talk to the node's reserved address"
  }
}

run "apply_address_is_reservation_of_domain_mac" {
  command = plan

  assert {
    condition = alltrue([
      for name, a in talos_machine_configuration_apply.node : one([
        for h in libvirt_network.this[0].ips[0].dhcp.hosts : h.ip if h.mac == libvirt_domain.node[name].devices.interfaces[0].mac.address
      ]) == a.node
    ])
    error_message = "each apply must target the IP reserved for its domain's MAC"
  }
}

run "hostname_patch_per_node" {
  command = plan

  assert {
    condition     = alltrue([for name, a in talos_machine_configuration_apply.node : yamldecode(a.config_patches[0]).machine.network.hostname == name])
    error_message = "each node's apply must set its own hostname"
  }
  assert {
    condition     = length(distinct([for a in talos_machine_configuration_apply.node : a.config_patches[0]])) == 5
    error_message = "hostname patches must differ per node"
  }
}

run "apply_uses_role_configuration_and_secrets" {
  assert {
    condition     = alltrue([for name, a in talos_machine_configuration_apply.node : a.machine_configuration_input == data.talos_machine_configuration.role[startswith(name, "lab-cp-") ? "controlplane" : "worker"].machine_configuration])
    error_message = "each node must get its role's machine configuration"
  }
  assert {
    condition     = talos_machine_configuration_apply.node["lab-worker-1"].client_configuration.client_certificate == "bW9jay1hZG1pbi1jZXJ0"
    error_message = "apply must authenticate with the cluster's client configuration"
  }
  assert {
    condition     = data.talos_machine_configuration.role["worker"].machine_secrets.cluster.id == "mock-cluster-id"
    error_message = "configurations must be generated from the given machine_secrets"
  }
}

run "bootstrap_first_controlplane" {
  command = plan

  assert {
    condition     = talos_machine_bootstrap.this.node == "10.17.0.10" && talos_machine_bootstrap.this.endpoint == "10.17.0.10"
    error_message = "bootstrap must run once, on the first control plane"
  }
}

run "kubeconfig_from_first_controlplane" {
  command = plan

  assert {
    condition     = talos_cluster_kubeconfig.this.node == "10.17.0.10"
    error_message = "kubeconfig must be fetched from the bootstrapped node"
  }
}

run "client_configuration_endpoints_and_nodes" {
  command = plan

  assert {
    condition     = join(",", data.talos_client_configuration.this.endpoints) == "10.17.0.10,10.17.0.11,10.17.0.12"
    error_message = "talosconfig endpoints must be the control planes"
  }
  assert {
    condition     = join(",", data.talos_client_configuration.this.nodes) == "10.17.0.10,10.17.0.11,10.17.0.12,10.17.0.20,10.17.0.21"
    error_message = "talosconfig nodes must be all nodes"
  }
  assert {
    condition     = data.talos_client_configuration.this.cluster_name == "lab"
    error_message = "talosconfig context must be the cluster"
  }
}

run "sensitive_outputs" {
  assert {
    condition     = nonsensitive(output.kubeconfig) == "apiVersion: v1\nkind: Config\nclusters: []\n"
    error_message = "kubeconfig output must be the kubeconfig resource's kubeconfig_raw"
  }
  assert {
    condition     = nonsensitive(output.talosconfig) == "context: lab\ncontexts: {}\n"
    error_message = "talosconfig output must be the client configuration's talos_config"
  }
  assert {
    condition     = issensitive(output.kubeconfig) && issensitive(output.talosconfig)
    error_message = "kubeconfig and talosconfig must be sensitive"
  }
}
