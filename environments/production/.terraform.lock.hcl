# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0, ~> 0.1"
  hashes = [
    "h1:PxpGBlnIzdwzKr2EEPQK7+AHqbe/nNYzIwEhCesQxKk=",
    "h1:VB7eKqf5qRTzHhnBwMKS2CddHtbUTR0HkDqUlez0Btg=",
    "h1:aDmWAexUcjmEe04bjFJxqiUQ3XHJFR+WCLTskB4bCGE=",
    "h1:b9MMWA8kIM0wl/RbFvjo4Ki6yJS+ISMWkBDR/4iVmgA=",
  ]
}
