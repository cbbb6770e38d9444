package libvirtops

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Moving a domain between hosts (docs/adr/0002-several-hosts.md): a
// running domain migrates live (libvirt's migration protocol version 3,
// driven over the provider's connections to both hosts, as virsh does
// without --p2p); a stopped one is defined on the new host and undefined on
// the old one. Either way the UUID stays.

// MoveEnds are the two hosts of a move: their connections, and their labels
// for messages.
type MoveEnds struct {
	Src, Dst *libvirtconn.Client
	From, To string
}

// CheckMove lists why the domain with this UUID cannot move from m.Src to
// m.Dst (nothing when it can, or when the old host no longer has it).
func CheckMove(ctx context.Context, m MoveEnds, id string) ([]string, error) {
	dom, err := domainRef(id)
	if err != nil {
		return nil, err
	}
	ls, err := m.Src.Libvirt(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.From, err)
	}
	ld, err := m.Dst.Libvirt(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.To, err)
	}
	dom, err = ls.DomainLookupByUUID(dom.UUID)
	if libvirtconn.IsNotFound(libvirtconn.WrapError(err)) {
		return nil, nil // gone, or moved already: apply finds out
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.From, libvirtconn.WrapError(err))
	}
	x, err := ls.DomainGetXMLDesc(dom, 0)
	if err != nil {
		return nil, libvirtconn.WrapError(err)
	}
	var def libvirtxml.Domain
	if err := def.Unmarshal(x); err != nil {
		return nil, fmt.Errorf("parsing domain XML: %w", err)
	}
	active, err := domainActive(ls, dom)
	if err != nil {
		return nil, libvirtconn.WrapError(err)
	}
	var problems []string
	add := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	to := m.To

	if n, err := ls.DomainSnapshotNum(dom, 0); err == nil && n > 0 {
		add("it has %d snapshot(s) on %s; snapshots stay on their host (delete them first)", n, m.From)
	}
	if has, err := ls.DomainHasManagedSaveImage(dom, 0); err == nil && has == 1 {
		add("it has a managed-save image on %s, which does not move (start it, or remove the image with virsh managedsave-remove)", m.From)
	}
	if other, err := ld.DomainLookupByName(dom.Name); err == nil && other.UUID != dom.UUID {
		add("%s already has a domain named %q (UUID %s)", to, dom.Name, UUIDString(other.UUID))
	}
	if other, err := ld.DomainLookupByUUID(dom.UUID); err == nil && other.Name != dom.Name {
		add("%s already has a domain with UUID %s (named %q)", to, UUIDString(dom.UUID), other.Name)
	}
	if def.Devices != nil {
		refreshed := map[string]bool{}
		for _, d := range def.Devices.Disks {
			if p := diskProblem(ls, ld, d, to, refreshed); p != "" {
				add("%s", p)
			}
		}
		for _, i := range def.Devices.Interfaces {
			if i.Source == nil || i.Source.Network == nil {
				continue
			}
			mac := ""
			if i.MAC != nil {
				mac = " " + i.MAC.Address
			}
			net, err := ld.NetworkLookupByName(i.Source.Network.Network)
			if err != nil {
				add("interface%s: %s has no network %q", mac, to, i.Source.Network.Network)
				continue
			}
			if active {
				if up, err := ld.NetworkIsActive(net); err == nil && up == 0 {
					add("interface%s: network %q is not running on %s", mac, i.Source.Network.Network, to)
				}
			}
		}
		if active && len(def.Devices.Hostdevs) > 0 {
			add("it uses %d host device(s) (PCI/USB passthrough), which stay on %s", len(def.Devices.Hostdevs), m.From)
		}
	}
	return problems, nil
}

