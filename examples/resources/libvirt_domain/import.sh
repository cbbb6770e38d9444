# A domain is imported by its UUID or its name.
tofu import libvirt_domain.web1 2d5c0f8e-1f4b-4f3a-9c55-7a1d2e3b4c5d
tofu import libvirt_domain.web1 web1
# With the provider's hosts, prefix the host's name to import from that host
# (the state records host = "hv2").
tofu import libvirt_domain.web1 hv2/web1
