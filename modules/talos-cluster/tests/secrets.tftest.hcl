# Machine secrets: made by the module (protected by prevent_destroy), or
# given by the caller. Plan only: an applied talos_machine_secrets could not
# be destroyed by the test's cleanup (see README, "Machine secrets and
# destroy").

mock_provider "libvirt" {}
mock_provider "talos" {}

variables {
  cluster_name  = "lab"
  talos_image   = "/var/tmp/talos/nocloud-amd64.raw"
  talos_version = "v1.9.5"
}

run "module_makes_secrets_for_talos_version" {
  command = plan

  assert {
    condition     = length(talos_machine_secrets.this) == 1 && talos_machine_secrets.this[0].talos_version == "v1.9.5"
    error_message = "without machine_secrets the module must make them, for talos_version"
  }
}

run "given_secrets_are_used_and_none_made" {
  command = plan

  variables {
    machine_secrets = {
      machine_secrets = {
        certs = {
          etcd               = { cert = "ZQ==", key = "ZQ==" }
          k8s                = { cert = "aw==", key = "aw==" }
          k8s_aggregator     = { cert = "YQ==", key = "YQ==" }
          k8s_serviceaccount = { key = "cw==" }
          os                 = { cert = "bw==", key = "bw==" }
        }
        cluster    = { id = "given-cluster-id", secret = "given-secret" }
        secrets    = { bootstrap_token = "abcdef.0123456789abcdef", secretbox_encryption_secret = "Yg==" }
        trustdinfo = { token = "given.token" }
      }
      client_configuration = { ca_certificate = "bw==", client_certificate = "Yw==", client_key = "aw==" }
    }
  }

  assert {
    condition     = length(talos_machine_secrets.this) == 0
    error_message = "given machine_secrets: the module must not make its own"
  }
  assert {
    condition     = nonsensitive(data.talos_machine_configuration.role["controlplane"].machine_secrets.cluster.id) == "given-cluster-id"
    error_message = "the machine configuration must be generated from the given secrets"
  }
  assert {
    condition     = nonsensitive(talos_machine_bootstrap.this.client_configuration.client_certificate) == "Yw=="
    error_message = "bootstrap must authenticate with the given client configuration"
  }
}