// diskProblem tells why host dst (ld) may not see disk d of the domain on
// src (ls); "" when it does. refreshed remembers the pools of dst already
// refreshed.
func diskProblem(ls, ld *libvirt.Libvirt, d libvirtxml.DomainDisk, to string, refreshed map[string]bool) string {
	if d.Source == nil {
		return "" // an empty CD-ROM or floppy drive
	}
	name := "disk"
	if d.Target != nil && d.Target.Dev != "" {
		name = fmt.Sprintf("disk %q", d.Target.Dev)
	}
	s := d.Source
	switch {
	case s.File != nil:
		if s.File.File == "" {
			return ""
		}
		return pathProblem(ld, name, "file", s.File.File, to, refreshed)
	case s.Block != nil:
		if s.Block.Dev == "" {
			return ""
		}
		return pathProblem(ld, name, "block device", s.Block.Dev, to, refreshed)
	case s.Volume != nil:
		pool, vol := s.Volume.Pool, s.Volume.Volume
		dp, err := ld.StoragePoolLookupByName(pool)
		if err != nil {
			return fmt.Sprintf("%s: %s has no storage pool %q (volume %q)", name, to, pool, vol)
		}
		if !refreshed[pool] {
			_ = ld.StoragePoolRefresh(dp, 0) // refused while the pool is busy: a nicety
			refreshed[pool] = true
		}
		dv, err := ld.StorageVolLookupByName(dp, vol)
		if err != nil {
			return fmt.Sprintf("%s: pool %q on %s has no volume %q (the pool is not over the same storage)", name, pool, to, vol)
		}
		dpath, err := ld.StorageVolGetPath(dv)
		if err != nil {
			return fmt.Sprintf("%s: volume %q of pool %q on %s: %v", name, vol, pool, to, libvirtconn.WrapError(err))
		}
		if sp, err := ls.StoragePoolLookupByName(pool); err == nil {
			if sv, err := ls.StorageVolLookupByName(sp, vol); err == nil {
				if spath, err := ls.StorageVolGetPath(sv); err == nil && spath != dpath {
					return fmt.Sprintf("%s: volume %q of pool %q is %s here but %s on %s", name, vol, pool, spath, dpath, to)
				}
			}
		}
		return ""
	case s.Network != nil:
		if a := diskAuth(d); a != nil && a.Secret != nil {
			if problem := secretProblem(ld, a.Secret, to); problem != "" {
				return name + ": " + problem
			}
		}
		return "" // network storage: the same for every host that reaches it
	}
	return fmt.Sprintf("%s: the provider cannot tell whether %s sees this kind of disk source", name, to)
}

// pathProblem tells why host dst (ld) has no storage volume at path p.
func pathProblem(ld *libvirt.Libvirt, name, kind, p, to string, refreshed map[string]bool) string {
	if _, err := ld.StorageVolLookupByPath(p); err == nil {
		return ""
	}
	// a pool over the folder may not know the file yet: refresh it, once
	pools, _, err := ld.ConnectListAllStoragePools(1, libvirt.ConnectListStoragePoolsActive)
	if err == nil {
		for _, pool := range pools {
			if refreshed[pool.Name] {
				continue
			}
			x, err := ld.StoragePoolGetXMLDesc(pool, 0)
			if err != nil {
				continue
			}
			var def libvirtxml.StoragePool
			if def.Unmarshal(x) != nil || def.Target == nil || def.Target.Path == "" {
				continue
			}
			if strings.HasPrefix(p, strings.TrimSuffix(def.Target.Path, "/")+"/") {
				_ = ld.StoragePoolRefresh(pool, 0)
				refreshed[pool.Name] = true
			}
		}
		if _, err := ld.StorageVolLookupByPath(p); err == nil {
			return ""
		}
	}
	return fmt.Sprintf("%s: %s %s is in no storage pool of %s (storage only the old host sees?)", name, kind, p, to)
}

func diskAuth(d libvirtxml.DomainDisk) *libvirtxml.DomainDiskAuth {
	if d.Source != nil && d.Source.Network != nil && d.Source.Network.Auth != nil {
		return d.Source.Network.Auth
	}
	return d.Auth
}

