# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0"
  hashes = [
    "h1:QayVQ/NHzz9SO3wUGpLIl/PLxplMFpAHEeTBAvJG5+0=",
    "h1:aGnb/OKRRXXP0v44EJV28P6e1fZSSbNGEXMvy/Pr7Eg=",
    "h1:dBiy/UyG9VlDAg1mjiny/lNldtT+xxx7AjubMaSm5tE=",
    "h1:muV/BXZtLKMLwrJDqouSMr1AjaprCGDaqLaxIpRON28=",
  ]
}
