data "libvirt_volumes" "images" {
  pool = "default"
  name = "*.qcow2"
}

output "volume_import_ids" {
  value = [for v in data.libvirt_volumes.images.objects : v.id]
}
