# virtxml/libvirt 0.1's spellings: schema version 1 turned elements without
# content ({}) into bools, "yes"/"no" switches into bools, and kept
# libvirt's words (vhost_user, dbus) whole.
resource "libvirt_domain" "v01" {
  name        = "v01"
  type        = "kvm"
  memory      = 1
  memory_unit = "GiB"
  features    = { acpi = {}, pae = {} }
  cpu         = { mode = "host-model", migratable = "on" }
  devices = {
    disks = [
      { device = "cdrom", read_only = {}, target = { dev = "sda", bus = "scsi" } },
      { source = { v_host_user = { type = "unix", path = "/run/vhost.sock" } }, target = { dev = "vdb" } },
    ]
    interfaces = [{ type = "hostdev", managed = "no" }]
    graphics   = [{ vnc = { auto_port = "yes" } }, { d_bus = {} }]
  }
}
