# Image Factory and the end of the chain: the schematic with the
# qemu-guest-agent extension, its installer in machine.install.image, the
# health wait and the kubeconfig / client configuration outputs.
# Applies, so the secrets come from outside (see secrets.tftest.hcl).

mock_provider "libvirt" {}
mock_provider "talos" {
  mock_data "talos_image_factory_urls" {
    defaults = {
      # OpenTofu wants every attribute of a mocked nested object.
      urls = {
        installer             = "factory.talos.dev/installer/mock-schematic:v1.9.5"
        installer_secureboot  = "factory.talos.dev/installer-secureboot/mock-schematic:v1.9.5"
        disk_image            = "https://factory.talos.dev/image/mock-schematic/v1.9.5/nocloud-amd64.raw.xz"
        disk_image_secureboot = "https://factory.talos.dev/image/mock-schematic/v1.9.5/nocloud-amd64-secureboot.raw.xz"
        iso                   = "https://factory.talos.dev/image/mock-schematic/v1.9.5/nocloud-amd64.iso"
        iso_secureboot        = "https://factory.talos.dev/image/mock-schematic/v1.9.5/nocloud-amd64-secureboot.iso"
        kernel                = "https://factory.talos.dev/image/mock-schematic/v1.9.5/kernel-amd64"
        kernel_command_line   = "https://factory.talos.dev/image/mock-schematic/v1.9.5/cmdline-nocloud-amd64"
        initramfs             = "https://factory.talos.dev/image/mock-schematic/v1.9.5/initramfs-amd64.xz"
        uki                   = "https://factory.talos.dev/image/mock-schematic/v1.9.5/nocloud-amd64-uki.efi"
        pxe                   = "https://pxe.factory.talos.dev/pxe/mock-schematic/v1.9.5/nocloud-amd64"
      }
    }
  }
  mock_resource "talos_cluster_kubeconfig" {
    defaults = {
      kubeconfig_raw = "apiVersion: v1\nkind: Config\n"
      kubernetes_client_configuration = {
        host               = "https://10.17.0.10:6443"
        ca_certificate     = "bW9jay1rOHMtY2E="
        client_certificate = "bW9jay1hZG1pbg=="
        client_key         = "bW9jay1rZXk="
      }
    }
  }
}

variables {
  cluster_name       = "lab"
  talos_image        = "/var/tmp/talos/nocloud-amd64.raw"
  talos_version      = "v1.9.5"
  controlplane_count = 3
  worker_count       = 2
  machine_secrets = {
    machine_secrets = {
      certs = {
        etcd               = { cert = "ZQ==", key = "ZQ==" }
        k8s                = { cert = "aw==", key = "aw==" }
        k8s_aggregator     = { cert = "YQ==", key = "YQ==" }
        k8s_serviceaccount = { key = "cw==" }
        os                 = { cert = "bw==", key = "bw==" }
      }
      cluster    = { id = "factory-test", secret = "c2VjcmV0" }
      secrets    = { bootstrap_token = "abcdef.0123456789abcdef", secretbox_encryption_secret = "Yg==" }
      trustdinfo = { token = "t.t" }
    }
    client_configuration = { ca_certificate = "bw==", client_certificate = "Yw==", client_key = "aw==" }
  }
}

run "schematic_has_the_guest_agent_extension" {
  command = plan

  variables {
    talos_extensions = ["siderolabs/iscsi-tools", "siderolabs/qemu-guest-agent"]
  }

  assert {
    condition     = yamldecode(talos_image_factory_schematic.this[0].schematic).customization.systemExtensions.officialExtensions == ["siderolabs/qemu-guest-agent", "siderolabs/iscsi-tools"]
    error_message = "the schematic must list qemu-guest-agent first, then talos_extensions, each once"
  }
}

