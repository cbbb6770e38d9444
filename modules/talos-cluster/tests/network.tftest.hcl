# The cluster network: NAT, gateway, DHCP pool, native MAC->IP reservations
# matching the domains, and DNS entries.

mock_provider "libvirt" {}
mock_provider "talos" {}

variables {
  cluster_name       = "lab"
  talos_image        = "file:///var/tmp/talos/nocloud-amd64.raw"
  talos_version      = "v1.9.5"
  controlplane_count = 3
  worker_count       = 2
  vip                = "10.17.0.5"
}

run "network_is_nat_named_after_cluster" {
  command = plan

  assert {
    condition     = libvirt_network.this[0].name == "lab" && libvirt_network.this[0].forward.mode == "nat"
    error_message = "the network must be a NAT network named after the cluster"
  }
  assert {
    condition     = libvirt_network.this[0].autostart == true
    error_message = "the network must autostart by default"
  }
}

run "network_gateway_and_prefix" {
  command = plan

  assert {
    condition     = libvirt_network.this[0].ips[0].address == "10.17.0.1" && libvirt_network.this[0].ips[0].prefix == 24
    error_message = "gateway must be the first host of network_cidr with its prefix"
  }
}

run "network_custom_cidr" {
  command = plan

  variables {
    network_cidr = "192.168.77.0/25"
    vip          = null
  }

  assert {
    condition     = libvirt_network.this[0].ips[0].address == "192.168.77.1" && libvirt_network.this[0].ips[0].prefix == 25
    error_message = "network_cidr not wired"
  }
  assert {
    condition     = libvirt_network.this[0].ips[0].dhcp.ranges[0].start == "192.168.77.64" && libvirt_network.this[0].ips[0].dhcp.ranges[0].end == "192.168.77.126"
    error_message = "the DHCP pool must be the upper half of a /25"
  }
  assert {
    condition     = output.controlplane_ips[0] == "192.168.77.10"
    error_message = "node addresses must follow network_cidr"
  }
}

run "dhcp_pool_is_upper_half" {
  command = plan

  assert {
    condition     = libvirt_network.this[0].ips[0].dhcp.ranges[0].start == "10.17.0.128" && libvirt_network.this[0].ips[0].dhcp.ranges[0].end == "10.17.0.254"
    error_message = "DHCP pool must be .128-.254 on a /24"
  }
}

run "one_reservation_per_node" {
  command = plan

  assert {
    condition     = length(libvirt_network.this[0].ips[0].dhcp.hosts) == 5
    error_message = "3 control planes + 2 workers need 5 reservations"
  }
  assert {
    condition     = length(distinct([for h in libvirt_network.this[0].ips[0].dhcp.hosts : h.mac])) == 5 && length(distinct([for h in libvirt_network.this[0].ips[0].dhcp.hosts : h.ip])) == 5
    error_message = "reserved MACs and IPs must be unique"
  }
}

run "reservation_of_first_controlplane" {
  command = plan

  assert {
    condition = contains(
      [for h in libvirt_network.this[0].ips[0].dhcp.hosts : "${h.name}=${h.ip}"],
      "lab-cp-1=10.17.0.10",
    )
    error_message = "lab-cp-1 must be reserved 10.17.0.10"
  }
  assert {
    condition = contains(
      [for h in libvirt_network.this[0].ips[0].dhcp.hosts : "${h.name}=${h.ip}"],
      "lab-worker-2=10.17.0.21",
    )
    error_message = "lab-worker-2 must be reserved 10.17.0.21"
  }
}

run "reservations_match_domain_macs" {
  command = plan

  assert {
    condition = alltrue([
      for name, d in libvirt_domain.node : contains(
        [for h in libvirt_network.this[0].ips[0].dhcp.hosts : "${h.mac}/${h.ip}/${h.name}"],
        "${d.devices.interfaces[0].mac.address}/${output.nodes[name].ip}/${name}",
      )
    ])
    error_message = "every domain's MAC must be reserved to that node's IP under its name"
  }
}

