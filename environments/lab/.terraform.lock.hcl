# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0, ~> 0.1"
  hashes = [
    "h1:0NfFxABWYB45OmEjkLczyybH9aekP8grbosmRGe7RwM=",
    "h1:0kxASBcHTWfT84FSaZNk0zO/OxmN+LzT9uVGfy3PZEo=",
    "h1:P4GNPpQLykWHhh4mdlNUd2eK/ezIRuWefevSL7N3yHo=",
    "h1:SdipemgkUn51l5xGaiy45QYsjTVjP185lPBw1XfhtU8=",
  ]
}
