# A secret can be imported by UUID or by its usage id (the volume path for
# usage type volume, the name for ceph, tls and vtpm, the target for iscsi).
# libvirt's XML holds no value: after import the state has none, and the next
# apply sets the configuration's value in place.
tofu import libvirt_secret.data_luks 0b4e6f2a-8d3c-4e57-9a1b-2c3d4e5f6a7b
tofu import libvirt_secret.data_luks /var/lib/libvirt/images/data.luks
