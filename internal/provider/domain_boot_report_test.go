package provider

import (
	"errors"
	"strings"
	"testing"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

func TestFormatBootReport(t *testing.T) {
	panicked := libvirtops.BootReport{
		State: "running", Reason: "booted",
		Console: libvirtops.ConsoleTail{Source: "file /var/log/vm.log", Lines: []string{
			"[    1.9] VFS: Cannot open root device \"nonexistent\" or unknown-block(0,0): error -6",
			"[    1.9] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
		}},
		Networks: []libvirtops.InterfaceLeases{
			{MAC: "52:54:00:00:00:01", Type: "network", Network: "default", Leases: []libvirtops.Lease{
				{MAC: "52:54:00:00:00:99", IP: "192.168.122.50", Prefix: 24, Hostname: "other"},
			}},
			{MAC: "52:54:00:00:00:02", Type: "bridge", Network: "br0"},
		},
		Agent: libvirtops.AgentStatus{Channel: true, ChannelState: "disconnected", Err: errors.New("Guest agent is not responding")},
	}
	leased := libvirtops.BootReport{
		StateErr: errors.New("connection lost"),
		Console:  libvirtops.ConsoleTail{Source: "console stream (3s)"},
		Networks: []libvirtops.InterfaceLeases{{MAC: "52:54:00:00:00:01", Type: "network", Network: "default", Leases: []libvirtops.Lease{
			{MAC: "52:54:00:00:00:01", IP: "192.168.122.7", Prefix: 24, Hostname: "vm"},
		}}},
		Agent: libvirtops.AgentStatus{Channel: true, ChannelState: "connected", Answered: true},
	}
	bare := libvirtops.BootReport{
		State: "shut off", Reason: "crashed",
		Networks: []libvirtops.InterfaceLeases{{MAC: "52:54:00:00:00:01", Type: "network", Network: "gone", Err: errors.New("Network not found")}},
	}
	var many []libvirtops.Lease
	for i := range 8 {
		many = append(many, libvirtops.Lease{MAC: "52:54:00:00:01:0" + string(rune('0'+i)), IP: "10.0.0.1", Prefix: 24})
	}
	crowded := libvirtops.BootReport{State: "running", Reason: "booted",
		Console:  libvirtops.ConsoleTail{Source: "file /x.log", Err: errors.New("open /x.log: permission denied")},
		Networks: []libvirtops.InterfaceLeases{{MAC: "52:54:00:00:00:01", Type: "network", Network: "busy", Leases: many}},
	}

	for _, tc := range []struct {
		name   string
		report libvirtops.BootReport
		want   []string
	}{
		{"panicked kernel, lease for another MAC, agent silent", panicked, []string{
			"What the domain showed:\n",
			"  domain state: running (booted)\n",
			"  serial console (file /var/log/vm.log), last 2 lines:\n" +
				"    | [    1.9] VFS: Cannot open root device \"nonexistent\" or unknown-block(0,0): error -6\n" +
				"    | [    1.9] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)\n",
			`  DHCP leases of network "default": none for MAC 52:54:00:00:00:01 (1 for other MACs: 52:54:00:00:00:99 192.168.122.50/24 (other))` + "\n",
			"  interface 52:54:00:00:00:02 (type bridge br0): no libvirt network, so no DHCP leases libvirt knows of\n",
			"  guest agent: did not answer (channel disconnected): Guest agent is not responding\n",
			"troubleshooting-no-ip.md",
		}},
		{"leased, agent answered, silent stream, state unreadable", leased, []string{
			"  domain state: unknown (connection lost)\n",
			"  serial console (console stream (3s)): no output\n",
			`  DHCP leases of network "default": MAC 52:54:00:00:00:01 has 192.168.122.7/24 (vm)` + "\n",
			"  guest agent: answered guest-ping (channel connected)\n",
		}},
		{"no console, leases unreadable, no agent channel", bare, []string{
			"  domain state: shut off (crashed)\n",
			"  serial console: the domain has none (add a serial port with a log file to see the boot messages here)\n",
			`  interface 52:54:00:00:00:01 on network "gone": leases not readable: Network not found` + "\n",
			"  guest agent: no org.qemu.guest_agent.0 channel in the domain\n",
		}},
		{"unreadable log file, many leases of others", crowded, []string{
			"  serial console (file /x.log): not readable: open /x.log: permission denied\n",
			"none for MAC 52:54:00:00:00:01 (8 for other MACs: 52:54:00:00:01:00 10.0.0.1/24; ",
			"52:54:00:00:01:04 10.0.0.1/24 and 3 more)\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := formatBootReport(tc.report)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("report lacks %q:\n%s", w, got)
				}
			}
		})
	}
}
