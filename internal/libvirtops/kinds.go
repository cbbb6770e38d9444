package libvirtops

import (
	"context"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// byUUID is what the adapters of objects libvirt addresses by UUID
// (domains, networks, pools, network filters) share: the connection, and
// the look-up of an import ID or of a data source's arguments.
type byUUID struct {
	c      *libvirtconn.Client
	lookup uuidLookup
}

// LookUp resolves an import ID (UUID or name) to the object's UUID.
func (k byUUID) LookUp(ctx context.Context, importID string) (string, error) {
	return k.lookup.importID(ctx, k.c, importID)
}

// Find resolves a data source's `uuid` or `name` to the object's UUID.
func (k byUUID) Find(ctx context.Context, by map[string]string) (string, error) {
	return k.lookup.find(ctx, k.c, by)
}

// refByUUID parses id into a reference to a libvirt object of kind R: its
// UUID is all libvirt needs to address it.
func refByUUID[R any](id string, ref func(libvirt.UUID) R) (R, error) {
	u, err := ParseUUID(id)
	if err != nil {
		var none R
		return none, err
	}
	return ref(u), nil
}

// xmlDocument is a libvirtxml document (*libvirtxml.Secret, ...).
type xmlDocument[D any] interface {
	*D
	Unmarshal(string) error
}

// fetchXML reads an object's XML with get and parses it into a document;
// what names the kind in the error of a document libvirt wrote and
// libvirtxml cannot read.
func fetchXML[D any, P xmlDocument[D]](ctx context.Context, c *libvirtconn.Client, what string, get func(*libvirt.Libvirt) (string, error)) (*D, error) {
	var xml string
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		xml, err = get(l)
		return err
	})
	if err != nil {
		return nil, err
	}
	doc := new(D)
	if err := P(doc).Unmarshal(xml); err != nil {
		return nil, fmt.Errorf("parsing %s XML: %w", what, err)
	}
	return doc, nil
}

// The look-ups of the kinds addressed by UUID or name.
var (
	domainLookup = lookupBy((*libvirt.Libvirt).DomainLookupByUUID, (*libvirt.Libvirt).DomainLookupByName,
		func(o libvirt.Domain) libvirt.UUID { return o.UUID })
	networkLookup = lookupBy((*libvirt.Libvirt).NetworkLookupByUUID, (*libvirt.Libvirt).NetworkLookupByName,
		func(o libvirt.Network) libvirt.UUID { return o.UUID })
	poolLookup = lookupBy((*libvirt.Libvirt).StoragePoolLookupByUUID, (*libvirt.Libvirt).StoragePoolLookupByName,
		func(o libvirt.StoragePool) libvirt.UUID { return o.UUID })
	nwfilterLookup = lookupBy((*libvirt.Libvirt).NwfilterLookupByUUID, (*libvirt.Libvirt).NwfilterLookupByName,
		func(o libvirt.Nwfilter) libvirt.UUID { return o.UUID })
)

// References by UUID, one a kind (libvirt needs nothing else to address
// these objects).
func domainRef(id string) (libvirt.Domain, error) {
	return refByUUID(id, func(u libvirt.UUID) libvirt.Domain { return libvirt.Domain{UUID: u} })
}

func networkRef(id string) (libvirt.Network, error) {
	return refByUUID(id, func(u libvirt.UUID) libvirt.Network { return libvirt.Network{UUID: u} })
}

func poolRef(id string) (libvirt.StoragePool, error) {
	return refByUUID(id, func(u libvirt.UUID) libvirt.StoragePool { return libvirt.StoragePool{UUID: u} })
}

func nwfilterRef(id string) (libvirt.Nwfilter, error) {
	return refByUUID(id, func(u libvirt.UUID) libvirt.Nwfilter { return libvirt.Nwfilter{UUID: u} })
}

func secretRef(id string) (libvirt.Secret, error) {
	return refByUUID(id, func(u libvirt.UUID) libvirt.Secret { return libvirt.Secret{UUID: u} })
}

// addressesByName reports whether c's driver finds networks and pools by
// name only: libvirt's test driver (test:///...).
func addressesByName(c *libvirtconn.Client) bool {
	return strings.HasPrefix(c.URI(), "test:")
}

// named completes a reference by UUID with the network's name where the
// driver addresses networks by name (the test driver); the qemu host's
// network driver finds them by UUID, so Read pays no extra round trip there.
func (n Network) named(l *libvirt.Libvirt, net libvirt.Network) (libvirt.Network, error) {
	if net.Name != "" || !addressesByName(n.c) {
		return net, nil
	}
	return l.NetworkLookupByUUID(net.UUID)
}

// named completes a reference by UUID with the pool's name where the
// driver addresses pools by name (the test driver), as Network.named.
func (p Pool) named(l *libvirt.Libvirt, pool libvirt.StoragePool) (libvirt.StoragePool, error) {
	if pool.Name != "" || !addressesByName(p.c) {
		return pool, nil
	}
	return l.StoragePoolLookupByUUID(pool.UUID)
}
