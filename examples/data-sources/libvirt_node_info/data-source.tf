# The host's CPU topology and memory, for sizing guests.
data "libvirt_node_info" "host" {}

locals {
  # Leave two logical CPUs and 2 GiB to the host.
  guest_vcpus      = max(1, data.libvirt_node_info.host.cpu_cores_total - 2)
  guest_memory_mib = floor(data.libvirt_node_info.host.memory_total_kb / 1024) - 2048
}

output "host" {
  value = {
    arch      = data.libvirt_node_info.host.cpu_model      # x86_64
    cpu       = data.libvirt_node_info.host.cpu_model_name # e.g. EPYC-Rome
    sockets   = data.libvirt_node_info.host.cpu_sockets
    cores     = data.libvirt_node_info.host.cpu_cores_per_socket
    threads   = data.libvirt_node_info.host.cpu_threads_per_core
    numa      = data.libvirt_node_info.host.numa_nodes
    vcpus     = local.guest_vcpus
    memory_mb = local.guest_memory_mib
  }
}
