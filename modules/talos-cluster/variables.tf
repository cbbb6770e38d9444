variable "cluster_name" {
  description = "Cluster name: names the libvirt network, the volumes and domains (<cluster_name>-cp-N, <cluster_name>-worker-N) and the Talos/Kubernetes cluster."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$", var.cluster_name))
    error_message = "cluster_name must be 1-32 characters of lowercase letters, digits and '-', starting and ending with a letter or digit."
  }
}

variable "pool" {
  description = "Storage pool for the Talos image and the node disks."
  type        = string
  default     = "default"
  nullable    = false
}

variable "talos_image" {
  description = "Talos nocloud/metal disk image to boot from: an http(s):// or file:// URL or an absolute local path (uploaded once into the pool and shared by all nodes as a backing image)."
  type        = string

  validation {
    condition     = can(regex("^(https?://|file://|/)", var.talos_image))
    error_message = "talos_image must be an http(s):// or file:// URL or an absolute path."
  }
}

variable "talos_image_format" {
  description = "Format of talos_image: qcow2 or raw."
  type        = string
  default     = "raw"
  nullable    = false

  validation {
    condition     = contains(["qcow2", "raw"], var.talos_image_format)
    error_message = "talos_image_format must be \"qcow2\" or \"raw\"."
  }
}

variable "network_cidr" {
  description = "IPv4 subnet of the cluster's NAT network; the host (gateway) takes the first address."
  type        = string
  default     = "10.17.0.0/24"
  nullable    = false

  validation {
    condition     = can(cidrhost(var.network_cidr, 0)) && !strcontains(var.network_cidr, ":") && try(tonumber(split("/", var.network_cidr)[1]) <= 26 && tonumber(split("/", var.network_cidr)[1]) >= 8, false)
    error_message = "network_cidr must be an IPv4 CIDR between /8 and /26, for example 10.17.0.0/24."
  }
}

variable "dns_domain" {
  description = "DNS domain of the network; null uses <cluster_name>.local."
  type        = string
  default     = null

  validation {
    condition     = var.dns_domain == null || can(regex("^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$", coalesce(var.dns_domain, "x")))
    error_message = "dns_domain must be a DNS name such as lab.local."
  }
}

variable "controlplane_ip_offset" {
  description = "Host number in network_cidr of the first control-plane node (the others follow)."
  type        = number
  default     = 10
  nullable    = false
}

variable "worker_ip_offset" {
  description = "Host number in network_cidr of the first worker (the others follow)."
  type        = number
  default     = 20
  nullable    = false
}

variable "controlplane_count" {
  description = "Number of control-plane nodes: 1, 3 or 5 (an odd number keeps etcd quorum)."
  type        = number
  default     = 1
  nullable    = false

  validation {
    condition     = contains([1, 3, 5], var.controlplane_count)
    error_message = "controlplane_count must be 1, 3 or 5."
  }
}

variable "worker_count" {
  description = "Number of worker nodes (0-20)."
  type        = number
  default     = 1
  nullable    = false

  validation {
    condition     = var.worker_count >= 0 && var.worker_count <= 20 && floor(var.worker_count) == var.worker_count
    error_message = "worker_count must be a whole number between 0 and 20."
  }
}

variable "controlplane" {
  description = "Size of each control-plane node: memory in MiB (at least 2048 for Talos), vCPUs (at least 2) and disk in GiB (at least 10)."
  type = object({
    memory_mib = optional(number, 4096)
    vcpus      = optional(number, 2)
    disk_gib   = optional(number, 20)
  })
  default  = {}
  nullable = false

  validation {
    condition     = var.controlplane.memory_mib >= 2048 && var.controlplane.memory_mib <= 262144 && floor(var.controlplane.memory_mib) == var.controlplane.memory_mib
    error_message = "controlplane.memory_mib must be a whole number of MiB between 2048 and 262144."
  }

  validation {
    condition     = var.controlplane.vcpus >= 2 && var.controlplane.vcpus <= 64 && floor(var.controlplane.vcpus) == var.controlplane.vcpus
    error_message = "controlplane.vcpus must be a whole number between 2 and 64."
  }

  validation {
    condition     = var.controlplane.disk_gib >= 10 && var.controlplane.disk_gib <= 4096 && floor(var.controlplane.disk_gib) == var.controlplane.disk_gib
    error_message = "controlplane.disk_gib must be a whole number of GiB between 10 and 4096."
  }
}

