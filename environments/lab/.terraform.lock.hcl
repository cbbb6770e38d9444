# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0, ~> 0.1"
  hashes = [
    "h1:L+oT0BBiGLXfu+UoWrxWYcK1q0/+lPKDiBvOSAHSAi0=",
    "h1:PdRJm2KehshvN4EQlEW/pDm8DsgxlaM6D1YDa1ESPX8=",
    "h1:siAgnPSt/AaZIh72wdhgB4qKOUZjJ8voiWs4JHzvL/0=",
    "h1:uf5A32IBvnB6tsOQgMr8KbdvVwAvHE6SJ43jnPuA68g=",
  ]
}
