# A network filter can be imported by name or by UUID. Import reads the whole
# definition; a configuration that writes the same entries plans no change.
tofu import libvirt_nwfilter.guard guard-host
tofu import libvirt_nwfilter.guard 6f1d3c2a-8b4e-4f5a-9c7d-2e1b0a9f8d7c
