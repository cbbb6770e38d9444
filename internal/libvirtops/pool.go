package libvirtops

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Pool is the adapter for storage pools, addressed by UUID.
type Pool struct{ byUUID }

// Pools returns the pool adapter on this connection.
func Pools(c *libvirtconn.Client) Pool { return Pool{byUUID{c: c, lookup: poolLookup}} }

// PoolState is what Fetch reads: the definition and the autostart flag.
type PoolState struct {
	Doc       *libvirtxml.StoragePool
	Autostart bool
}

// Fetch reads the pool with this UUID.
func (p Pool) Fetch(ctx context.Context, id string) (*PoolState, error) {
	pool, err := poolRef(id)
	if err != nil {
		return nil, err
	}
	var xml string
	var autostart int32
	err = p.c.Do(ctx, func(l *libvirt.Libvirt) error {
		pool, err := p.named(l, pool)
		if err != nil {
			return err
		}
		if xml, err = l.StoragePoolGetXMLDesc(pool, 0); err != nil {
			return err
		}
		autostart, err = l.StoragePoolGetAutostart(pool)
		return err
	})
	if err != nil {
		return nil, err
	}
	var doc libvirtxml.StoragePool
	if err := doc.Unmarshal(xml); err != nil {
		return nil, fmt.Errorf("parsing pool XML: %w", err)
	}
	return &PoolState{Doc: &doc, Autostart: autostart == 1}, nil
}

// NameTaken returns the UUID of the pool called name, or "" when there is
// none: a create never redefines a pool that is not its own.
func (p Pool) NameTaken(ctx context.Context, name string) (string, error) {
	var uuid string
	err := p.c.Do(ctx, func(l *libvirt.Libvirt) error {
		existing, err := l.StoragePoolLookupByName(name)
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

// PoolSteps are the create and delete steps of a pool.
type PoolSteps struct{ Build, Start, DeleteStorage bool }

// Create defines doc (whose UUID is set), builds and starts it as steps say
// and marks it autostart; on a failure it leaves nothing behind (the
// directory it built, the definition). It returns the pool's UUID.
func (p Pool) Create(ctx context.Context, doc *libvirtxml.StoragePool, steps PoolSteps, autostart bool) (string, error) {
	xml, err := doc.Marshal()
	if err != nil {
		return "", fmt.Errorf("writing pool XML: %w", err)
	}
	var pool libvirt.StoragePool
	err = p.c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		pool, err = l.StoragePoolDefineXML(xml, uint32(libvirt.StoragePoolDefineValidate))
		if err != nil {
			return fmt.Errorf("defining pool: %w", err)
		}
		built := false
		undo := func(step string, err error) error {
			// leave nothing behind: the directory we made, the definition
			if built {
				_ = l.StoragePoolDelete(pool, libvirt.StoragePoolDeleteNormal)
			}
			_ = l.StoragePoolUndefine(pool)
			return fmt.Errorf("%s pool %q: %w", step, pool.Name, err)
		}
		if steps.Build {
			if err := l.StoragePoolBuild(pool, libvirt.StoragePoolBuildNew); err != nil {
				return undo("building", err)
			}
			built = true
		}
		if steps.Start {
			// started already by a first run that the connection broke under
			if active, err := l.StoragePoolIsActive(pool); err != nil || active != 1 {
				if err := l.StoragePoolCreate(pool, 0); err != nil {
					return undo("starting", err)
				}
			}
		}
		if autostart {
			if err := l.StoragePoolSetAutostart(pool, 1); err != nil {
				_ = l.StoragePoolDestroy(pool)
				return undo("setting autostart of", err)
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return UUIDString(pool.UUID), nil
}

// SetAutostart sets whether the pool starts with libvirtd.
func (p Pool) SetAutostart(ctx context.Context, id string, autostart bool) error {
	pool, err := poolRef(id)
	if err != nil {
		return err
	}
	return p.c.Do(ctx, func(l *libvirt.Libvirt) error {
		pool, err := p.named(l, pool)
		if err != nil {
			return err
		}
		var a int32
		if autostart {
			a = 1
		}
		return l.StoragePoolSetAutostart(pool, a)
	})
}

// Delete stops and undefines the pool. Its volumes are deleted with it only
// when deleteVolumes is set; otherwise a pool that holds any is refused,
// naming them. deleteStorage says, for the pool's type, whether its storage
// (the target directory building created) goes too; storageLeft is the
// error of that step, which leaves the rest done.
func (p Pool) Delete(ctx context.Context, id string, deleteVolumes bool, deleteStorage func(poolType string) bool) (storageLeft, err error) {
	pool, err := poolRef(id)
	if err != nil {
		return nil, err
	}
	err = p.c.Do(ctx, func(l *libvirt.Libvirt) error {
		storageLeft = nil
		found, err := l.StoragePoolLookupByUUID(pool.UUID)
		if err != nil {
			return err
		}
		pool = found
		unlock := HostOf(p.c).locks.Lock(pool.Name)
		defer unlock()
		active, err := l.StoragePoolIsActive(pool)
		if err != nil {
			return err
		}
		if active == 1 {
			// the volume list is libvirt's from the last refresh: on shared
			// storage (rbd, a shared directory) another host may have deleted
			// volumes since; a failed refresh leaves the cached list
			_ = l.StoragePoolRefresh(pool, 0)
			vols, _, err := l.StoragePoolListAllVolumes(pool, 1, 0)
			if err != nil {
				return fmt.Errorf("listing volumes of pool %q: %w", pool.Name, err)
			}
			if len(vols) > 0 && !deleteVolumes {
				names := make([]string, len(vols))
				for i, v := range vols {
					names[i] = v.Name
				}
				sort.Strings(names)
				return fmt.Errorf("pool %q still holds %d volume(s): %s. Delete them first, or set delete_volumes = true "+
					"on the pool (apply that change, then destroy) to delete them with the pool", pool.Name, len(vols), strings.Join(names, ", "))
			}
			for _, v := range vols {
				if err := l.StorageVolDelete(v, 0); err != nil && !libvirtconn.IsNotFound(err) {
					return fmt.Errorf("deleting volume %q of pool %q: %w", v.Name, pool.Name, err)
				}
			}
			if err := l.StoragePoolDestroy(pool); err != nil {
				return fmt.Errorf("stopping pool %q: %w", pool.Name, err)
			}
		}
		var doc libvirtxml.StoragePool
		if xml, err := l.StoragePoolGetXMLDesc(pool, libvirt.StorageXMLInactive); err == nil && doc.Unmarshal(xml) == nil && deleteStorage(doc.Type) {
			// remove the (now empty) target directory that building created
			if err := l.StoragePoolDelete(pool, libvirt.StoragePoolDeleteNormal); err != nil {
				storageLeft = fmt.Errorf("Removing the target directory of pool %q failed: %v", pool.Name, err) //nolint:staticcheck // the detail of a warning, a sentence
			}
		}
		return l.StoragePoolUndefine(pool)
	})
	return storageLeft, err
}
