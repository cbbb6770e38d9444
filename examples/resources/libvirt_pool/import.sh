# A pool can be imported by name or by UUID. Import keeps what a configuration
# usually sets (name, type, source, target.path); write those in the
# configuration for an empty plan after import.
tofu import libvirt_pool.images images
tofu import libvirt_pool.images 3e1fa3b0-5c1c-4f55-9d0e-0b9f5a6b8f11
