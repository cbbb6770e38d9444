package rules

import "regexp"

// formerShape is what an older provider accepted at a path and what to
// write instead. The table below is history (earlier schemas), written by
// hand; which keys are valid today comes only from the generated schema,
// and TestHistoryMatchesSchema checks every entry against it.
type formerShape struct {
	// era names the schema the old form comes from.
	era string
	// instead is the form to write now; for a changed shape, {value}
	// stands for the value as written.
	instead string
	// uses lists the attribute paths instead refers to; they must exist.
	uses []string
	// shape is set when the key itself is still valid and only the value's
	// shape changed (a string that became an object, ...).
	shape bool
}

const (
	era09 = "dmacvicar/libvirt 0.9.0"
	era08 = "dmacvicar/libvirt 0.8"
)

var formerShapes = map[string]formerShape{
	// libvirt_domain, dmacvicar/libvirt 0.9.0's hand-written schema.
	"libvirt_domain:unit":             {era: era09, instead: "`memory_unit = \"MiB\"`", uses: []string{"memory_unit"}},
	"libvirt_domain:max_memory":       {era: era09, instead: "`maximum_memory` with `maximum_memory_unit`", uses: []string{"maximum_memory", "maximum_memory_unit"}},
	"libvirt_domain:max_memory_slots": {era: era09, instead: "`maximum_memory_slots`", uses: []string{"maximum_memory_slots"}},
	"libvirt_domain:metadata":         {era: era09, shape: true, instead: "`metadata = { xml = {value} }`", uses: []string{"metadata.xml"}},
	"libvirt_domain:os.boot":          {era: "a dmacvicar/libvirt 0.9.x issue thread", instead: "`boot_devices = [{ dev = \"hd\" }, { dev = \"network\" }]`", uses: []string{"os.boot_devices.dev"}},
	"libvirt_domain:os.boot_devices":  {era: era09, shape: true, instead: "`boot_devices = [{ dev = \"hd\" }, { dev = \"network\" }]`", uses: []string{"os.boot_devices.dev"}},
	"libvirt_domain:os.kernel_args":   {era: era09, instead: "`cmdline = \"...\"`", uses: []string{"os.cmdline"}},
	"libvirt_domain:os.loader_path":   {era: era09, instead: "`loader = \"/usr/share/OVMF/OVMF_CODE.fd\"`", uses: []string{"os.loader"}},
	"libvirt_domain:os.machine":       {era: era09, instead: "`type_machine = \"q35\"`", uses: []string{"os.type_machine"}},
	"libvirt_domain:os.arch":          {era: era09, instead: "`type_arch = \"x86_64\"`", uses: []string{"os.type_arch"}},
	"libvirt_domain:os.nvram":         {era: era09, instead: "`nv_ram = { nv_ram = \"/var/lib/libvirt/qemu/nvram/x_VARS.fd\", template = \"...\" }`", uses: []string{"os.nv_ram.nv_ram", "os.nv_ram.template"}},
	"libvirt_domain:destroy.timeout":  {era: era09, instead: "`destroy = { shutdown = { timeout = 300 } }`", uses: []string{"destroy.shutdown.timeout"}},

	"libvirt_domain:devices.video":                          {era: era09, instead: "`videos = [{ model = { type = \"virtio\" } }]`", uses: []string{"devices.videos.model.type"}},
	"libvirt_domain:devices.graphics":                       {era: era09, shape: true, instead: "a list: `graphics = [{ vnc = { listen = \"127.0.0.1\", auto_port = true } }]`", uses: []string{"devices.graphics.vnc.listen", "devices.graphics.vnc.auto_port"}},
	"libvirt_domain:devices.graphics.vnc.autoport":          {era: era09, instead: "`auto_port = true` (a bool, not \"yes\")", uses: []string{"devices.graphics.vnc.auto_port"}},
	"libvirt_domain:devices.graphics.spice.autoport":        {era: era09, instead: "`auto_port = true` (a bool, not \"yes\")", uses: []string{"devices.graphics.spice.auto_port"}},
	"libvirt_domain:devices.consoles.target_port":           {era: era09, instead: "`target = { port = 0 }`", uses: []string{"devices.consoles.target.port"}},
	"libvirt_domain:devices.consoles.target_type":           {era: era09, instead: "`target = { type = \"serial\" }`", uses: []string{"devices.consoles.target.type"}},
	"libvirt_domain:devices.consoles.source_path":           {era: era09, instead: "`source = { file = { path = \"...\" } }` (or `unix`, `pty`, after the console's type)", uses: []string{"devices.consoles.source.file.path"}},
	"libvirt_domain:devices.serials.target_port":            {era: era09, instead: "`target = { port = 0 }`", uses: []string{"devices.serials.target.port"}},
	"libvirt_domain:devices.serials.target_type":            {era: era09, instead: "`target = { type = \"isa-serial\" }`", uses: []string{"devices.serials.target.type"}},
	"libvirt_domain:devices.serials.source_path":            {era: era09, instead: "`source = { file = { path = \"...\" } }` (or `unix`, `pty`, after the serial's type)", uses: []string{"devices.serials.source.file.path"}},
	"libvirt_domain:devices.disks.source.pool":              {era: era09, instead: "`source = { volume = { pool = \"default\", volume = \"disk.qcow2\" } }`", uses: []string{"devices.disks.source.volume.pool", "devices.disks.source.volume.volume"}},
	"libvirt_domain:devices.disks.source.volume":            {era: era09, shape: true, instead: "`volume = { pool = \"default\", volume = {value} }`", uses: []string{"devices.disks.source.volume.pool", "devices.disks.source.volume.volume"}},
	"libvirt_domain:devices.disks.source.file":              {era: era09, shape: true, instead: "`file = { file = {value} }`", uses: []string{"devices.disks.source.file.file"}},
	"libvirt_domain:devices.disks.source.block":             {era: era09, shape: true, instead: "`block = { dev = {value} }`", uses: []string{"devices.disks.source.block.dev"}},
	"libvirt_domain:devices.filesystems.source":             {era: era09, shape: true, instead: "`source = { mount = { dir = {value} } }`", uses: []string{"devices.filesystems.source.mount.dir"}},
	"libvirt_domain:devices.filesystems.target":             {era: era09, shape: true, instead: "`target = { dir = {value} }`", uses: []string{"devices.filesystems.target.dir"}},
	"libvirt_domain:devices.interfaces.mac":                 {era: era09, shape: true, instead: "`mac = { address = {value} }`", uses: []string{"devices.interfaces.mac.address"}},
	"libvirt_domain:devices.interfaces.model":               {era: era09, shape: true, instead: "`model = { type = {value} }`", uses: []string{"devices.interfaces.model.type"}},
	"libvirt_domain:devices.interfaces.source.network":      {era: era09, shape: true, instead: "`network = { network = {value} }`", uses: []string{"devices.interfaces.source.network.network"}},
	"libvirt_domain:devices.interfaces.source.bridge":       {era: era09, shape: true, instead: "`bridge = { bridge = {value} }`", uses: []string{"devices.interfaces.source.bridge.bridge"}},
	"libvirt_domain:devices.interfaces.source.dev":          {era: era09, instead: "`source = { direct = { dev = \"eth0\", mode = \"bridge\" } }`", uses: []string{"devices.interfaces.source.direct.dev", "devices.interfaces.source.direct.mode"}},
	"libvirt_domain:devices.interfaces.source.mode":         {era: era09, instead: "`source = { direct = { dev = \"eth0\", mode = \"bridge\" } }`", uses: []string{"devices.interfaces.source.direct.dev", "devices.interfaces.source.direct.mode"}},
	"libvirt_domain:devices.interfaces.source.portgroup":    {era: era09, instead: "`source = { network = { network = \"...\", port_group = \"...\" } }`", uses: []string{"devices.interfaces.source.network.port_group"}},
	"libvirt_domain:devices.rngs.device":                    {era: era09, instead: "`backend = { random = ... }` naming the device (/dev/urandom)", uses: []string{"devices.rngs.backend.random"}},
	"libvirt_domain:devices.tpms.backend_type":              {era: era09, instead: "`backend = { emulator = { version = \"2.0\" } }` (or `passthrough = { device = { path = \"/dev/tpm0\" } }`)", uses: []string{"devices.tpms.backend.emulator.version", "devices.tpms.backend.passthrough.device.path"}},
	"libvirt_domain:devices.tpms.backend_version":           {era: era09, instead: "`backend = { emulator = { version = \"2.0\" } }`", uses: []string{"devices.tpms.backend.emulator.version"}},
	"libvirt_domain:devices.tpms.backend_persistent_state":  {era: era09, instead: "`backend = { emulator = { persistent_state = \"yes\" } }`", uses: []string{"devices.tpms.backend.emulator.persistent_state"}},
	"libvirt_domain:devices.tpms.backend_encryption_secret": {era: era09, instead: "`backend = { emulator = { encryption = { secret = \"<uuid>\" } } }`", uses: []string{"devices.tpms.backend.emulator.encryption"}},
	"libvirt_domain:devices.tpms.backend_device_path":       {era: era09, instead: "`backend = { passthrough = { device = { path = \"/dev/tpm0\" } } }`", uses: []string{"devices.tpms.backend.passthrough.device.path"}},
	"libvirt_domain:features.apic":                          {era: era09, shape: true, instead: "`apic = {}` (an object: `{ eoi = \"on\" }` sets its option)", uses: []string{"features.apic.eoi"}},
	"libvirt_domain:features.gic_version":                   {era: era09, instead: "`gic = { version = \"3\" }`", uses: []string{"features.gic.version"}},
	"libvirt_domain:features.ioapic_driver":                 {era: era09, instead: "`ioapic = { driver = \"kvm\" }`", uses: []string{"features.ioapic.driver"}},
	"libvirt_domain:pm.suspend_to_disk":                     {era: era09, shape: true, instead: "`suspend_to_disk = { enabled = {value} }`", uses: []string{"pm.suspend_to_disk.enabled"}},
	"libvirt_domain:pm.suspend_to_mem":                      {era: era09, shape: true, instead: "`suspend_to_mem = { enabled = {value} }`", uses: []string{"pm.suspend_to_mem.enabled"}},

	// libvirt_domain, dmacvicar/libvirt 0.8's blocks and arguments.
	"libvirt_domain:disk":              {era: era08, instead: "`devices = { disks = [{ source = { volume = { pool = \"default\", volume = \"...\" } }, target = { dev = \"vda\", bus = \"virtio\" } }] }`", uses: []string{"devices.disks.source.volume", "devices.disks.target.dev"}},
	"libvirt_domain:network_interface": {era: era08, instead: "`devices = { interfaces = [{ type = \"network\", model = { type = \"virtio\" }, source = { network = { network = \"default\" } } }] }`", uses: []string{"devices.interfaces.source.network.network"}},
	"libvirt_domain:console":           {era: era08, instead: "`devices = { serials = [{ target = { port = 0 } }], consoles = [{ target = { type = \"serial\", port = 0 } }] }`", uses: []string{"devices.serials.target.port", "devices.consoles.target.type"}},
	"libvirt_domain:graphics":          {era: era08, instead: "`devices = { graphics = [{ vnc = { listen = \"127.0.0.1\", auto_port = true } }] }`", uses: []string{"devices.graphics.vnc.auto_port"}},
	"libvirt_domain:qemu_agent":        {era: era08, instead: "`devices = { channels = [{ source = { unix = {} }, target = { virt_io = { name = \"org.qemu.guest_agent.0\" } } }] }`", uses: []string{"devices.channels.source.unix", "devices.channels.target.virt_io.name"}},
	"libvirt_domain:cloudinit":         {era: era08, instead: "a `libvirt_volume` with `create = { content = { url = libvirt_cloudinit_disk.x.path } }`, attached as a disk with `device = \"cdrom\"`", uses: []string{"devices.disks.device"}},
	"libvirt_domain:firmware":          {era: era08, instead: "`os = { loader = \"/usr/share/OVMF/OVMF_CODE.fd\", loader_type = \"pflash\" }`", uses: []string{"os.loader", "os.loader_type"}},
	"libvirt_domain:machine":           {era: era08, instead: "`os = { type_machine = \"q35\" }`", uses: []string{"os.type_machine"}},
	"libvirt_domain:arch":              {era: era08, instead: "`os = { type_arch = \"x86_64\" }`", uses: []string{"os.type_arch"}},
	"libvirt_domain:kernel":            {era: era08, instead: "`os = { kernel = \"...\" }`", uses: []string{"os.kernel"}},
	"libvirt_domain:initrd":            {era: era08, instead: "`os = { initrd = \"...\" }`", uses: []string{"os.initrd"}},
	"libvirt_domain:cmdline":           {era: era08, instead: "`os = { cmdline = \"...\" }`", uses: []string{"os.cmdline"}},

	// libvirt_volume.
	"libvirt_volume:format":               {era: era09, instead: "`target = { format = { type = \"qcow2\" } }`", uses: []string{"target.format.type"}},
	"libvirt_volume:permissions":          {era: era09, instead: "`target = { permissions = { mode = \"0644\" } }`", uses: []string{"target.permissions"}},
	"libvirt_volume:backing_store.format": {era: era09, shape: true, instead: "`format = { type = {value} }`", uses: []string{"backing_store.format.type"}},
	"libvirt_volume:source":               {era: era08, instead: "`create = { content = { url = \"...\" } }`", uses: []string{"create.content.url"}},
	"libvirt_volume:base_volume_id":       {era: era08, instead: "`backing_store = { path = libvirt_volume.base.path, format = { type = \"qcow2\" } }`", uses: []string{"backing_store.path", "backing_store.format.type"}},
	"libvirt_volume:size":                 {era: era08, instead: "`capacity = 20` with `capacity_unit = \"GiB\"` (bytes when unset)", uses: []string{"capacity", "capacity_unit"}},

	// libvirt_network.
	"libvirt_network:mode":      {era: era09, instead: "`forward = { mode = \"nat\" }`", uses: []string{"forward.mode"}},
	"libvirt_network:bridge":    {era: era09, shape: true, instead: "`bridge = { name = {value} }`", uses: []string{"bridge.name"}},
	"libvirt_network:addresses": {era: era08, instead: "`ips = [{ address = \"10.17.3.1\", prefix = 24 }]`", uses: []string{"ips.address", "ips.prefix"}},
	"libvirt_network:domain":    {era: era08, shape: true, instead: "`domain = { name = {value} }`", uses: []string{"domain.name"}},
	"libvirt_network:dhcp":      {era: era08, instead: "`ips = [{ ..., dhcp = { ranges = [{ start = \"...\", end = \"...\" }] } }]`", uses: []string{"ips.dhcp"}},

	// libvirt_pool.
	"libvirt_pool:path": {era: era08, instead: "`target = { path = \"/var/lib/libvirt/images\" }`", uses: []string{"target.path"}},
}

var indexes = regexp.MustCompile(`\[[^\]]*\]`)

// formerShapeAt returns the table's entry for a path with indexes
// ("devices.consoles[0].target_port").
func formerShapeAt(typeName, path string) (formerShape, bool) {
	f, ok := formerShapes[typeName+":"+indexes.ReplaceAllString(path, "")]
	return f, ok
}
