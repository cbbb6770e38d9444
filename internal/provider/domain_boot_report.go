package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

// bootReportTimeout bounds the whole diagnosis after a timed-out address
// wait; bootReportConsoleRead is how long a console without a log file is
// read live.
const (
	bootReportTimeout     = 20 * time.Second
	bootReportConsoleRead = 3 * time.Second
)

// diagnoseBoot reads what the domain showed, on a context of its own: the
// wait that gave up may have used up the caller's deadline, and the user
// should get the report all the same.
func diagnoseBoot(ctx context.Context, c *libvirtconn.Client, uuid string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bootReportTimeout)
	defer cancel()
	return formatBootReport(libvirtops.Domains(c).DiagnoseBoot(ctx, uuid, bootReportConsoleRead))
}

// formatBootReport writes a BootReport for an error message: the state, the
// end of the serial console, the leases of each interface's network and
// whether the guest agent answered, then where to read on.
func formatBootReport(r libvirtops.BootReport) string {
	var b strings.Builder
	b.WriteString("What the domain showed:\n")

	switch {
	case r.StateErr != nil:
		fmt.Fprintf(&b, "  domain state: unknown (%v)\n", r.StateErr)
	default:
		fmt.Fprintf(&b, "  domain state: %s (%s)\n", r.State, r.Reason)
	}

	c := r.Console
	switch {
	case c.Source == "" && c.Err == nil:
		b.WriteString("  serial console: the domain has none (add a serial port with a log file to see the boot messages here)\n")
	case c.Err != nil && len(c.Lines) == 0:
		fmt.Fprintf(&b, "  serial console (%s): not readable: %v\n", c.Source, c.Err)
	case len(c.Lines) == 0:
		fmt.Fprintf(&b, "  serial console (%s): no output\n", c.Source)
	default:
		fmt.Fprintf(&b, "  serial console (%s), last %d lines:\n", c.Source, len(c.Lines))
		for _, line := range c.Lines {
			b.WriteString("    | " + line + "\n")
		}
		if c.Err != nil {
			fmt.Fprintf(&b, "    (then: %v)\n", c.Err)
		}
	}

	if len(r.Networks) == 0 {
		b.WriteString("  network interfaces: none\n")
	}
	for _, n := range r.Networks {
		b.WriteString("  " + formatInterfaceLeases(n) + "\n")
	}

	a := r.Agent
	switch {
	case !a.Channel:
		b.WriteString("  guest agent: no org.qemu.guest_agent.0 channel in the domain\n")
	case a.Answered:
		fmt.Fprintf(&b, "  guest agent: answered guest-ping (channel %s)\n", orUnknown(a.ChannelState))
	default:
		fmt.Fprintf(&b, "  guest agent: did not answer (channel %s): %v\n", orUnknown(a.ChannelState), a.Err)
	}
	b.WriteString(`See the guide "My VM never got an IP" (docs/guides/troubleshooting-no-ip.md) for what each finding means.`)
	return b.String()
}

func formatInterfaceLeases(n libvirtops.InterfaceLeases) string {
	mac := orUnknown(n.MAC)
	switch {
	case n.Type != "network":
		where := ""
		if n.Network != "" {
			where = " " + n.Network
		}
		return fmt.Sprintf("interface %s (type %s%s): no libvirt network, so no DHCP leases libvirt knows of", mac, n.Type, where)
	case n.Err != nil:
		return fmt.Sprintf("interface %s on network %q: leases not readable: %v", mac, n.Network, n.Err)
	}
	var own, others []string
	for _, l := range n.Leases {
		s := fmt.Sprintf("%s/%d", l.IP, l.Prefix)
		if l.Hostname != "" {
			s += " (" + l.Hostname + ")"
		}
		if strings.EqualFold(l.MAC, n.MAC) {
			own = append(own, s)
		} else {
			others = append(others, l.MAC+" "+s)
		}
	}
	if len(own) > 0 {
		return fmt.Sprintf("DHCP leases of network %q: MAC %s has %s", n.Network, mac, strings.Join(own, ", "))
	}
	if len(others) == 0 {
		return fmt.Sprintf("DHCP leases of network %q: none at all, none for MAC %s", n.Network, mac)
	}
	const shown = 5
	more := ""
	if len(others) > shown {
		more = fmt.Sprintf(" and %d more", len(others)-shown)
		others = others[:shown]
	}
	return fmt.Sprintf("DHCP leases of network %q: none for MAC %s (%d for other MACs: %s%s)",
		n.Network, mac, len(n.Leases), strings.Join(others, "; "), more)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