run "macs_are_locally_administered_kvm_range" {
  command = plan

  assert {
    condition     = alltrue([for h in libvirt_network.this[0].ips[0].dhcp.hosts : can(regex("^52:54:00:[0-9a-f]{2}:00:[0-9a-f]{2}$", h.mac))])
    error_message = "MACs must be in 52:54:00 with the host number in the last bytes"
  }
  assert {
    condition     = endswith(output.nodes["lab-cp-1"].mac, ":00:0a") && endswith(output.nodes["lab-worker-1"].mac, ":00:14")
    error_message = "the MAC must encode the node's host number (10 -> 0a, 20 -> 14)"
  }
  # f9 is the first byte of md5("lab") (echo -n lab | md5sum).
  assert {
    condition     = output.nodes["lab-cp-1"].mac == "52:54:00:f9:00:0a"
    error_message = "the fourth byte must come from the cluster name"
  }
}

run "other_cluster_gets_other_macs" {
  command = plan

  variables {
    cluster_name = "staging"
  }

  assert {
    # lab-cp-1 has 52:54:00:f9:00:0a (see above); md5("staging") starts with 83.
    condition     = output.nodes["staging-cp-1"].mac != "52:54:00:f9:00:0a" && output.nodes["staging-cp-1"].mac == "52:54:00:83:00:0a"
    error_message = "two clusters on one host must not share MACs"
  }
}

run "dns_domain_default_and_hosts" {
  command = plan

  assert {
    condition     = libvirt_network.this[0].domain.name == "lab.local" && libvirt_network.this[0].dns.enable == "yes"
    error_message = "DNS must be enabled with domain <cluster>.local"
  }
  assert {
    condition     = contains([for h in libvirt_network.this[0].dns.host : "${h.hostnames[0].hostname}=${h.ip}"], "lab-worker-1=10.17.0.20")
    error_message = "each node needs a DNS entry"
  }
  assert {
    condition     = contains([for h in libvirt_network.this[0].dns.host : "${h.hostnames[0].hostname}=${h.ip}"], "api=10.17.0.5")
    error_message = "the VIP needs an api DNS entry"
  }
  assert {
    condition     = length(libvirt_network.this[0].dns.host) == 6
    error_message = "5 nodes + api = 6 DNS entries"
  }
}

run "dns_custom_domain_no_vip" {
  command = plan

  variables {
    dns_domain = "k8s.example.internal"
    vip        = null
  }

  assert {
    condition     = libvirt_network.this[0].domain.name == "k8s.example.internal"
    error_message = "dns_domain not wired"
  }
  assert {
    condition     = length(libvirt_network.this[0].dns.host) == 5 && !contains([for h in libvirt_network.this[0].dns.host : h.hostnames[0].hostname], "api")
    error_message = "without a VIP there is no api entry"
  }
}

run "custom_ip_offsets" {
  command = plan

  variables {
    controlplane_ip_offset = 50
    worker_ip_offset       = 60
  }

  assert {
    condition     = join(",", output.controlplane_ips) == "10.17.0.50,10.17.0.51,10.17.0.52" && join(",", output.worker_ips) == "10.17.0.60,10.17.0.61"
    error_message = "offsets must place the nodes"
  }
}

run "reject_overlapping_offsets" {
  command = plan

  variables {
    controlplane_ip_offset = 20
    worker_ip_offset       = 22
  }

  expect_failures = [libvirt_network.this]
}

run "reject_node_in_dhcp_pool" {
  command = plan

  variables {
    worker_ip_offset = 127
  }

  expect_failures = [libvirt_network.this]
}

run "reject_node_on_gateway" {
  command = plan

  variables {
    controlplane_ip_offset = 1
  }

  expect_failures = [libvirt_network.this]
}

run "reject_vip_outside_network" {
  command = plan

  variables {
    vip = "10.18.0.5"
  }

  expect_failures = [libvirt_network.this]
}

run "reject_vip_on_a_node" {
  command = plan

  variables {
    vip = "10.17.0.11"
  }

  expect_failures = [libvirt_network.this]
}
