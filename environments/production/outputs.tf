output "nodes" {
  description = "Every node: name => { role, ip, mac, wwn, host }; the MAC => IP pairs are the reservations the bridge's DHCP server needs."
  value       = module.cluster.nodes
}

output "nodes_by_host" {
  description = "host => its nodes."
  value       = module.cluster.nodes_by_host
}

output "endpoint" {
  description = "Kubernetes API endpoint."
  value       = module.cluster.endpoint
}

output "kubeconfig" {
  description = "Admin kubeconfig."
  value       = module.cluster.kubeconfig
  sensitive   = true
}

output "talosconfig" {
  description = "talosctl configuration."
  value       = module.cluster.talosconfig
  sensitive   = true
}
