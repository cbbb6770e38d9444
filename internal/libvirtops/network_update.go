package libvirtops

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"
)

// Live network updates: DHCP host reservations and DNS host entries change
// through virNetworkUpdate on the running network (and its persistent
// definition) without a restart, so guests keep their connectivity.

// networkUpdateOp is one virNetworkUpdate call.
type networkUpdateOp struct {
	command libvirt.NetworkUpdateCommand
	section libvirt.NetworkUpdateSection
	// ipAddress names the <ip> element a DHCP host belongs to; the parent
	// index is looked up in the live definition right before the call.
	ipAddress string
	xml       string
	what      string // for error messages: "add DHCP host 52:54:00:..."
}

// networkUpdateFlags applies an update to the running network and to its
// persistent definition alike.
const networkUpdateFlags = libvirt.NetworkUpdateAffectLive | libvirt.NetworkUpdateAffectConfig

// applyNetworkUpdate runs op against net, whose current definition is live.
// flags is networkUpdateFlags for a running network.
//
// The command/section order: libvirt's public C API is
// virNetworkUpdate(net, command, section, ...), and libvirt-network.c hands
// them to the driver swapped (section, command); the RPC struct in
// remote_protocol.x declares (command, section). go-libvirt encodes that
// struct directly, so the arguments go in the documented order
// (command, section). Verified against libvirt 9.0: the documented order adds
// the host; the swapped order fails with "can't update 'ip' section" (the
// daemon read add-last=3 as section IP=3). TestAccNetwork_liveHosts proves
// add, modify and delete this way.
func applyNetworkUpdate(l *libvirt.Libvirt, net libvirt.Network, live *libvirtxml.Network, op networkUpdateOp, flags libvirt.NetworkUpdateFlags) error {
	parent := int32(-1)
	if op.section == libvirt.NetworkSectionIPDhcpHost {
		parent = networkIPIndex(live, op.ipAddress)
		if parent < 0 {
			return fmt.Errorf("%s: the network has no <ip address=%q>", op.what, op.ipAddress)
		}
	}
	if err := l.NetworkUpdate(net, uint32(op.command), uint32(op.section), parent, op.xml, flags); err != nil {
		return fmt.Errorf("%s: %w", op.what, err)
	}
	return nil
}

// networkIPIndex is the position of the <ip> element with address addr among all
// <ip> elements (libvirt's parentIndex counts every family), or -1.
func networkIPIndex(doc *libvirtxml.Network, addr string) int32 {
	for i, ip := range doc.IPs {
		if ip.Address == addr {
			return int32(i)
		}
	}
	return -1
}

// networkLiveOps lists the updates that turn old's DHCP hosts and DNS hosts
// into new's. The caller has checked that nothing else differs. Deletions go
// first, so a reservation can move from one host to another in one apply.
func networkLiveOps(old, new *libvirtxml.Network) ([]networkUpdateOp, error) {
	var ops []networkUpdateOp
	dnsOps, err := dnsHostOps(NetworkDNSHosts(old), NetworkDNSHosts(new))
	if err != nil {
		return nil, err
	}
	ops = append(ops, dnsOps...)
	for i := range new.IPs {
		if i >= len(old.IPs) || old.IPs[i].Address != new.IPs[i].Address {
			return nil, fmt.Errorf("ips[%d] changed: a live update cannot apply it", i)
		}
		if err := dhcpHostsUnique(i, NetworkDHCPHosts(&new.IPs[i])); err != nil {
			return nil, err
		}
		hostOps, err := dhcpHostOps(new.IPs[i].Address, NetworkDHCPHosts(&old.IPs[i]), NetworkDHCPHosts(&new.IPs[i]))
		if err != nil {
			return nil, err
		}
		ops = append(ops, hostOps...)
	}
	return ops, nil
}

// dhcpHostsUnique refuses two reservations with one MAC, IP or name: libvirt
// would apply a "modify" to the wrong entry or reject the "add" halfway.
func dhcpHostsUnique(ipIdx int, hosts []libvirtxml.NetworkDHCPHost) error {
	seen := map[string]int{}
	for j, h := range hosts {
		for _, k := range []string{"mac " + strings.ToLower(h.MAC), "ip " + h.IP, "name " + h.Name} {
			if strings.HasSuffix(k, " ") {
				continue
			}
			if first, dup := seen[k]; dup {
				return fmt.Errorf("ips[%d].dhcp.hosts[%d] and [%d] have the same %s: each reservation needs its own MAC, IP and name", ipIdx, first, j, k)
			}
			seen[k] = j
		}
	}
	return nil
}

// NetworkDNSHosts are the network's DNS host entries (none without <dns>).
func NetworkDNSHosts(doc *libvirtxml.Network) []libvirtxml.NetworkDNSHost {
	if doc.DNS == nil {
		return nil
	}
	return doc.DNS.Host
}

// NetworkDHCPHosts are the DHCP reservations of one <ip> (none without <dhcp>).
func NetworkDHCPHosts(ip *libvirtxml.NetworkIP) []libvirtxml.NetworkDHCPHost {
	if ip.DHCP == nil {
		return nil
	}
	return ip.DHCP.Hosts
}

// dhcpHostKey identifies a reservation: by MAC (IPv4), else by DHCPv6 id or name.
func dhcpHostKey(h libvirtxml.NetworkDHCPHost) string {
	switch {
	case h.MAC != "":
		return "mac:" + strings.ToLower(h.MAC)
	case h.ID != "":
		return "id:" + h.ID
	case h.Name != "":
		return "name:" + h.Name
	}
	return "ip:" + h.IP
}

