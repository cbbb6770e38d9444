# This file is maintained automatically by "tofu init".
# Manual edits may be lost in future updates.

provider "registry.opentofu.org/virtxml/libvirt" {
  version     = "0.1.0"
  constraints = ">= 0.1.0"
  hashes = [
    "h1:7/Go4WH1kxtLizPpRmcFixKyDakWuSCw+gVAU8mbQuc=",
    "h1:N/9kmN9R7zZviB0pT2RydyVgJdnaj3KeXQnosu6LCeI=",
    "h1:QJ7tvsQ1HdgCj4QTTvcW1KnxbPkDYeO3KEOCrY4ROrc=",
    "h1:iiEMuFs05eEbTjevmDFOhGxpaC7IglIiwDWGZs6ICXQ=",
  ]
}
