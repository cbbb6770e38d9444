module "cluster" {
  source = "../../modules/talos-cluster"

  cluster_name       = "talos-lab"
  pool               = var.pool
  domain_type        = var.domain_type
  talos_image        = var.talos_image
  talos_version      = var.talos_version
  network_cidr       = "10.78.0.0/24"
  controlplane_count = 1
  worker_count       = 2
  vip                = "10.78.0.5"
}
