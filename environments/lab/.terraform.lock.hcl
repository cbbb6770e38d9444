# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0, ~> 0.1"
  hashes = [
    "h1:/0TQBIPDwKouvXG2Z3q7ml3EHZEzil3pWgkgeTQ9TMY=",
    "h1:GPwXIA8oBg6jnCSLCg2oSgHQAlpdEYIuzFNNhba6rMY=",
    "h1:I8LhufbEh8vK5Jjvyvr5lQ5DYyA65rWK+jhx5FkV3QM=",
    "h1:ssi5N5UUwTtGebJ33I83118k6ea16zjVROQeLPzVkzg=",
  ]
}
