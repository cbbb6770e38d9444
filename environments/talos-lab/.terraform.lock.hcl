# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0, ~> 0.1"
  hashes = [
    "h1:D8Lf54cvPibSTFVjOV0JtCL74JsqKiTK2xAwkmZgXho=",
    "h1:MtJJhpaLkIWuOjhhp6qf6XwAuh9/Ykxj6VuQ3U+LGWQ=",
    "h1:pmlEgpnlCCZQr7sPNpVc0jR3ahOKIPgJ3qSfb57m21M=",
    "h1:w+/s/81GL0jm9Q86Tyg6EPkwHfRBljxGgP2vPQbqMVw=",
  ]
}
