# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0, ~> 0.1"
  hashes = [
    "h1:PGHN/gtnsMvwfd7ap4J6bsytldIiHA/+WvKFWShtrHo=",
    "h1:Pbefl4uO4xNqgYgb2HRoL9lTB2pkdirp6qYhp/l0dcU=",
    "h1:wcB5gm7J41w29GdK1+QpEFoOi0xfpo2Lk/QnmUZ5HAU=",
    "h1:zGS2wgk9Hbp6FPQOhs1GCOkDF2Mfmnfku5JQ6u6DjiI=",
  ]
}
