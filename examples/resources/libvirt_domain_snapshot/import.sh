# A snapshot is imported as <domain UUID or name>/<snapshot name>. The create
# flags (disk_only, quiesce, live, atomic) are not recorded by libvirt and are
# false after an import: leave them unset in the configuration of an imported
# snapshot, or the plan replaces it.
tofu import libvirt_domain_snapshot.before_upgrade vm1/before-upgrade
tofu import libvirt_domain_snapshot.before_upgrade 3e1fa3b0-5c1c-4f55-9d0e-0b9f5a6b8f11/before-upgrade
