package libvirtops

import (
	"fmt"
	"sort"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// domainsUsingNetwork lists the running domains with an interface on the
// network called name (source network), or on its bridge. Destroying the
// network under them would cut them off, so Delete refuses.
func domainsUsingNetwork(l *libvirt.Libvirt, name, bridge string) ([]string, error) {
	doms, _, err := l.ConnectListAllDomains(1, libvirt.ConnectListDomainsActive)
	if err != nil {
		return nil, fmt.Errorf("listing running domains: %w", err)
	}
	var users []string
	for _, d := range doms {
		x, err := l.DomainGetXMLDesc(d, 0)
		if libvirtconn.IsNotFound(err) {
			continue // stopped meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("reading domain %q: %w", d.Name, err)
		}
		var doc libvirtxml.Domain
		if err := doc.Unmarshal(x); err != nil {
			return nil, fmt.Errorf("parsing domain %q: %w", d.Name, err)
		}
		if domainUsesNetwork(&doc, name, bridge) {
			users = append(users, d.Name)
		}
	}
	sort.Strings(users)
	return users, nil
}

func domainUsesNetwork(doc *libvirtxml.Domain, name, bridge string) bool {
	if doc.Devices == nil {
		return false
	}
	for _, iface := range doc.Devices.Interfaces {
		src := iface.Source
		if src == nil {
			continue
		}
		if src.Network != nil && src.Network.Network == name {
			return true
		}
		if bridge != "" && src.Bridge != nil && src.Bridge.Bridge == bridge {
			return true
		}
	}
	return false
}
