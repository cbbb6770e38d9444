package libvirtops

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// BootReport is what a domain showed when a wait for its address gave up:
// the answer to "my VM never got an IP". Each part is read independently; a
// part that could not be read carries its error instead of failing the rest.
type BootReport struct {
	State, Reason string // libvirt's domain state and its reason, in virsh's words
	StateErr      error

	Console ConsoleTail

	// Networks holds, per interface of the domain, the DHCP leases libvirt
	// knows of on the network the interface is plugged into.
	Networks []InterfaceLeases

	Agent AgentStatus
}

// ConsoleTail is the end of the domain's serial console output.
type ConsoleTail struct {
	// Source says where the lines come from: `file /path` for a console log
	// or a file-backed serial port, `console stream (3s)` for output read
	// live from the console, empty when there is no serial console.
	Source string
	Lines  []string
	Err    error
}

// InterfaceLeases is one interface of the domain and the DHCP leases of its
// network.
type InterfaceLeases struct {
	MAC string
	// Type is the interface type (network, bridge, ...). Only type network
	// has leases libvirt knows of.
	Type    string
	Network string // the libvirt network, or the bridge for type bridge
	Leases  []Lease
	Err     error
}

// MACLeased reports whether any lease of the network is for this interface's MAC.
func (i InterfaceLeases) MACLeased() bool {
	for _, l := range i.Leases {
		if strings.EqualFold(l.MAC, i.MAC) {
			return true
		}
	}
	return false
}

// Lease is one DHCP lease of a libvirt network.
type Lease struct {
	MAC, IP, Hostname string
	Prefix            uint32
	Expires           time.Time
}

// AgentStatus says whether the QEMU guest agent answered.
type AgentStatus struct {
	// Channel is whether the domain has an org.qemu.guest_agent.0 channel at all;
	// ChannelState is its state in the live definition (connected/disconnected).
	Channel      bool
	ChannelState string
	Answered     bool
	Err          error // the guest-ping error when it did not answer
}

// guestAgentChannel is the virtio-serial port name the QEMU guest agent listens on.
const guestAgentChannel = "org.qemu.guest_agent.0"

// consoleTailLines is how many console lines a report keeps; consoleTailBytes
// is how much of a console log file is read to find them.
const (
	consoleTailLines = 25
	consoleTailBytes = 64 << 10
)

// DiagnoseBoot gathers a BootReport for a domain. consoleRead is how long a
// console stream is read when the console output is not in a file. It never
// changes the domain; it forces no console session away from anybody.
func (d Domain) DiagnoseBoot(ctx context.Context, id string, consoleRead time.Duration) BootReport {
	var rep BootReport
	dom, err := domainRef(id)
	if err != nil {
		rep.StateErr = err
		return rep
	}
	err = d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		state, reason, err := l.DomainGetState(dom, 0)
		rep.State, rep.Reason = DomainStateWords(libvirt.DomainState(state), int(reason))
		return err
	})
	if err != nil {
		rep.StateErr = err
		rep.State, rep.Reason = "", ""
	}

	live, err := d.LiveDefinition(ctx, id)
	if err != nil {
		err = fmt.Errorf("reading the domain's definition: %w", err)
		rep.Console.Err, rep.Agent.Err = err, err
		return rep
	}
	rep.Console = d.consoleTail(ctx, dom, live, consoleRead)
	rep.Networks = interfaceLeases(ctx, d.c, live)
	rep.Agent = d.agentStatus(ctx, dom, live)
	return rep
}

// consoleFile is the file the first serial port (or console) writes to: its
// <log file=...> or the path of a file-backed serial port.
func consoleFile(live *libvirtxml.Domain) string {
	if live.Devices == nil {
		return ""
	}
	for _, s := range live.Devices.Serials {
		if s.Log != nil && s.Log.File != "" {
			return s.Log.File
		}
		if s.Source != nil && s.Source.File != nil && s.Source.File.Path != "" {
			return s.Source.File.Path
		}
	}
	for _, c := range live.Devices.Consoles {
		if c.Log != nil && c.Log.File != "" {
			return c.Log.File
		}
		if c.Source != nil && c.Source.File != nil && c.Source.File.Path != "" {
			return c.Source.File.Path
		}
	}
	return ""
}

// hasPTYConsole reports whether the domain has a serial port or console
// libvirt can stream (a pty).
func hasPTYConsole(live *libvirtxml.Domain) bool {
	if live.Devices == nil {
		return false
	}
	for _, s := range live.Devices.Serials {
		if s.Source == nil || s.Source.Pty != nil {
			return true
		}
	}
	for _, c := range live.Devices.Consoles {
		if c.Source == nil || c.Source.Pty != nil {
			return true
		}
	}
	return false
}

