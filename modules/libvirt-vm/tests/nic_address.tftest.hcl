# The selection of the NIC's address (modules/nic-address), run on its own
# with literal interface lists shaped like what
# data.libvirt_domain_interface_addresses reports. No provider is involved.

run "address_ipv4_of_matching_nic" {
  command = plan
  module {
    source = "./modules/nic-address"
  }
  variables {
    mac_address = "52:54:00:00:00:02"
    interfaces = [
      { name = "lo", hwaddr = "00:00:00:00:00:00", addrs = [{ type = "ipv4", addr = "127.0.0.1" }] },
      { name = "vnet7", hwaddr = "52:54:00:00:00:01", addrs = [{ type = "ipv4", addr = "10.9.0.1" }] },
      { name = "vnet8", hwaddr = "52:54:00:00:00:02", addrs = [{ type = "ipv6", addr = "fe80::1" }, { type = "ipv4", addr = "10.9.0.2" }] },
    ]
  }
  assert {
    condition     = output.ip_address == "10.9.0.2"
    error_message = "must pick the first IPv4 address of the interface with the NIC's MAC, got ${coalesce(output.ip_address, "null")}"
  }
  assert {
    condition     = output.mac_address == "52:54:00:00:00:02"
    error_message = "must report the matched interface's MAC"
  }
}

run "address_mac_match_ignores_case" {
  command = plan
  module {
    source = "./modules/nic-address"
  }
  variables {
    mac_address = "52:54:00:AA:BB:CC"
    interfaces  = [{ name = "vnet0", hwaddr = "52:54:00:aa:bb:cc", addrs = [{ type = "ipv4", addr = "192.168.150.10" }] }]
  }
  assert {
    condition     = output.ip_address == "192.168.150.10"
    error_message = "MAC comparison must ignore case"
  }
}

run "address_null_before_lease" {
  command = plan
  module {
    source = "./modules/nic-address"
  }
  variables {
    mac_address = "52:54:00:aa:bb:cc"
    interfaces  = [{ name = "vnet0", hwaddr = "52:54:00:aa:bb:cc", addrs = [{ type = "ipv6", addr = "fe80::1" }] }]
  }
  assert {
    condition     = output.ip_address == null
    error_message = "no IPv4 address yet must give null, not the IPv6 one"
  }
}

run "address_of_other_nic_not_taken" {
  command = plan
  module {
    source = "./modules/nic-address"
  }
  variables {
    mac_address = "52:54:00:aa:bb:cc"
    interfaces  = [{ name = "vnet3", hwaddr = "52:54:00:11:22:33", addrs = [{ type = "ipv4", addr = "10.0.0.3" }] }]
  }
  assert {
    condition     = output.ip_address == null && output.mac_address == null
    error_message = "another NIC's address must not be reported"
  }
}
