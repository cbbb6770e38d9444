output "kubeconfig" {
  description = "kubeconfig of the cluster's admin (after the health wait when wait_for_health is on)."
  value       = talos_cluster_kubeconfig.this.kubeconfig_raw
  sensitive   = true
  depends_on  = [data.talos_cluster_health.this]
}

output "kubernetes_client_configuration" {
  description = "The admin's Kubernetes client configuration as values (host, ca_certificate, client_certificate, client_key), e.g. for the kubernetes and helm providers."
  value       = talos_cluster_kubeconfig.this.kubernetes_client_configuration
  sensitive   = true
  depends_on  = [data.talos_cluster_health.this]
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
  description = "Every node: name => { role, ip, mac, wwn, host } (wwn: of the node's disk when disk_bus is scsi, else null; host: the libvirt host it is placed on, null without hosts). With bridge, mac => ip are the reservations the LAN's DHCP server needs."
  value       = { for name, n in local.nodes : name => { role = n.role, ip = n.ip, mac = n.mac, wwn = var.disk_bus == "scsi" ? n.wwn : null, host = n.libvirt_host } }
}

output "network_name" {
  description = "Name of the cluster's libvirt network; null with bridge (no network is created)."
  value       = one(libvirt_network.this[*].name)
}

output "image_factory_schematic_id" {
  description = "ID of the Image Factory schematic (qemu-guest-agent and talos_extensions); null without image_factory."
  value       = var.image_factory ? talos_image_factory_schematic.this[0].id : null
}

output "talos_image_urls" {
  description = "Image Factory URLs of the schematic for talos_version (nocloud, amd64): disk_image is the image to boot (talos_image; decompress the .raw.xz), installer the machine.install.image. null without image_factory."
  value       = var.image_factory ? data.talos_image_factory_urls.this[0].urls : null
}

output "installer_image" {
  description = "The machine.install.image the nodes are configured with (null: Talos' default)."
  value       = local.installer_image
}

output "nodes_by_host" {
  description = "host => the nodes placed on it, sorted (without hosts: one entry \"\" for the provider's own uri)."
  value       = { for h in local.used_hosts : (h == null ? "" : h) => sort([for name, n in local.nodes : name if n.libvirt_host == h]) }
}
