# A volume can be imported by its key (the path for file-based pools) or as
# "pool/name". Import reads name, capacity, target.format and backing_store;
# the creation source (create.content.url) cannot be read back: adding it to
# the configuration after an import compares the volume with it at plan and
# records it (with its checksum's digest) without re-uploading when the volume
# holds it; a volume that does not is replaced.
tofu import libvirt_volume.vm1_disk /var/lib/libvirt/images/vm1.qcow2
tofu import libvirt_volume.vm1_disk default/vm1.qcow2
