variable "libvirt_hosts" {
  description = "The production hosts: name => libvirt connection URI, e.g. { virt-1 = \"qemu+ssh://deploy@virt-1.example.internal/system\", ... }. At least three (one control plane each). Required: production never defaults to the machine running tofu."
  type        = map(string)

  validation {
    condition     = length(var.libvirt_hosts) >= 3
    error_message = "libvirt_hosts must name at least three hosts: the three control planes each get a host of their own."
  }

  validation {
    condition     = alltrue([for name in keys(var.libvirt_hosts) : can(regex("^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$", name))])
    error_message = "Each libvirt_hosts name must be 1-32 characters of lowercase letters, digits and '-', starting and ending with a letter or digit (it names the host's resources)."
  }

  validation {
    condition     = alltrue([for uri in values(var.libvirt_hosts) : can(regex("^[a-z0-9]+\\+(ssh|libssh|libssh2|tls|tcp)://([^@/]+@)?[^@/:?]+(:[0-9]+)?/", uri))])
    error_message = "Each libvirt_hosts URI must name a remote host with a transport, e.g. qemu+ssh://deploy@virt-1.example.internal/system or qemu+tls://virt-1.example.internal/system."
  }

  validation {
    condition     = !anytrue([for uri in values(var.libvirt_hosts) : can(regex("^[a-z0-9+]+://([^@/]+@)?(localhost|127\\.[0-9.]+|\\[::1\\])(:[0-9]+)?/", uri))])
    error_message = "No libvirt_hosts URI may point at the local host (localhost, 127.x, [::1]): production runs against its own hosts."
  }

  validation {
    condition = length(distinct([for uri in values(var.libvirt_hosts) :
      lower(try(regex("^[a-z0-9+]+://(?:[^@/]+@)?([^@/:?]+)", uri)[0], uri))
    ])) == length(var.libvirt_hosts)
    error_message = "Two libvirt_hosts names point at the same machine: spreading over them would not spread anything."
  }
}

variable "ceph_monitors" {
  description = "Ceph monitors the RBD pools connect to: host names or addresses, optionally with :port (default 6789)."
  type        = list(string)

  validation {
    condition     = length(var.ceph_monitors) >= 1
    error_message = "ceph_monitors must name at least one Ceph monitor."
  }

  validation {
    condition     = alltrue([for m in var.ceph_monitors : can(regex("^[A-Za-z0-9.-]+(:[0-9]{1,5})?$", m))])
    error_message = "Each Ceph monitor must be a host name or IPv4 address, optionally with :port, e.g. ceph-mon-1.example.internal:6789."
  }
}

variable "ceph_pool" {
  description = "The Ceph pool holding the Talos image and the node disks."
  type        = string
  default     = "libvirt"
  nullable    = false

  validation {
    condition     = can(regex("^[A-Za-z0-9_.-]+$", var.ceph_pool))
    error_message = "ceph_pool must be a Ceph pool name (letters, digits, '_', '.', '-')."
  }
}

variable "ceph_user" {
  description = "The cephx user libvirt connects as, without \"client.\" (its key is ceph_key)."
  type        = string
  default     = "libvirt"
  nullable    = false

  validation {
    condition     = can(regex("^[A-Za-z0-9_.-]+$", var.ceph_user)) && !startswith(var.ceph_user, "client.")
    error_message = "ceph_user must be the user's name without the \"client.\" prefix, e.g. libvirt."
  }
}

variable "ceph_key" {
  description = "The cephx key of ceph_user, as `ceph auth get-key client.<ceph_user>` prints it (base64). Stored in one libvirt_secret (usage ceph) per host; give it through TF_VAR_ceph_key or an untracked tfvars file."
  type        = string
  sensitive   = true

  validation {
    condition     = can(regex("^[A-Za-z0-9+/]{16,}={0,2}$", var.ceph_key)) && length(var.ceph_key) % 4 == 0
    error_message = "ceph_key must be the base64 key `ceph auth get-key client.<user>` prints (for example 40 characters ending in ==)."
  }
}

variable "pool_name" {
  description = "Name of the libvirt pool (type rbd, on ceph_pool) defined on every host."
  type        = string
  default     = "ceph"
  nullable    = false

  validation {
    condition     = can(regex("^[A-Za-z0-9_.-]+$", var.pool_name))
    error_message = "pool_name must be a libvirt pool name (letters, digits, '_', '.', '-')."
  }
}

variable "staging_pool" {
  description = "A dir (or fs, netfs) pool that exists on every host with room for the Talos image: libvirt cannot upload into RBD, so each host's image is uploaded there first and copied into RBD by QEMU."
  type        = string
  default     = "default"
  nullable    = false

  validation {
    condition     = can(regex("^[A-Za-z0-9_.-]+$", var.staging_pool)) && var.staging_pool != var.pool_name
    error_message = "staging_pool must be the name of a dir, fs or netfs pool on every host, not the rbd pool itself."
  }
}

variable "bridge" {
  description = "The host bridge, present on every host and on one L2 segment, the nodes are attached to."
  type        = string
  default     = "br0"
  nullable    = false
}

variable "network_cidr" {
  description = "IPv4 subnet of bridge. Its DHCP server must reserve each node's MAC for its address (output nodes)."
  type        = string
}

variable "vip" {
  description = "Shared virtual IP of the Kubernetes API on the control planes (an unused address of network_cidr); null: the first control plane's address."
  type        = string
  default     = null
}

variable "cluster_name" {
  description = "Name of the Talos cluster (and prefix of its domains and volumes)."
  type        = string
  default     = "prod"
  nullable    = false
}

variable "talos_image" {
  description = "Talos nocloud disk image (raw), an http(s)/file URL or an absolute local path; it is written once per host into the RBD pool."
  type        = string
}

variable "talos_version" {
  description = "Talos version of the image and the machine configuration."
  type        = string
  default     = "v1.9.5"
  nullable    = false
}

variable "worker_count" {
  description = "Number of workers; they continue the round-robin over the hosts after the three control planes."
  type        = number
  default     = 3
  nullable    = false
}
