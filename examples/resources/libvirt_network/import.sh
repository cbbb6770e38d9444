# A network can be imported by name or by UUID. Import reads the whole
# definition; a configuration that writes the same attributes (as above) plans
# no change after the import.
tofu import libvirt_network.cluster cluster
tofu import libvirt_network.cluster 5e0b4a8c-2f7e-4b55-9d8e-3c1a2b4d6e7f
