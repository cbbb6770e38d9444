package provider

// The test guest (scripts/build-guest-image.sh) booted by the acceptance
// tests: one domain shape, written once. Tests differ in the guest's disks
// (a pool volume, a file, an RBD image), its network interface and what
// they observe, and say only that.

// testGuest is the libvirt_domain "guest" of a test that boots the test
// guest: its kernel and initrd come from GuestDir, its root file system is
// the first of Disks (vda).
type testGuest struct {
	Name     string // domain name
	Host     string // the provider host (hosts = {...}); "" for the provider's uri
	GuestDir string // LIBVIRT_TEST_GUEST_DIR
	Running  bool
	// FixedNICNames keeps the kernel's interface names (net.ifnames=0:
	// eth0), which guests on a network want.
	FixedNICNames bool
	// Extra are further top-level domain attributes, written as given.
	Extra string
	// Disks are the HCL objects of devices.disks, in order; a cdrom among
	// them (the cloud-init seed) wants SCSI.
	Disks []string
	SCSI  bool
	// Interfaces are the HCL objects of devices.interfaces; none: no
	// network.
	Interfaces []string
	// ConsoleLog is the file the serial console writes to; "": no console.
	ConsoleLog string
	// Agent adds the guest agent's channel.
	Agent bool
}

// testGuestDomainTemplate renders testGuest; the domain type is the test
// environment's (testAccDomainType).
const testGuestDomainTemplate = `
resource "libvirt_domain" "guest" {
  name             = {{q .Name}}
{{- if .Host}}
  host             = {{q .Host}}
{{- end}}
  type             = {{q domainType}}
  memory           = 512
  memory_unit      = "MiB"
{{- if .Extra}}
  {{.Extra}}
{{- end}}
  vcpu             = 1
  running          = {{.Running}}
  shutdown_timeout = "0s"

  os = {
    type    = "hvm"
    kernel  = "{{.GuestDir}}/vmlinuz"
    initrd  = "{{.GuestDir}}/initrd.img"
    cmdline = "root=/dev/vda rw console=ttyS0{{if .FixedNICNames}} net.ifnames=0{{end}}"
  }

  devices = {
    disks = [
{{- range .Disks}}
      {{.}},
{{- end}}
    ]
{{- if .SCSI}}
    controllers = [{ type = "scsi", model = "virtio-scsi" }]
{{- end}}
{{- if .Interfaces}}
    interfaces = [
{{- range .Interfaces}}
      {{.}},
{{- end}}
    ]
{{- end}}
{{- if .ConsoleLog}}
    serials  = [{ source = { file = { path = {{q .ConsoleLog}} } }, target = { port = 0 } }]
    consoles = [{ target = { type = "serial", port = 0 } }]
{{- end}}
{{- if .Agent}}
    channels = [{
      source = { unix = {} }
      target = { virt_io = { name = "org.qemu.guest_agent.0" } }
    }]
{{- end}}
  }
}
`

// config is the guest's libvirt_domain block (no provider block).
func (g testGuest) config() string {
	return renderConfig(testGuestDomainTemplate, g)
}

// testGuestSeed is the cloud-init seed of a booted test guest: the ISO
// (instance-id Name, local-hostname Hostname) in SeedDir, uploaded as the
// volume libvirt_volume.seed in Pool. testGuestSeedDisk is its cdrom.
type testGuestSeed struct {
	Name, Hostname, SeedDir, Pool string
}

const testGuestSeedTemplate = `
resource "libvirt_cloudinit_disk" "seed" {
  name      = "{{.Name}}-seed"
  directory = {{q .SeedDir}}
  meta_data = <<-EOT
    instance-id: {{.Name}}
    local-hostname: {{.Hostname}}
  EOT
  user_data = <<-EOT
    #cloud-config
    {}
  EOT
}

resource "libvirt_volume" "seed" {
  name   = "{{.Name}}-seed.iso"
  pool   = {{q .Pool}}
  create = { content = { url = libvirt_cloudinit_disk.seed.path } }
}
`

func (s testGuestSeed) config() string {
	return renderConfig(testGuestSeedTemplate, s)
}

// Disks of the test guest, as HCL objects of devices.disks.
const (
	// testGuestRootVolumeDisk is the root disk from libvirt_volume.root.
	testGuestRootVolumeDisk = `{
        source = { volume = { pool = libvirt_volume.root.pool, volume = libvirt_volume.root.name } }
        target = { dev = "vda", bus = "virtio" }
      }`
	// testGuestSeedDisk is the cdrom from libvirt_volume.seed.
	testGuestSeedDisk = `{
        device    = "cdrom"
        source    = { volume = { pool = libvirt_volume.seed.pool, volume = libvirt_volume.seed.name } }
        target    = { dev = "sda", bus = "scsi" }
        read_only = true
      }`
)

// testGuestFileDisks are a root overlay file and a seed ISO file (both made
// by testAccGuestDisks) as the guest's disks.
func testGuestFileDisks(overlay, seed string) []string {
	return []string{
		renderConfig(`{ source = { file = { file = {{q .}} } }, target = { dev = "vda", bus = "virtio" }, driver = { name = "qemu", type = "qcow2" } }`, overlay),
		renderConfig(`{ device = "cdrom", source = { file = { file = {{q .}} } }, target = { dev = "sda", bus = "scsi" }, read_only = true }`, seed),
	}
}
