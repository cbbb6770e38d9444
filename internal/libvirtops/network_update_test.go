package libvirtops

import (
	"strings"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops/opstest"
)

// Unit tests of the live network update operations (no libvirtd).

func opSummary(ops []networkUpdateOp) []string {
	var out []string
	for _, op := range ops {
		verb := map[libvirt.NetworkUpdateCommand]string{
			libvirt.NetworkUpdateCommandAddLast: "add", libvirt.NetworkUpdateCommandDelete: "delete",
			libvirt.NetworkUpdateCommandModify: "modify",
		}[op.command]
		out = append(out, verb+" "+op.xml)
	}
	return out
}

func TestNetworkLiveOps(t *testing.T) {
	cases := map[string]struct {
		change func(*libvirtxml.Network)
		want   []string
	}{
		"add host": {
			change: func(d *libvirtxml.Network) {
				d.IPs[0].DHCP.Hosts = append(d.IPs[0].DHCP.Hosts, libvirtxml.NetworkDHCPHost{MAC: "52:54:00:00:00:0c", IP: "10.9.0.12", Name: "c"})
			},
			want: []string{`add <host mac="52:54:00:00:00:0c" name="c" ip="10.9.0.12"></host>`},
		},
		"change host ip: modify": {
			change: func(d *libvirtxml.Network) { d.IPs[0].DHCP.Hosts[1].IP = "10.9.0.21" },
			want:   []string{`modify <host mac="52:54:00:00:00:0b" name="b" ip="10.9.0.21"></host>`},
		},
		"swap ips: each modify hits its own host first": {
			change: func(d *libvirtxml.Network) {
				d.IPs[0].DHCP.Hosts[0].IP, d.IPs[0].DHCP.Hosts[1].IP = "10.9.0.11", "10.9.0.10"
			},
			want: []string{
				`modify <host mac="52:54:00:00:00:0a" name="a" ip="10.9.0.11"></host>`,
				`modify <host mac="52:54:00:00:00:0b" name="b" ip="10.9.0.10"></host>`,
			},
		},
		"new host takes a renamed host's name: rename first, then add": {
			change: func(d *libvirtxml.Network) {
				d.IPs[0].DHCP.Hosts = []libvirtxml.NetworkDHCPHost{
					{MAC: "52:54:00:00:00:0c", IP: "10.9.0.12", Name: "a"},
					{MAC: "52:54:00:00:00:0a", IP: "10.9.0.10", Name: "a2"},
					{MAC: "52:54:00:00:00:0b", IP: "10.9.0.11", Name: "b"},
				}
			},
			want: []string{
				`modify <host mac="52:54:00:00:00:0a" name="a2" ip="10.9.0.10"></host>`,
				`add <host mac="52:54:00:00:00:0c" name="a" ip="10.9.0.12"></host>`,
			},
		},
		"remove host, change dns host": {
			change: func(d *libvirtxml.Network) {
				d.IPs[0].DHCP.Hosts = d.IPs[0].DHCP.Hosts[1:]
				d.DNS.Host[0].Hostnames[0].Hostname = "a2"
			},
			want: []string{
				`delete <host ip="10.9.0.10"></host>`,
				`add <host ip="10.9.0.10"><hostname>a2</hostname></host>`,
				`delete <host mac="52:54:00:00:00:0a" name="a" ip="10.9.0.10"></host>`,
			},
		},
		"DHCPv6 host by id changes address: delete and add (modify would miss it)": {
			change: func(d *libvirtxml.Network) {
				d.IPs = append(d.IPs, libvirtxml.NetworkIP{Family: "ipv6", Address: "fd00::1", Prefix: 64,
					DHCP: &libvirtxml.NetworkDHCP{Hosts: []libvirtxml.NetworkDHCPHost{{ID: "0:3:0:1:0:16:3e:11:22:33", IP: "fd00::20"}}}})
			},
			want: []string{`delete <host id="0:3:0:1:0:16:3e:11:22:33" ip="fd00::10"></host>`, `add <host id="0:3:0:1:0:16:3e:11:22:33" ip="fd00::20"></host>`},
		},
		"mac case only": {
			change: func(d *libvirtxml.Network) { d.IPs[0].DHCP.Hosts[0].MAC = "52:54:00:00:00:0A" },
			want:   nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			doc := opstest.NetworkDoc()
			tc.change(doc)
			old := opstest.NetworkDoc()
			if len(doc.IPs) > 1 {
				old.IPs = append(old.IPs, doc.IPs[1])
				old.IPs[1].DHCP = &libvirtxml.NetworkDHCP{Hosts: []libvirtxml.NetworkDHCPHost{{ID: "0:3:0:1:0:16:3e:11:22:33", IP: "fd00::10"}}}
			}
			ops, err := networkLiveOps(old, doc)
			if err != nil {
				t.Fatal(err)
			}
			got := opSummary(ops)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("ops:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for _, op := range ops {
				if op.section == libvirt.NetworkSectionIPDhcpHost && networkIPIndex(doc, op.ipAddress) < 0 {
					t.Errorf("op %q: parent ip %q not found", op.what, op.ipAddress)
				}
			}
		})
	}
}

// Two reservations for one MAC, IP or name: refused before any change.
func TestNetworkLiveOpsDuplicate(t *testing.T) {
	doc := opstest.NetworkDoc()
	doc.IPs[0].DHCP.Hosts[1].IP = "10.9.0.10"
	_, err := networkLiveOps(opstest.NetworkDoc(), doc)
	if err == nil || !strings.Contains(err.Error(), "10.9.0.10") || !strings.Contains(err.Error(), "ips[0].dhcp.hosts") {
		t.Fatalf("err = %v, want a duplicate-IP error naming ips[0].dhcp.hosts and 10.9.0.10", err)
	}
}

func TestDomainUsesNetwork(t *testing.T) {
	doc := &libvirtxml.Domain{Devices: &libvirtxml.DomainDeviceList{Interfaces: []libvirtxml.DomainInterface{
		{Source: &libvirtxml.DomainInterfaceSource{Network: &libvirtxml.DomainInterfaceSourceNetwork{Network: "other"}}},
		{Source: &libvirtxml.DomainInterfaceSource{Bridge: &libvirtxml.DomainInterfaceSourceBridge{Bridge: "virbr7"}}},
	}}}
	if domainUsesNetwork(doc, "mine", "virbr9") {
		t.Error("a domain on other networks uses mine")
	}
	if !domainUsesNetwork(doc, "other", "") {
		t.Error("source network not detected")
	}
	if !domainUsesNetwork(doc, "mine", "virbr7") {
		t.Error("interface on the network's bridge not detected")
	}
}
