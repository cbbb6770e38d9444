output "endpoint" {
  description = "Kubernetes API endpoint."
  value       = module.cluster.endpoint
}

output "nodes" {
  description = "Nodes: name => role, ip, mac."
  value       = module.cluster.nodes
}

output "kubeconfig" {
  description = "Admin kubeconfig (tofu output -raw kubeconfig > kubeconfig)."
  value       = module.cluster.kubeconfig
  sensitive   = true
}

output "talosconfig" {
  description = "talosctl configuration (tofu output -raw talosconfig > talosconfig)."
  value       = module.cluster.talosconfig
  sensitive   = true
}

output "talos_image_urls" {
  description = "Image Factory URLs of the cluster's schematic (qemu-guest-agent): disk_image is what talos_image should be (decompressed)."
  value       = module.cluster.talos_image_urls
}