// secretProblem tells why host dst (ld) lacks the secret a network disk
// authenticates with.
func secretProblem(ld *libvirt.Libvirt, s *libvirtxml.DomainDiskSecret, to string) string {
	if s.UUID != "" {
		u, err := ParseUUID(s.UUID)
		if err == nil {
			if _, err := ld.SecretLookupByUUID(u); err == nil {
				return ""
			}
		}
		return fmt.Sprintf("%s has no secret with UUID %s", to, s.UUID)
	}
	if s.Usage != "" {
		usageType := int32(libvirt.SecretUsageTypeCeph)
		if s.Type == "iscsi" {
			usageType = int32(libvirt.SecretUsageTypeIscsi)
		}
		if _, err := ld.SecretLookupByUsage(usageType, s.Usage); err == nil {
			return ""
		}
		return fmt.Sprintf("%s has no %s secret with usage %q", to, s.Type, s.Usage)
	}
	return ""
}

// MoveDomain moves the domain: live migration when it is active, define and
// undefine when it is not. It returns how ("live migration", "definition"),
// and whether the domain now lives on the new host (also with an error about
// what followed: a failed confirm or autostart).
func MoveDomain(ctx context.Context, m MoveEnds, id string, unsafe bool) (how string, moved bool, err error) {
	defer invalidateAutostart(m.Src)
	defer invalidateAutostart(m.Dst)
	dom, err := domainRef(id)
	if err != nil {
		return "", false, err
	}
	ls, err := m.Src.Libvirt(ctx)
	if err != nil {
		return "", false, err
	}
	ld, err := m.Dst.Libvirt(ctx)
	if err != nil {
		return "", false, err
	}
	dom, err = ls.DomainLookupByUUID(dom.UUID)
	if libvirtconn.IsNotFound(libvirtconn.WrapError(err)) {
		// a move that finished before the provider could record it
		if _, derr := ld.DomainLookupByUUID(dom.UUID); derr == nil {
			return "already moved", true, nil
		}
		return "", false, fmt.Errorf("neither %s nor %s has domain %s", m.From, m.To, id)
	}
	if err != nil {
		return "", false, libvirtconn.WrapError(err)
	}
	autostart, err := ls.DomainGetAutostart(dom)
	if err != nil {
		return "", false, libvirtconn.WrapError(err)
	}
	active, err := domainActive(ls, dom)
	if err != nil {
		return "", false, libvirtconn.WrapError(err)
	}
	how = "definition"
	var target libvirt.Domain
	if active {
		how = "live migration"
		stopAbort := m.Src.AbortOnDone(ctx, ls) // tofu stopping cancels the migration (the guest stays on the old host)
		target, moved, err = migrateLive(ls, ld, dom, unsafe)
		stopAbort()
	} else {
		target, moved, err = moveDefinition(ls, ld, dom)
	}
	if err != nil {
		return how, moved, libvirtconn.WrapError(err)
	}
	if autostart == 1 {
		if err := ld.DomainSetAutostart(target, 1); err != nil {
			return how, true, fmt.Errorf("the domain moved, but setting autostart on %s failed: %w", m.To, libvirtconn.WrapError(err))
		}
	}
	return how, true, nil
}