func (d Domain) consoleTail(ctx context.Context, dom libvirt.Domain, live *libvirtxml.Domain, read time.Duration) ConsoleTail {
	src := consoleSource{
		file:  consoleFile(live),
		local: d.c.Endpoint().Transport == libvirtconn.TransportUnix,
		pty:   hasPTYConsole(live),
		host:  d.c.Host(),
		read:  read,
	}
	return src.tail(fileTail, func() ([]byte, error) { return d.streamConsole(ctx, dom, read) })
}

// consoleSource is what decides where the console's last lines come from.
type consoleSource struct {
	file  string // the log file or file source of the serial port, if any
	local bool   // libvirtd runs on this machine: its files are readable here
	pty   bool   // the domain has a pty console that can be streamed
	host  string // the libvirt host, for messages
	read  time.Duration
}

// tail reads the file when it is on this machine, else (or when reading it
// fails) streams the pty console.
func (s consoleSource) tail(readFile func(string) ([]string, error), stream func() ([]byte, error)) ConsoleTail {
	var fileErr error
	if s.file != "" && s.local {
		lines, err := readFile(s.file)
		if err == nil || !s.pty {
			return ConsoleTail{Source: "file " + s.file, Lines: lines, Err: err}
		}
		fileErr = err // virtlogd writes serial logs root-only: read the pty instead
	}
	if !s.pty {
		if s.file != "" {
			return ConsoleTail{Source: "file " + s.file, Err: fmt.Errorf("the file is on the libvirt host %s; read it there", s.host)}
		}
		return ConsoleTail{}
	}
	tail := ConsoleTail{Source: fmt.Sprintf("console stream (%s)", s.read)}
	switch {
	case fileErr != nil:
		tail.Source = fmt.Sprintf("console stream (%s); the log file is not readable here: %v", s.read, fileErr)
	case s.file != "":
		tail.Source = fmt.Sprintf("console stream (%s); the full log is %s on the libvirt host %s", s.read, s.file, s.host)
	}
	out, err := stream()
	tail.Lines, tail.Err = lastLines(out, consoleTailLines), err
	return tail
}

// fileTail reads the last lines of a console log on this machine.
func fileTail(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > consoleTailBytes {
		if _, err := f.Seek(st.Size()-consoleTailBytes, io.SeekStart); err != nil {
			return nil, err
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return lastLines(data, consoleTailLines), nil
}

// lockedBuffer collects a console stream written by go-libvirt's reader
// goroutine while the caller waits.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > consoleTailBytes {
		b.buf.Next(b.buf.Len() - consoleTailBytes/2) // keep the end
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}

// streamConsole reads the console for a while on a connection of its own
// (the stream would otherwise hold up the shared connection), then closes
// that connection, which is the only way to end a go-libvirt stream. A pty
// has no history: only what the guest prints during the read is seen. The
// console is opened without force, so a user's `virsh console` is left alone
// (and the stream fails with libvirt's "active console session" error).
func (d Domain) streamConsole(ctx context.Context, dom libvirt.Domain, read time.Duration) ([]byte, error) {
	l, err := d.c.Dedicated(ctx)
	if err != nil {
		return nil, err
	}
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- l.DomainOpenConsole(dom, nil, &out, 0) }()
	select {
	case err = <-done: // the stream ended (or failed) before the time was up
	case <-time.After(read):
	case <-ctx.Done():
	}
	_ = l.Disconnect()
	if err != nil {
		return out.Bytes(), fmt.Errorf("reading the console: %w", err)
	}
	return out.Bytes(), nil
}

