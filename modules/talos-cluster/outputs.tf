output "kubeconfig" {
  description = "kubeconfig of the cluster's admin."
  value       = talos_cluster_kubeconfig.this.kubeconfig_raw
  sensitive   = true
}

output "talosconfig" {
  description = "talosconfig (talosctl client configuration) for the cluster."
  value       = data.talos_client_configuration.this.talos_config
  sensitive   = true
}

output "endpoint" {
  description = "Kubernetes API endpoint (the VIP when set, else the first control plane)."
  value       = local.cluster_endpoint
}

output "controlplane_ips" {
  description = "Addresses of the control-plane nodes, in node order."
  value       = local.controlplane_ips
}

output "worker_ips" {
  description = "Addresses of the workers, in node order."
  value       = local.worker_ips
}

output "nodes" {
  description = "Every node: name => { role, ip, mac }."
  value       = { for name, n in local.nodes : name => { role = n.role, ip = n.ip, mac = n.mac } }
}

output "network_name" {
  description = "Name of the cluster's libvirt network."
  value       = libvirt_network.this.name
}
