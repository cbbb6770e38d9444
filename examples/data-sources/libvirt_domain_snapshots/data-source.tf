data "libvirt_domain_snapshots" "db" {
  domain = "db1"
}

output "snapshot_names" {
  value = [for s in data.libvirt_domain_snapshots.db.objects : s.name]
}