variable "worker" {
  description = "Size of each worker: memory in MiB (at least 1024), vCPUs (at least 1) and disk in GiB (at least 10)."
  type = object({
    memory_mib = optional(number, 2048)
    vcpus      = optional(number, 2)
    disk_gib   = optional(number, 20)
  })
  default  = {}
  nullable = false

  validation {
    condition     = var.worker.memory_mib >= 1024 && var.worker.memory_mib <= 262144 && floor(var.worker.memory_mib) == var.worker.memory_mib
    error_message = "worker.memory_mib must be a whole number of MiB between 1024 and 262144."
  }

  validation {
    condition     = var.worker.vcpus >= 1 && var.worker.vcpus <= 64 && floor(var.worker.vcpus) == var.worker.vcpus
    error_message = "worker.vcpus must be a whole number between 1 and 64."
  }

  validation {
    condition     = var.worker.disk_gib >= 10 && var.worker.disk_gib <= 4096 && floor(var.worker.disk_gib) == var.worker.disk_gib
    error_message = "worker.disk_gib must be a whole number of GiB between 10 and 4096."
  }
}

variable "domain_type" {
  description = "libvirt domain type of the nodes: \"kvm\" or \"qemu\" (TCG)."
  type        = string
  default     = "kvm"
  nullable    = false

  validation {
    condition     = contains(["kvm", "qemu"], var.domain_type)
    error_message = "domain_type must be \"kvm\" or \"qemu\"."
  }
}

variable "autostart" {
  description = "Start the network and the nodes when libvirtd starts."
  type        = bool
  default     = true
  nullable    = false
}

variable "talos_version" {
  description = "Talos version the machine configuration is generated for (e.g. \"v1.9.5\"); null uses the provider's default."
  type        = string
  default     = null

  validation {
    condition     = var.talos_version == null || can(regex("^v[0-9]+\\.[0-9]+(\\.[0-9]+)?$", coalesce(var.talos_version, "-")))
    error_message = "talos_version must look like v1.9 or v1.9.5."
  }
}

variable "kubernetes_version" {
  description = "Kubernetes version (e.g. \"1.32.0\"); null uses Talos' default."
  type        = string
  default     = null

  validation {
    condition     = var.kubernetes_version == null || can(regex("^v?[0-9]+\\.[0-9]+\\.[0-9]+$", coalesce(var.kubernetes_version, "-")))
    error_message = "kubernetes_version must look like 1.32.0."
  }
}

variable "install_disk" {
  description = "Disk Talos installs itself to inside the node; null (default): the node's root disk, /dev/sda on scsi, /dev/vda on virtio."
  type        = string
  default     = null

  validation {
    condition     = var.install_disk == null || startswith(coalesce(var.install_disk, "/dev/"), "/dev/")
    error_message = "install_disk must be a device path under /dev/, for example /dev/sda."
  }
}

variable "disk_bus" {
  description = "Bus of the node disks: \"scsi\" (default; virtio-scsi, each disk with a stable WWN derived from cluster_name and the node's host number, /dev/disk/by-id/wwn-0x...) or \"virtio\" (vda, no WWN: libvirt refuses one on virtio)."
  type        = string
  default     = "scsi"
  nullable    = false

  validation {
    condition     = contains(["scsi", "virtio"], var.disk_bus)
    error_message = "disk_bus must be \"scsi\" or \"virtio\"."
  }
}

