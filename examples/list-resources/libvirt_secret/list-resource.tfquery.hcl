# a secret's name is its usage id (the volume path, the ceph client...)
list "libvirt_secret" "all" {
  provider         = libvirt
  include_resource = true
}
