# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0"
  hashes = [
    "h1:H3nB7Bhoc1Ul/VsUJjor+Zv1LWnudqFZPXhFjKWRmVU=",
    "h1:VztPpM7GHbpZqusnFIYo1yd42F6G+okcoZN+cUNhgUE=",
    "h1:hXGJpYYgNi+TAbyHPbt3cRsPNRQrn3V7h/zv5iRcVuc=",
    "h1:wW2XOMbasgu6f816A6ryIti8pBZvy01lAv/sGn8S4S8=",
  ]
}
