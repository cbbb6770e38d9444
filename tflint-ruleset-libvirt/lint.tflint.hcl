# TFLint configuration of `make lint` and the ruleset's tests: the libvirt
# ruleset only (installed by hand into TFLINT_PLUGIN_DIR, hence no `source`).
# Modules are linted in their own folders, not through their callers.
config {
  call_module_type = "none"
}

# TFLint's bundled Terraform language rules are not this repository's concern here.
plugin "terraform" {
  enabled = false
}

plugin "libvirt" {
  enabled = true
}
