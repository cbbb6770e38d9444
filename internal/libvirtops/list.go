package libvirtops

import (
	"context"
	"sort"

	"github.com/digitalocean/go-libvirt"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Listed is one object of a host as the listings report it, with what they
// filter on; the resource id is what the resource of its kind stores as id
// (and resolves on import).
type Listed struct {
	// ID is the resource id: a UUID, a volume key, or "DOMAIN-UUID/NAME" for
	// a snapshot.
	ID   string
	Name string
	// Running tells whether a domain runs (or is paused): it has a run-time id.
	Running bool
	// Pool is a volume's pool; Domain a snapshot's domain name.
	Pool, Domain string
}

// sortListed orders a listing by name (and pool or domain), so that the
// results, and configuration generated from them, come in a stable order.
func sortListed(out []Listed) []Listed {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Pool+a.Domain != b.Pool+b.Domain {
			return a.Pool+a.Domain < b.Pool+b.Domain
		}
		return a.Name < b.Name
	})
	return out
}

// ListDomains lists the host's persistent domains (a transient one cannot be
// managed: it has no definition to keep), in one call.
func ListDomains(ctx context.Context, c *libvirtconn.Client) ([]Listed, error) {
	var out []Listed
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		doms, _, err := l.ConnectListAllDomains(1, libvirt.ConnectListDomainsPersistent)
		if err != nil {
			return err
		}
		out = make([]Listed, 0, len(doms))
		for _, d := range doms {
			out = append(out, Listed{ID: UUIDString(d.UUID), Name: d.Name, Running: d.ID > 0})
		}
		return nil
	})
	return sortListed(out), err
}

// ListNetworks lists the host's persistent networks.
func ListNetworks(ctx context.Context, c *libvirtconn.Client) ([]Listed, error) {
	var out []Listed
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		nets, _, err := l.ConnectListAllNetworks(1, libvirt.ConnectListNetworksPersistent)
		if err != nil {
			return err
		}
		out = make([]Listed, 0, len(nets))
		for _, n := range nets {
			out = append(out, Listed{ID: UUIDString(n.UUID), Name: n.Name})
		}
		return nil
	})
	return sortListed(out), err
}

// ListPools lists the host's persistent storage pools.
func ListPools(ctx context.Context, c *libvirtconn.Client) ([]Listed, error) {
	var out []Listed
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		pools, _, err := l.ConnectListAllStoragePools(1, libvirt.ConnectListStoragePoolsPersistent)
		if err != nil {
			return err
		}
		out = make([]Listed, 0, len(pools))
		for _, p := range pools {
			out = append(out, Listed{ID: UUIDString(p.UUID), Name: p.Name})
		}
		return nil
	})
	return sortListed(out), err
}

// ListVolumes lists the volumes of the host's running pools, or of the one
// named pool when pool is not empty (an error when it is not running: libvirt
// lists no volumes of a stopped pool).
func ListVolumes(ctx context.Context, c *libvirtconn.Client, pool string) ([]Listed, error) {
	var out []Listed
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		var pools []libvirt.StoragePool
		if pool != "" {
			p, err := l.StoragePoolLookupByName(pool)
			if err != nil {
				return err
			}
			pools = []libvirt.StoragePool{p}
		} else {
			var err error
			if pools, _, err = l.ConnectListAllStoragePools(1, libvirt.ConnectListStoragePoolsActive); err != nil {
				return err
			}
		}
		for _, p := range pools {
			vols, _, err := l.StoragePoolListAllVolumes(p, 1, 0)
			if err != nil {
				return err
			}
			for _, v := range vols {
				out = append(out, Listed{ID: v.Key, Name: v.Name, Pool: v.Pool})
			}
		}
		return nil
	})
	return sortListed(out), err
}

// ListNWFilters lists the host's network filters (libvirt's own included:
// the caller filters by name).
func ListNWFilters(ctx context.Context, c *libvirtconn.Client) ([]Listed, error) {
	var out []Listed
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		filters, _, err := l.ConnectListAllNwfilters(1, 0)
		if err != nil {
			return err
		}
		out = make([]Listed, 0, len(filters))
		for _, f := range filters {
			out = append(out, Listed{ID: UUIDString(f.UUID), Name: f.Name})
		}
		return nil
	})
	return sortListed(out), err
}

// ListSecrets lists the host's persistent secrets; a secret's name is its
// usage id (what virsh secret-list shows).
func ListSecrets(ctx context.Context, c *libvirtconn.Client) ([]Listed, error) {
	var out []Listed
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		secrets, _, err := l.ConnectListAllSecrets(1, libvirt.ConnectListSecretsNoEphemeral)
		if err != nil {
			return err
		}
		out = make([]Listed, 0, len(secrets))
		for _, s := range secrets {
			out = append(out, Listed{ID: UUIDString(s.UUID), Name: s.UsageID})
		}
		return nil
	})
	return sortListed(out), err
}

// ListSnapshots lists the snapshots of the host's domains, or of the one
// domain with this UUID or name when domain is not empty.
func ListSnapshots(ctx context.Context, c *libvirtconn.Client, domain string) ([]Listed, error) {
	var out []Listed
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		var doms []libvirt.Domain
		if domain != "" {
			var d libvirt.Domain
			var err error
			if u, perr := ParseUUID(domain); perr == nil {
				d, err = l.DomainLookupByUUID(u)
			} else {
				d, err = l.DomainLookupByName(domain)
			}
			if err != nil {
				return err
			}
			doms = []libvirt.Domain{d}
		} else {
			var err error
			if doms, _, err = l.ConnectListAllDomains(1, libvirt.ConnectListDomainsPersistent); err != nil {
				return err
			}
		}
		for _, d := range doms {
			snaps, _, err := l.DomainListAllSnapshots(d, 1, 0)
			if err != nil {
				return err
			}
			for _, s := range snaps {
				out = append(out, Listed{ID: SnapshotID(UUIDString(d.UUID), s.Name), Name: s.Name, Domain: d.Name})
			}
		}
		return nil
	})
	return sortListed(out), err
}
