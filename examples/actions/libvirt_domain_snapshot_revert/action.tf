# Back to the state before the upgrade, disks and memory:
#   terraform apply -invoke=action.libvirt_domain_snapshot_revert.before_upgrade
action "libvirt_domain_snapshot_revert" "before_upgrade" {
  config {
    domain   = "vm1"            # libvirt_domain.vm1.id
    snapshot = "before-upgrade" # libvirt_domain_snapshot.before_upgrade.name
    state    = "running"
  }
}
