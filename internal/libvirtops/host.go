package libvirtops

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/storage"
)

// Host is what the provider keeps per libvirt connection beside the
// connection itself: the MAC index, the autostart cache and the pool locks.
// It lives on the client (libvirtconn.Client.Attached), so it ends with the
// provider instance that opened the connection.
type Host struct {
	macs      macIndex
	autostart autostartCache
	// locks serialise the storage operations libvirt cannot run
	// concurrently within one pool, keyed by pool name
	locks storage.PoolLocks
}

// HostOf is the host object of the connection c.
func HostOf(c *libvirtconn.Client) *Host {
	return c.Attached(func() any { return &Host{} }).(*Host)
}

// macIndex is the MAC -> domain index of one connection, read once per
// macIndexTTL and shared by all domains of a plan (one listing and one XML
// read per domain, instead of one per domain and planned domain).
type macIndex struct {
	mu    sync.Mutex
	at    time.Time
	byMAC map[string]MACOwner
}

// MACOwner is the domain that has an interface with a MAC address.
type MACOwner struct{ Name, UUID string }

const macIndexTTL = 20 * time.Second

// MACs is the MAC address (lower case) -> domain index of the host's
// persistent definitions, at most macIndexTTL old.
func (d Domain) MACs(ctx context.Context) (map[string]MACOwner, error) {
	h := &HostOf(d.c).macs
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byMAC != nil && time.Since(h.at) < macIndexTTL {
		return h.byMAC, nil
	}
	idx := map[string]MACOwner{}
	err := d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		doms, _, err := l.ConnectListAllDomains(1, 0)
		if err != nil {
			return err
		}
		for _, dom := range doms {
			x, err := l.DomainGetXMLDesc(dom, libvirt.DomainXMLInactive)
			if err != nil {
				continue // gone meanwhile
			}
			var def libvirtxml.Domain
			if def.Unmarshal(x) != nil || def.Devices == nil {
				continue
			}
			for _, i := range def.Devices.Interfaces {
				if i.MAC != nil && i.MAC.Address != "" {
					idx[strings.ToLower(i.MAC.Address)] = MACOwner{Name: dom.Name, UUID: UUIDString(dom.UUID)}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.byMAC, h.at = idx, time.Now()
	return idx, nil
}

// The autostart flags of all domains come from one list call, shared by
// the reads of one refresh (and dropped after any change this provider makes).
type autostartCache struct {
	mu      sync.Mutex
	fetched time.Time
	set     map[libvirt.UUID]bool
}

const autostartCacheTTL = 2 * time.Second

func domainAutostart(ctx context.Context, c *libvirtconn.Client, u libvirt.UUID) (bool, error) {
	cache := &HostOf(c).autostart
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if cache.set == nil || time.Since(cache.fetched) > autostartCacheTTL {
		var doms []libvirt.Domain
		err := c.Do(ctx, func(l *libvirt.Libvirt) error {
			var err error
			doms, _, err = l.ConnectListAllDomains(1, libvirt.ConnectListDomainsAutostart)
			return err
		})
		if err != nil {
			return false, err
		}
		cache.set = make(map[libvirt.UUID]bool, len(doms))
		for _, d := range doms {
			cache.set[d.UUID] = true
		}
		cache.fetched = time.Now()
	}
	return cache.set[u], nil
}

func invalidateAutostart(c *libvirtconn.Client) {
	cache := &HostOf(c).autostart
	cache.mu.Lock()
	cache.set = nil
	cache.mu.Unlock()
}