variable "machine" {
  description = "QEMU machine type of the nodes (default \"q35\", PCIe, what Talos documents for QEMU); \"pc\" for the older i440FX."
  type        = string
  default     = "q35"
  nullable    = false

  validation {
    condition     = can(regex("^(q35|pc)(-[a-z0-9.-]+)?$", var.machine))
    error_message = "machine must be q35 or pc, optionally versioned (pc-q35-7.2, pc-i440fx-7.2)."
  }
}

variable "firmware" {
  description = "\"bios\" (default) or \"efi\" (UEFI: libvirt picks OVMF from the host's firmware descriptors, e.g. Debian's ovmf package; needs machine q35)."
  type        = string
  default     = "bios"
  nullable    = false

  validation {
    condition     = contains(["bios", "efi"], var.firmware)
    error_message = "firmware must be \"bios\" or \"efi\"."
  }

  validation {
    condition     = var.firmware != "efi" || startswith(var.machine, "q35") || startswith(var.machine, "pc-q35")
    error_message = "firmware = \"efi\" needs a q35 machine (the OVMF builds with secure boot and SMM are q35-only)."
  }
}

variable "cpu_model" {
  description = "Named QEMU CPU model for the nodes (e.g. \"Nehalem\", \"EPYC\"), sent with mode custom. null (default): host-passthrough when domain_type is kvm, mode maximum (QEMU's -cpu max) under qemu/TCG. Talos needs x86-64-v2, so models below it (qemu64, kvm64, core2duo, Penryn, ...) are refused."
  type        = string
  default     = null

  validation {
    condition = var.cpu_model == null || !contains([
      "qemu64", "qemu32", "kvm64", "kvm32", "486", "pentium", "pentium2", "pentium3", "coreduo", "core2duo",
      "n270", "athlon", "phenom", "conroe", "penryn", "opteron_g1", "opteron_g2", "opteron_g3",
    ], lower(coalesce(var.cpu_model, "-")))
    error_message = "cpu_model is below x86-64-v2 (no SSE4.2/POPCNT), which Talos requires: use Nehalem or newer, or leave it null."
  }

  validation {
    condition     = var.cpu_model == null || can(regex("^[A-Za-z0-9][A-Za-z0-9._-]*$", coalesce(var.cpu_model, "-")))
    error_message = "cpu_model must be a QEMU CPU model name such as Nehalem or EPYC."
  }
}

variable "image_factory" {
  description = "Create an Image Factory schematic (talos_image_factory_schematic) with the siderolabs/qemu-guest-agent extension and talos_extensions, and put its installer into machine.install.image, so installs and upgrades keep the extensions. Needs talos_version and access to factory.talos.dev from the machine running tofu. false: no schematic; installer_image (if set) is used instead."
  type        = bool
  default     = true
  nullable    = false

  validation {
    condition     = !var.image_factory || var.talos_version != null
    error_message = "image_factory needs talos_version (the installer image is per version), for example talos_version = \"v1.9.5\"."
  }

  validation {
    condition     = !var.image_factory || var.installer_image == null
    error_message = "installer_image is only used with image_factory = false (the factory provides the installer)."
  }
}

variable "talos_extensions" {
  description = "Official Talos system extensions added to the schematic besides siderolabs/qemu-guest-agent (e.g. \"siderolabs/iscsi-tools\")."
  type        = list(string)
  default     = []
  nullable    = false

  validation {
    condition     = alltrue([for e in var.talos_extensions : can(regex("^[a-z0-9-]+/[a-z0-9._-]+$", e))])
    error_message = "Each extension must be named as in the Image Factory, for example siderolabs/iscsi-tools."
  }
}

variable "installer_image" {
  description = "Talos installer image for machine.install.image when image_factory = false (e.g. factory.talos.dev/installer/<schematic>:v1.9.5); null leaves Talos' default installer (no extensions after an upgrade)."
  type        = string
  default     = null
}