// migrateLive migrates the running domain from ls to ld with libvirt's
// migration protocol version 3 (virDomainMigrateVersion3Full: begin and
// perform on the source, prepare and finish on the destination, confirm on
// the source), so that the provider's own connections suffice: neither host
// needs to reach the other's libvirtd, only QEMU's migration port on the
// destination (the address prepare returns). The domain stays persistent on
// the destination and is undefined on the source once it runs there.
func migrateLive(ls, ld *libvirt.Libvirt, dom libvirt.Domain, unsafe bool) (libvirt.Domain, bool, error) {
	flags := libvirt.MigrateLive | libvirt.MigratePersistDest | libvirt.MigrateUndefineSource | libvirt.MigrateChangeProtection
	if unsafe {
		flags |= libvirt.MigrateUnsafe
	}
	var params []libvirt.TypedParam
	cookie, xml, err := ls.DomainMigrateBegin3Params(dom, params, uint32(flags))
	if err != nil {
		return libvirt.Domain{}, false, fmt.Errorf("begin (source): %w", err)
	}
	if st, _, err := ls.DomainGetState(dom, 0); err == nil && libvirt.DomainState(st) == libvirt.DomainPaused {
		flags |= libvirt.MigratePaused
	}
	destFlags := uint32(flags &^ (libvirt.MigrateAbortOnError | libvirt.MigrateAutoConverge))
	params = append(params, stringParam(libvirt.MigrateParamDestXML, xml))
	cookie, uriOut, err := ld.DomainMigratePrepare3Params(params, cookie, destFlags)
	if err != nil {
		// the source's job (change protection) ends with a cancelled confirm
		_ = ls.DomainMigrateConfirm3Params(dom, params, nil, uint32(flags), 1)
		return libvirt.Domain{}, false, fmt.Errorf("prepare (destination): %w", err)
	}
	if len(uriOut) > 0 && uriOut[0] != "" {
		params = append(params, stringParam(libvirt.MigrateParamURI, uriOut[0]))
	}
	cookie, perr := ls.DomainMigratePerform3Params(dom, nil, params, cookie, flags)
	cancelled := int32(0)
	if perr != nil {
		cancelled = 1
	}
	params = append(params, stringParam(libvirt.MigrateParamDestName, dom.Name))
	moved, cookie, ferr := ld.DomainMigrateFinish3Params(params, cookie, destFlags, cancelled)
	if perr != nil {
		// the source resumed the domain; finish (cancelled) removed it from the destination
		return libvirt.Domain{}, false, fmt.Errorf("migration (source): %w", perr)
	}
	notRunning := int32(0)
	if ferr != nil {
		notRunning = 1
	}
	cerr := ls.DomainMigrateConfirm3Params(dom, params, cookie, uint32(flags), notRunning)
	if ferr != nil {
		// confirm (cancelled) resumed the domain on the source
		return libvirt.Domain{}, false, fmt.Errorf("finish (destination): %w", ferr)
	}
	if cerr != nil {
		// the domain runs on the destination; the source may keep a paused copy
		return moved, true, fmt.Errorf("the domain runs on the new host, but confirming on the old host failed (it may keep a paused copy there): %w", cerr)
	}
	return moved, true, nil
}

func stringParam(field, value string) libvirt.TypedParam {
	return libvirt.TypedParam{Field: field, Value: *libvirt.NewTypedParamValueString(value)}
}

// moveDefinition moves a stopped domain: its persistent definition is
// defined on ld, then undefined on ls (NVRAM and TPM state files stay where
// they are).
func moveDefinition(ls, ld *libvirt.Libvirt, dom libvirt.Domain) (libvirt.Domain, bool, error) {
	xml, err := ls.DomainGetXMLDesc(dom, libvirt.DomainXMLSecure|libvirt.DomainXMLInactive|libvirt.DomainXMLMigratable)
	if err != nil {
		return libvirt.Domain{}, false, fmt.Errorf("reading the definition (source): %w", err)
	}
	moved, err := ld.DomainDefineXMLFlags(xml, 0)
	if err != nil {
		return libvirt.Domain{}, false, fmt.Errorf("define (destination): %w", err)
	}
	flags := libvirt.DomainUndefineKeepNvram | libvirt.DomainUndefineKeepTpm
	err = ls.DomainUndefineFlags(dom, flags)
	var le libvirt.Error
	if errors.As(err, &le) && libvirt.ErrorNumber(le.Code) == libvirt.ErrInvalidArg {
		err = ls.DomainUndefineFlags(dom, libvirt.DomainUndefineKeepNvram) // libvirt before 8.9 has no KEEP_TPM
	}
	if err != nil {
		// the state keeps the old host: the next apply moves again, which
		// finds the definition on the new host and undefines the old one
		return moved, false, fmt.Errorf("the domain is defined on the new host, but undefining it on the old host failed (apply again to finish): %w", err)
	}
	return moved, true, nil
}