run "installer_of_the_schematic_in_install_image" {
  assert {
    condition     = data.talos_image_factory_urls.this[0].schematic_id == talos_image_factory_schematic.this[0].id
    error_message = "the URLs must be those of the module's schematic"
  }
  assert {
    condition     = data.talos_image_factory_urls.this[0].talos_version == "v1.9.5" && data.talos_image_factory_urls.this[0].platform == "nocloud" && data.talos_image_factory_urls.this[0].architecture == "amd64"
    error_message = "the URLs must be for talos_version, nocloud, amd64"
  }
  assert {
    condition = alltrue([for role in ["controlplane", "worker"] :
      yamldecode(data.talos_machine_configuration.role[role].config_patches[0]).machine.install.image == "factory.talos.dev/installer/mock-schematic:v1.9.5"
    ])
    error_message = "both roles must install (and upgrade) from the schematic's installer"
  }
  assert {
    condition = alltrue([for role in ["controlplane", "worker"] :
      yamldecode(data.talos_machine_configuration.role[role].config_patches[0]).machine.install.disk == "/dev/sda"
    ])
    error_message = "the default install disk is the scsi node disk, /dev/sda"
  }
  assert {
    condition     = output.installer_image == "factory.talos.dev/installer/mock-schematic:v1.9.5" && output.image_factory_schematic_id == talos_image_factory_schematic.this[0].id
    error_message = "installer_image and image_factory_schematic_id outputs"
  }
  assert {
    condition     = output.talos_image_urls.disk_image == "https://factory.talos.dev/image/mock-schematic/v1.9.5/nocloud-amd64.raw.xz"
    error_message = "talos_image_urls must expose the schematic's disk image"
  }
}

run "without_factory_an_explicit_installer" {
  command = plan

  variables {
    image_factory   = false
    installer_image = "ghcr.io/siderolabs/installer:v1.9.5"
  }

  assert {
    condition     = length(talos_image_factory_schematic.this) == 0 && length(data.talos_image_factory_urls.this) == 0
    error_message = "image_factory = false: no schematic, no factory lookup"
  }
  assert {
    condition     = yamldecode(data.talos_machine_configuration.role["controlplane"].config_patches[0]).machine.install.image == "ghcr.io/siderolabs/installer:v1.9.5"
    error_message = "installer_image must reach machine.install.image"
  }
}

run "without_factory_or_installer_no_install_image" {
  command = plan

  variables {
    image_factory = false
  }

  assert {
    condition     = !can(yamldecode(data.talos_machine_configuration.role["worker"].config_patches[0]).machine.install.image)
    error_message = "no install.image unless one is known"
  }
}

run "reject_factory_without_talos_version" {
  command = plan
  variables { talos_version = null }
  expect_failures = [var.image_factory]
}

run "reject_installer_image_with_factory" {
  command = plan
  variables { installer_image = "ghcr.io/siderolabs/installer:v1.9.5" }
  expect_failures = [var.image_factory]
}

run "reject_bad_extension_name" {
  command = plan
  variables { talos_extensions = ["qemu guest agent"] }
  expect_failures = [var.talos_extensions]
}

run "health_wait_after_bootstrap" {
  variables {
    health_timeout = "15m"
  }

  assert {
    condition     = length(data.talos_cluster_health.this) == 1
    error_message = "the module must wait for cluster health by default"
  }
  assert {
    condition     = join(",", data.talos_cluster_health.this[0].control_plane_nodes) == "10.17.0.10,10.17.0.11,10.17.0.12" && join(",", data.talos_cluster_health.this[0].worker_nodes) == "10.17.0.20,10.17.0.21"
    error_message = "the health wait must cover every control plane and worker"
  }
  assert {
    condition     = join(",", data.talos_cluster_health.this[0].endpoints) == "10.17.0.10,10.17.0.11,10.17.0.12"
    error_message = "the health wait must talk to the control planes"
  }
  assert {
    condition     = data.talos_cluster_health.this[0].timeouts.read == "15m"
    error_message = "health_timeout must reach the wait"
  }
  assert {
    condition     = nonsensitive(data.talos_cluster_health.this[0].client_configuration.client_certificate) == "Yw=="
    error_message = "the health wait must authenticate with the cluster's client configuration"
  }
}

run "no_health_wait_when_off" {
  command = plan

  variables {
    wait_for_health = false
  }

  assert {
    condition     = length(data.talos_cluster_health.this) == 0
    error_message = "wait_for_health = false: no health wait"
  }
}

run "reject_bad_health_timeout" {
  command = plan
  variables { health_timeout = "ten minutes" }
  expect_failures = [var.health_timeout]
}

run "kubeconfig_and_client_configuration_outputs" {
  assert {
    condition     = nonsensitive(output.kubeconfig) == "apiVersion: v1\nkind: Config\n"
    error_message = "kubeconfig must be the kubeconfig resource's kubeconfig_raw"
  }
  assert {
    condition     = nonsensitive(output.kubernetes_client_configuration.host) == "https://10.17.0.10:6443" && nonsensitive(output.kubernetes_client_configuration.client_key) == "bW9jay1rZXk="
    error_message = "kubernetes_client_configuration must be the kubeconfig resource's"
  }
  assert {
    condition     = issensitive(output.kubeconfig) && issensitive(output.kubernetes_client_configuration)
    error_message = "kubeconfig and kubernetes_client_configuration must be sensitive"
  }
}