variable "wait_for_health" {
  description = "Wait (data.talos_cluster_health) until etcd, the Kubernetes API and every node are healthy before the kubeconfig outputs are produced."
  type        = bool
  default     = true
  nullable    = false
}

variable "health_timeout" {
  description = "How long the health wait may take (e.g. \"10m\")."
  type        = string
  default     = "10m"
  nullable    = false

  validation {
    condition     = can(regex("^([0-9]+h)?([0-9]+m)?([0-9]+s)?$", var.health_timeout)) && var.health_timeout != ""
    error_message = "health_timeout must be a duration such as 10m or 1h30m."
  }
}

variable "vip" {
  description = "Optional shared virtual IP for the Kubernetes API on the control planes (Talos VIP); it must be in network_cidr and not used by a node. null uses the first control plane's address as the endpoint."
  type        = string
  default     = null

  validation {
    condition     = var.vip == null || can(regex("^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+$", coalesce(var.vip, "-")))
    error_message = "vip must be an IPv4 address."
  }
}

variable "controlplane_config_patches" {
  description = "Extra Talos config patches (YAML or JSON strings) for every control-plane node."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "worker_config_patches" {
  description = "Extra Talos config patches (YAML or JSON strings) for every worker."
  type        = list(string)
  default     = []
  nullable    = false
}

variable "machine_secrets" {
  description = "Talos machine secrets made outside the module (pass the resource: machine_secrets = talos_machine_secrets.this), so the cluster's PKI outlives the module; null (default): the module makes them itself, protected by prevent_destroy."
  type = object({
    machine_secrets = object({
      certs = object({
        etcd               = object({ cert = string, key = string })
        k8s                = object({ cert = string, key = string })
        k8s_aggregator     = object({ cert = string, key = string })
        k8s_serviceaccount = object({ key = string })
        os                 = object({ cert = string, key = string })
      })
      cluster = object({ id = string, secret = string })
      secrets = object({
        bootstrap_token             = string
        secretbox_encryption_secret = string
        aescbc_encryption_secret    = optional(string)
      })
      trustdinfo = object({ token = string })
    })
    client_configuration = object({
      ca_certificate     = string
      client_certificate = string
      client_key         = string
    })
  })
  default   = null
  sensitive = true
}

variable "kernel_boot" {
  description = "Direct kernel boot of the nodes instead of booting talos_image's bootloader: host paths of kernel and initrd and the kernel command line, e.g. the Image Factory's kernel-amd64 and initramfs-amd64.xz with its kernel_command_line (talos_image_urls). null (default): boot the disk."
  type = object({
    kernel  = string
    initrd  = optional(string)
    cmdline = optional(string)
  })
  default = null

  validation {
    condition     = var.kernel_boot == null || alltrue([for p in compact([try(var.kernel_boot.kernel, ""), try(var.kernel_boot.initrd, "")]) : startswith(p, "/")])
    error_message = "kernel_boot.kernel and kernel_boot.initrd must be absolute host paths."
  }
}

# --- Several libvirt hosts -----------------------------------------------------

variable "hosts" {
  description = "Names of the libvirt hosts (keys of the provider's hosts map) to spread the nodes over, in order. Control planes go round-robin first (cp-1 on hosts[0], cp-2 on hosts[1], ...), then the workers continue the round-robin after the last control plane; node_hosts overrides single nodes. More than one host needs bridge (the NAT network exists on one host only) and shared storage for live migration. null (default): everything on the provider's own uri, as before."
  type        = list(string)
  default     = null

  validation {
    condition     = var.hosts == null || try(length(var.hosts) >= 1, false)
    error_message = "hosts must name at least one host, or be null for the provider's own uri."
  }

  validation {
    condition     = alltrue([for h in coalesce(var.hosts, []) : can(regex("^[A-Za-z0-9][A-Za-z0-9_.-]*$", h))])
    error_message = "Each host must be a name from the provider's hosts map: letters, digits, '_', '.' and '-' (it also names that host's copy of the Talos image)."
  }

  validation {
    condition     = var.hosts == null || length(distinct(coalesce(var.hosts, []))) == length(coalesce(var.hosts, []))
    error_message = "hosts lists a host more than once."
  }

  validation {
    condition     = var.hosts == null || !var.controlplane_anti_affinity || var.controlplane_count <= length(coalesce(var.hosts, ["-"]))
    error_message = "controlplane_count is larger than the number of hosts: with controlplane_anti_affinity every control plane needs a host of its own. Add hosts, lower controlplane_count, or set controlplane_anti_affinity = false."
  }
}

variable "node_hosts" {
  description = "Pins single nodes to hosts, overriding the round-robin of hosts for them: node name (<cluster_name>-cp-N, <cluster_name>-worker-N) => a name from hosts. The other nodes keep their round-robin place. Needs hosts."
  type        = map(string)
  default     = {}
  nullable    = false

  validation {
    condition     = length(var.node_hosts) == 0 || var.hosts != null
    error_message = "node_hosts needs hosts (the hosts the nodes may be placed on)."
  }

  validation {
    condition     = alltrue([for h in values(var.node_hosts) : contains(coalesce(var.hosts, []), h)])
    error_message = "node_hosts names a host that is not in hosts: ${join(", ", sort(distinct([for h in values(var.node_hosts) : h if !contains(coalesce(var.hosts, []), h)])))}."
  }

  validation {
    condition = alltrue([for n in keys(var.node_hosts) : contains(concat(
      [for i in range(var.controlplane_count) : "${var.cluster_name}-cp-${i + 1}"],
      [for i in range(var.worker_count) : "${var.cluster_name}-worker-${i + 1}"],
    ), n)])
    error_message = "node_hosts names nodes the cluster does not have: ${join(", ", sort([for n in keys(var.node_hosts) : n if !contains(concat([for i in range(var.controlplane_count) : "${var.cluster_name}-cp-${i + 1}"], [for i in range(var.worker_count) : "${var.cluster_name}-worker-${i + 1}"]), n)]))} (nodes are <cluster_name>-cp-N and <cluster_name>-worker-N)."
  }
}

variable "controlplane_anti_affinity" {
  description = "With hosts: no two control planes on one host (a host failure then costs etcd one member at most). controlplane_count may then not exceed the number of hosts, and node_hosts may not put two control planes together. false allows sharing."
  type        = bool
  default     = true
  nullable    = false
}

variable "bridge" {
  description = "A host bridge (e.g. \"br0\") present on every host and sharing one L2 segment, to attach the nodes to instead of the module's NAT network; required when hosts names more than one host. No libvirt network is created then: network_cidr is the bridge's subnet and the LAN's DHCP server must reserve each node's MAC for its address (output nodes) so the nodes are reachable in Talos' maintenance mode. null (default): the NAT network."
  type        = string
  default     = null

  validation {
    condition     = var.bridge == null || can(regex("^[A-Za-z0-9][A-Za-z0-9_.:-]{0,14}$", coalesce(var.bridge, "-")))
    error_message = "bridge must be a host interface name (1-15 characters), for example br0."
  }

  validation {
    condition     = var.bridge != null || var.hosts == null || length(coalesce(var.hosts, [])) <= 1
    error_message = "Nodes spread over several hosts need a network they all reach: set bridge to a host bridge present on every host (the module's NAT network exists on one host only)."
  }

  validation {
    condition = var.bridge == null || alltrue([
      for h in concat(
        [for i in range(var.controlplane_count) : var.controlplane_ip_offset + i],
        [for i in range(var.worker_count) : var.worker_ip_offset + i],
      ) : h >= 1 && h < pow(2, 32 - try(tonumber(split("/", var.network_cidr)[1]), 24)) - 1
    ])
    error_message = "On a bridge, node addresses must be host addresses of network_cidr (not its network or broadcast address); adjust controlplane_ip_offset/worker_ip_offset or the counts."
  }

  validation {
    condition = var.bridge == null || length(distinct(concat(
      [for i in range(var.controlplane_count) : var.controlplane_ip_offset + i],
      [for i in range(var.worker_count) : var.worker_ip_offset + i],
    ))) == var.controlplane_count + var.worker_count
    error_message = "Control-plane and worker addresses overlap: controlplane_ip_offset + controlplane_count must not reach worker_ip_offset (or the other way round)."
  }

  validation {
    condition = var.bridge == null || var.vip == null || try(
      cidrhost(var.network_cidr, 0) == cidrhost(format("%s/%s", var.vip, split("/", var.network_cidr)[1]), 0)
      && !contains(concat(
        [for i in range(var.controlplane_count) : cidrhost(var.network_cidr, var.controlplane_ip_offset + i)],
        [for i in range(var.worker_count) : cidrhost(var.network_cidr, var.worker_ip_offset + i)],
    ), var.vip), false)
    error_message = "vip must be an unused address inside network_cidr (not a node's)."
  }
}

variable "node_disk_mode" {
  description = "How node disks are made from the Talos image: \"overlay\" (default; a qcow2 overlay backed by the image, <node>.qcow2) or \"clone\" (a full copy in talos_image_format made by libvirt on the node's host, <node>.<format>; what an RBD pool needs, which holds raw volumes only and clones them in Ceph)."
  type        = string
  default     = "overlay"
  nullable    = false

  validation {
    condition     = contains(["overlay", "clone"], var.node_disk_mode)
    error_message = "node_disk_mode must be \"overlay\" or \"clone\"."
  }
}

variable "rbd" {
  description = "Node disks as Ceph RBD network disks, for a pool of type rbd (libvirt attaches no volumes of rbd pools as volume disks): QEMU opens <ceph_pool>/<node>.<format> itself. ceph_pool: the Ceph pool behind pool; monitors: host and optional port; username: the cephx user without \"client.\"; secret_uuid: UUID of the libvirt secret (usage ceph) holding its key, the same UUID on every host (a migrating domain keeps its disk definition). Needs node_disk_mode = \"clone\" (RBD holds raw images only). null (default): volume disks of pool."
  type = object({
    ceph_pool   = string
    monitors    = list(object({ host = string, port = optional(string) }))
    username    = string
    secret_uuid = string
  })
  default = null

  validation {
    condition     = var.rbd == null || try(length(var.rbd.monitors) >= 1, false)
    error_message = "rbd.monitors must name at least one Ceph monitor."
  }

  validation {
    condition     = var.rbd == null || can(regex("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$", try(var.rbd.secret_uuid, "")))
    error_message = "rbd.secret_uuid must be the UUID of the libvirt ceph secret (8-4-4-4-12 hex digits)."
  }

  validation {
    condition     = var.rbd == null || !startswith(try(var.rbd.username, ""), "client.")
    error_message = "rbd.username is the cephx user without the \"client.\" prefix, e.g. libvirt."
  }

  validation {
    condition     = var.rbd == null || var.node_disk_mode == "clone"
    error_message = "rbd needs node_disk_mode = \"clone\": RBD images are raw, there are no qcow2 overlays."
  }

  validation {
    condition     = var.rbd == null || var.talos_image_staging_pool != null
    error_message = "rbd needs talos_image_staging_pool: libvirt cannot upload into an rbd pool, the image goes through a dir pool on each host."
  }

  validation {
    condition     = var.rbd == null || var.talos_image_format == "raw"
    error_message = "rbd needs talos_image_format = \"raw\": an rbd pool holds raw images only."
  }
}

variable "talos_image_staging_pool" {
  description = "Only when pool is of type rbd (Ceph), and needed there: a dir, fs or netfs pool on every host with nodes, with room for the image. libvirt cannot upload into RBD, so each host's image is uploaded into a staging volume there and copied into RBD by QEMU (create.content.staging_pool). null (default): the image is uploaded into pool directly."
  type        = string
  default     = null
}