// dhcpHostSame reports whether two reservations with the same key are equal.
func dhcpHostSame(a, b libvirtxml.NetworkDHCPHost) bool {
	ax, _ := xml.Marshal(a)
	bx, _ := xml.Marshal(b)
	return strings.EqualFold(string(ax), string(bx))
}

// dhcpHostMatches is libvirt's rule for which existing entry a "modify" (and
// a conflicting "add") hits: the first whose MAC, IP or name equals h's.
func dhcpHostMatches(h, existing libvirtxml.NetworkDHCPHost) bool {
	return (h.MAC != "" && strings.EqualFold(h.MAC, existing.MAC)) ||
		(h.IP != "" && h.IP == existing.IP) ||
		(h.Name != "" && h.Name == existing.Name)
}

func dhcpHostOps(ipAddr string, old, new []libvirtxml.NetworkDHCPHost) ([]networkUpdateOp, error) {
	newByKey := make(map[string]libvirtxml.NetworkDHCPHost, len(new))
	for _, h := range new {
		newByKey[dhcpHostKey(h)] = h
	}
	oldKeys := make(map[string]bool, len(old))
	var ops []networkUpdateOp
	// current simulates libvirt's list as the operations run
	var current []libvirtxml.NetworkDHCPHost
	op := func(cmd libvirt.NetworkUpdateCommand, h libvirtxml.NetworkDHCPHost, verb string) error {
		b, err := xml.Marshal(h)
		if err != nil {
			return err
		}
		ops = append(ops, networkUpdateOp{
			command: cmd, section: libvirt.NetworkSectionIPDhcpHost, ipAddress: ipAddr, xml: string(b),
			what: fmt.Sprintf("%s DHCP host %s", verb, strings.TrimSpace(string(b))),
		})
		return nil
	}
	for _, h := range old {
		oldKeys[dhcpHostKey(h)] = true
		if _, keep := newByKey[dhcpHostKey(h)]; keep {
			current = append(current, h)
			continue
		}
		if err := op(libvirt.NetworkUpdateCommandDelete, h, "delete"); err != nil {
			return nil, err
		}
	}
	var readd []libvirtxml.NetworkDHCPHost
	for i := 0; i < len(current); i++ {
		o := current[i]
		n := newByKey[dhcpHostKey(o)]
		if dhcpHostSame(o, n) {
			continue
		}
		// modify hits the first entry matching by MAC, IP or name; when that
		// is another entry (two hosts swap addresses), delete and add instead
		first := -1
		for j, e := range current {
			if dhcpHostMatches(n, e) {
				first = j
				break
			}
		}
		if first == i {
			if err := op(libvirt.NetworkUpdateCommandModify, n, "modify"); err != nil {
				return nil, err
			}
			current[i] = n
			continue
		}
		if err := op(libvirt.NetworkUpdateCommandDelete, o, "delete"); err != nil {
			return nil, err
		}
		current = append(current[:i], current[i+1:]...)
		i--
		readd = append(readd, n)
	}
	for _, h := range readd {
		if err := op(libvirt.NetworkUpdateCommandAddLast, h, "add"); err != nil {
			return nil, err
		}
	}
	for _, h := range new {
		if !oldKeys[dhcpHostKey(h)] {
			if err := op(libvirt.NetworkUpdateCommandAddLast, h, "add"); err != nil {
				return nil, err
			}
		}
	}
	return ops, nil
}

// dnsHostOps: libvirt cannot modify a DNS host entry, so a changed entry is
// deleted (by IP alone: libvirt matches a delete on IP or any hostname, and
// an IP matches one entry) and added again.
func dnsHostOps(old, new []libvirtxml.NetworkDNSHost) ([]networkUpdateOp, error) {
	newByIP := make(map[string]libvirtxml.NetworkDNSHost, len(new))
	for _, h := range new {
		newByIP[h.IP] = h
	}
	oldByIP := make(map[string]libvirtxml.NetworkDNSHost, len(old))
	var ops []networkUpdateOp
	for _, h := range old {
		oldByIP[h.IP] = h
		if n, ok := newByIP[h.IP]; ok && dnsHostSame(h, n) {
			continue
		}
		b, err := xml.Marshal(libvirtxml.NetworkDNSHost{IP: h.IP})
		if err != nil {
			return nil, err
		}
		ops = append(ops, networkUpdateOp{
			command: libvirt.NetworkUpdateCommandDelete, section: libvirt.NetworkSectionDNSHost, xml: string(b),
			what: fmt.Sprintf("delete DNS host %s", h.IP),
		})
	}
	for _, h := range new {
		if o, ok := oldByIP[h.IP]; ok && dnsHostSame(o, h) {
			continue
		}
		b, err := xml.Marshal(h)
		if err != nil {
			return nil, err
		}
		ops = append(ops, networkUpdateOp{
			command: libvirt.NetworkUpdateCommandAddLast, section: libvirt.NetworkSectionDNSHost, xml: string(b),
			what: fmt.Sprintf("add DNS host %s", strings.TrimSpace(string(b))),
		})
	}
	return ops, nil
}

func dnsHostSame(a, b libvirtxml.NetworkDNSHost) bool {
	ax, _ := xml.Marshal(a)
	bx, _ := xml.Marshal(b)
	return string(ax) == string(bx)
}
