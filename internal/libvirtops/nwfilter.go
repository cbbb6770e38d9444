package libvirtops

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Nwfilter is the adapter for network filters, addressed by UUID.
type Nwfilter struct{ byUUID }

// Nwfilters returns the network filter adapter on this connection.
func Nwfilters(c *libvirtconn.Client) Nwfilter { return Nwfilter{byUUID{c: c, lookup: nwfilterLookup}} }

// Fetch reads the definition of the filter with this UUID.
func (f Nwfilter) Fetch(ctx context.Context, id string) (*libvirtxml.NWFilter, error) {
	ref, err := nwfilterRef(id)
	if err != nil {
		return nil, err
	}
	return fetchXML[libvirtxml.NWFilter](ctx, f.c, "network filter", func(l *libvirt.Libvirt) (string, error) { return l.NwfilterGetXMLDesc(ref, 0) })
}

// NameTaken returns the UUID of the filter called name, or "" when there is
// none: a create never redefines a filter that is not its own (that would
// change the traffic of every guest using it).
func (f Nwfilter) NameTaken(ctx context.Context, name string) (string, error) {
	var uuid string
	err := f.c.Do(ctx, func(l *libvirt.Libvirt) error {
		existing, err := l.NwfilterLookupByName(name)
		if err == nil {
			uuid = UUIDString(existing.UUID)
			return nil
		}
		if libvirtconn.IsNotFound(err) {
			return nil
		}
		return err
	})
	return uuid, err
}

// Define defines (or redefines, same name and UUID) the filter; libvirt
// re-instantiates the rules of every running guest that uses it. The same
// document defined twice is harmless: the connection may repeat it.
func (f Nwfilter) Define(ctx context.Context, doc *libvirtxml.NWFilter) error {
	xml, err := doc.Marshal()
	if err != nil {
		return fmt.Errorf("writing network filter XML: %w", err)
	}
	return f.c.Do(ctx, func(l *libvirt.Libvirt) error {
		_, err := l.NwfilterDefineXMLFlags(xml, uint32(libvirt.NwfilterDefineValidate))
		return err
	})
}

// Remove undefines the filter: the cleanup after a failed create.
func (f Nwfilter) Remove(ctx context.Context, id string) error {
	ref, err := nwfilterRef(id)
	if err != nil {
		return err
	}
	return f.c.Do(ctx, func(l *libvirt.Libvirt) error { return l.NwfilterUndefine(ref) })
}

// Delete undefines the filter. users are its references found first;
// undefineErr is libvirt's refusal (a running guest uses it), which users
// explain; err is any other failure.
func (f Nwfilter) Delete(ctx context.Context, id string) (users NwfilterUsers, undefineErr, err error) {
	ref, err := nwfilterRef(id)
	if err != nil {
		return users, nil, err
	}
	err = f.c.Do(ctx, func(l *libvirt.Libvirt) error {
		cur, err := l.NwfilterLookupByUUID(ref.UUID)
		if err != nil {
			return err
		}
		if users, err = nwfilterUsersOf(l, cur.Name); err != nil {
			return err
		}
		// libvirt decides what blocks the undefine; its refusal is
		// explained by users, not retried
		undefineErr = l.NwfilterUndefine(cur)
		return nil
	})
	return users, undefineErr, err
}

// Users finds the filters that reference the filter called name, and the
// running domains that use it directly or through them.
func (f Nwfilter) Users(ctx context.Context, name string) (users NwfilterUsers, err error) {
	err = f.c.Do(ctx, func(l *libvirt.Libvirt) error {
		users, err = nwfilterUsersOf(l, name)
		return err
	})
	return users, err
}

// NwfilterUsers are the references to one filter.
type NwfilterUsers struct {
	Name    string
	Filters []string // filters with a <filterref> to it
	// running domains whose interfaces use it, directly or through filters
	// that reference it ("dom (through f)")
	Domains []string
}

// nwfilterUsersOf finds the filters that reference the filter called name,
// and the running domains that use it directly or through them.
func nwfilterUsersOf(l *libvirt.Libvirt, name string) (NwfilterUsers, error) {
	users := NwfilterUsers{Name: name}
	filters, _, err := l.ConnectListAllNwfilters(1, 0)
	if err != nil {
		return users, fmt.Errorf("listing network filters: %w", err)
	}
	refs := map[string][]string{} // filter -> filters it references
	for _, f := range filters {
		x, err := l.NwfilterGetXMLDesc(f, 0)
		if libvirtconn.IsNotFound(err) {
			continue // undefined meanwhile
		}
		if err != nil {
			return users, fmt.Errorf("reading network filter %q: %w", f.Name, err)
		}
		var doc libvirtxml.NWFilter
		if err := doc.Unmarshal(x); err != nil {
			return users, fmt.Errorf("parsing network filter %q: %w", f.Name, err)
		}
		for _, e := range doc.Entries {
			if e.Ref != nil {
				refs[f.Name] = append(refs[f.Name], e.Ref.Filter)
				if e.Ref.Filter == name && !slices.Contains(users.Filters, f.Name) {
					users.Filters = append(users.Filters, f.Name)
				}
			}
		}
	}
	// via[f]: the filter through which f reaches name ("" for name itself)
	via := map[string]string{name: ""}
	for changed := true; changed; {
		changed = false
		for f, targets := range refs {
			if _, done := via[f]; done {
				continue
			}
			for _, t := range targets {
				if _, ok := via[t]; ok {
					via[f], changed = f, true
					break
				}
			}
		}
	}
	doms, _, err := l.ConnectListAllDomains(1, libvirt.ConnectListDomainsActive)
	if err != nil {
		return users, fmt.Errorf("listing running domains: %w", err)
	}
	for _, d := range doms {
		x, err := l.DomainGetXMLDesc(d, 0)
		if libvirtconn.IsNotFound(err) {
			continue // stopped meanwhile
		}
		if err != nil {
			return users, fmt.Errorf("reading domain %q: %w", d.Name, err)
		}
		var doc libvirtxml.Domain
		if err := doc.Unmarshal(x); err != nil {
			return users, fmt.Errorf("parsing domain %q: %w", d.Name, err)
		}
		if doc.Devices == nil {
			continue
		}
		for _, iface := range doc.Devices.Interfaces {
			if iface.FilterRef == nil {
				continue
			}
			if through, ok := via[iface.FilterRef.Filter]; ok {
				if through != "" {
					users.Domains = append(users.Domains, fmt.Sprintf("%s (through filter %s)", d.Name, through))
				} else {
					users.Domains = append(users.Domains, d.Name)
				}
				break
			}
		}
	}
	sort.Strings(users.Filters)
	sort.Strings(users.Domains)
	return users, nil
}