// ansiEscape matches terminal control sequences a console prints (colours,
// cursor moves): they mean nothing in an error message.
var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]`)

// lastLines is the last n non-blank lines of console output, without
// terminal escapes and carriage returns.
func lastLines(data []byte, n int) []string {
	text := ansiEscape.ReplaceAllString(string(data), "")
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r \t")
		if i := strings.LastIndexByte(line, '\r'); i >= 0 {
			line = line[i+1:] // what a terminal shows after a carriage return
		}
		line = strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' {
				return -1
			}
			return r
		}, line)
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// interfaceLeases lists, per interface, the leases of the libvirt network it
// is plugged into.
func interfaceLeases(ctx context.Context, c *libvirtconn.Client, live *libvirtxml.Domain) []InterfaceLeases {
	if live.Devices == nil {
		return nil
	}
	byNetwork := map[string]InterfaceLeases{} // leases read once per network
	var out []InterfaceLeases
	for _, iface := range live.Devices.Interfaces {
		il := InterfaceLeases{}
		if iface.MAC != nil {
			il.MAC = strings.ToLower(iface.MAC.Address)
		}
		src := iface.Source
		switch {
		case src != nil && src.Network != nil:
			il.Type, il.Network = "network", src.Network.Network
		case src != nil && src.Bridge != nil:
			il.Type, il.Network = "bridge", src.Bridge.Bridge
		case src != nil && src.Direct != nil:
			il.Type, il.Network = "direct", src.Direct.Dev
		case src != nil && src.User != nil:
			il.Type = "user"
		default:
			il.Type = "other"
		}
		if il.Type == "network" {
			known, ok := byNetwork[il.Network]
			if !ok {
				known.Leases, known.Err = networkLeases(ctx, c, il.Network)
				byNetwork[il.Network] = known
			}
			il.Leases, il.Err = known.Leases, known.Err
		}
		out = append(out, il)
	}
	return out
}

func networkLeases(ctx context.Context, c *libvirtconn.Client, name string) ([]Lease, error) {
	var raw []libvirt.NetworkDhcpLease
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		net, err := l.NetworkLookupByName(name)
		if err != nil {
			return err
		}
		raw, _, err = l.NetworkGetDhcpLeases(net, nil, 1, 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	leases := make([]Lease, 0, len(raw))
	for _, r := range raw {
		lease := Lease{IP: r.Ipaddr, Prefix: r.Prefix, Expires: time.Unix(r.Expirytime, 0)}
		if len(r.Mac) > 0 {
			lease.MAC = strings.ToLower(r.Mac[0])
		}
		if len(r.Hostname) > 0 {
			lease.Hostname = r.Hostname[0]
		}
		leases = append(leases, lease)
	}
	return leases, nil
}

// agentStatus pings the guest agent when the domain has its channel.
func (d Domain) agentStatus(ctx context.Context, dom libvirt.Domain, live *libvirtxml.Domain) AgentStatus {
	var st AgentStatus
	if live.Devices != nil {
		for _, ch := range live.Devices.Channels {
			if ch.Target != nil && ch.Target.VirtIO != nil && ch.Target.VirtIO.Name == guestAgentChannel {
				st.Channel, st.ChannelState = true, ch.Target.VirtIO.State
			}
		}
	}
	if !st.Channel {
		return st
	}
	err := d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		_, err := l.QEMUDomainAgentCommand(dom, `{"execute":"guest-ping"}`, 2, 0)
		return err
	})
	st.Answered, st.Err = err == nil, err
	return st
}

// DomainStateWords names a domain state and its reason as virsh domstate
// --reason does.
func DomainStateWords(state libvirt.DomainState, reason int) (string, string) {
	name, ok := stateNames[state]
	if !ok {
		name = fmt.Sprintf("state %d", state)
	}
	reasons := stateReasons[state]
	if reason >= 0 && reason < len(reasons) {
		return name, reasons[reason]
	}
	return name, fmt.Sprintf("reason %d", reason)
}

var stateNames = map[libvirt.DomainState]string{
	libvirt.DomainNostate:     "no state",
	libvirt.DomainRunning:     "running",
	libvirt.DomainBlocked:     "blocked",
	libvirt.DomainPaused:      "paused",
	libvirt.DomainShutdown:    "in shutdown",
	libvirt.DomainShutoff:     "shut off",
	libvirt.DomainCrashed:     "crashed",
	libvirt.DomainPmsuspended: "pmsuspended",
}

// stateReasons lists libvirt's reason codes of each state, in code order
// (virDomainRunningReason, virDomainPausedReason, ...).
var stateReasons = map[libvirt.DomainState][]string{
	libvirt.DomainNostate: {"unknown"},
	libvirt.DomainRunning: {"unknown", "booted", "migrated", "restored", "from snapshot", "unpaused",
		"migration canceled", "save canceled", "event wakeup", "crashed", "post-copy"},
	libvirt.DomainBlocked: {"unknown"},
	libvirt.DomainPaused: {"unknown", "user", "migrating", "saving", "dumping", "I/O error", "watchdog",
		"from snapshot", "shutting down", "creating snapshot", "crashed", "starting up", "post-copy", "post-copy failed"},
	libvirt.DomainShutdown: {"unknown", "user"},
	libvirt.DomainShutoff: {"unknown", "shutdown", "destroyed", "crashed", "migrated", "saved", "failed",
		"from snapshot", "daemon"},
	libvirt.DomainCrashed:     {"unknown", "panicked"},
	libvirt.DomainPmsuspended: {"unknown"},
}
