package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
	"github.com/virtxml/terraform-provider-libvirt/internal/xmlschema"
)

func domainRef(id string) (libvirt.Domain, error) {
	u, err := libvirtops.ParseUUID(id)
	if err != nil {
		return libvirt.Domain{}, err
	}
	return libvirt.Domain{UUID: u}, nil
}

// domainFromPlan converts the document attributes of plan (or state) into a
// libvirtxml document.
func domainFromPlan(attrs map[string]tftypes.Value, diags *diag.Diagnostics) *libvirtxml.Domain {
	model := xmlschema.Domain()
	doc, err := model.FromValues(treeresource.DocValues(model.AttributeTypes(), attrs))
	if err != nil {
		treeresource.AddConversionError(diags, "Invalid domain definition", err)
		return nil
	}
	return doc
}

// Fetch reads a domain with at most two calls: the current XML (which for
// an inactive domain is its persistent definition) and, only when it runs,
// the persistent definition. The autostart flag comes from one list call
// shared by all domains of a refresh.
func (r *domainResource) Fetch(ctx context.Context, c *libvirtconn.Client, id string) (*treeresource.Fetched[libvirtxml.Domain], error) {
	dom, err := domainRef(id)
	if err != nil {
		return nil, err
	}
	var current, persistent string
	err = c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		current, err = l.DomainGetXMLDesc(dom, libvirt.DomainXMLSecure)
		return err
	})
	if err != nil {
		return nil, err
	}
	var live libvirtxml.Domain
	if err := live.Unmarshal(current); err != nil {
		return nil, fmt.Errorf("parsing domain XML: %w", err)
	}
	active := live.ID != nil && *live.ID >= 0
	urls := []tftypes.Value{}
	def := &live
	if active {
		err := c.Do(ctx, func(l *libvirt.Libvirt) error {
			var err error
			persistent, err = l.DomainGetXMLDesc(dom, libvirt.DomainXMLSecure|libvirt.DomainXMLInactive)
			return err
		})
		if err != nil {
			return nil, err
		}
		if u := consoleURLs(&live, c.Host()); u != nil {
			urls = u
		}
		def = new(libvirtxml.Domain)
		if err := def.Unmarshal(persistent); err != nil {
			return nil, fmt.Errorf("parsing domain XML: %w", err)
		}
	}
	def.ID = nil
	autostart, err := domainAutostart(ctx, c, dom.UUID)
	if err != nil {
		return nil, err
	}
	return &treeresource.Fetched[libvirtxml.Domain]{Doc: def, Own: map[string]tftypes.Value{
		"id":            treeresource.StringValue(live.UUID),
		attrRunning:     treeresource.BoolValue(active),
		attrAutostart:   treeresource.BoolValue(autostart),
		attrConsoleURLs: tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, urls),
	}}, nil
}

// consoleURLs lists the graphical consoles of a running domain.
func consoleURLs(live *libvirtxml.Domain, host string) []tftypes.Value {
	if live.Devices == nil {
		return nil
	}
	if host == "" {
		host = "localhost"
	}
	var out []tftypes.Value
	for _, g := range live.Devices.Graphics {
		switch {
		case g.VNC != nil && g.VNC.Port > 0:
			out = append(out, treeresource.StringValue("vnc://"+net.JoinHostPort(host, strconv.Itoa(g.VNC.Port))))
		case g.Spice != nil && g.Spice.Port > 0:
			out = append(out, treeresource.StringValue("spice://"+net.JoinHostPort(host, strconv.Itoa(g.Spice.Port))))
		}
	}
	return out
}

// fillDiskFormats sets driver type of disks whose source is a pool volume
// and whose driver type is unset to the volume's format: libvirt's silent
// raw default makes qcow2 guests unbootable. It changes only what is sent to
// libvirt; the user's null stays null in state.
func fillDiskFormats(l *libvirt.Libvirt, doc *libvirtxml.Domain) error {
	if doc.Devices == nil {
		return nil
	}
	for i := range doc.Devices.Disks {
		d := &doc.Devices.Disks[i]
		if d.Source == nil || d.Source.Volume == nil || (d.Driver != nil && d.Driver.Type != "") {
			continue
		}
		pool, err := l.StoragePoolLookupByName(d.Source.Volume.Pool)
		if err != nil {
			return fmt.Errorf("disk %d: pool %q: %w", i, d.Source.Volume.Pool, err)
		}
		vol, err := l.StorageVolLookupByName(pool, d.Source.Volume.Volume)
		if err != nil {
			return fmt.Errorf("disk %d: volume %q in pool %q: %w", i, d.Source.Volume.Volume, d.Source.Volume.Pool, err)
		}
		x, err := l.StorageVolGetXMLDesc(vol, 0)
		if err != nil {
			return err
		}
		var v libvirtxml.StorageVolume
		if err := v.Unmarshal(x); err != nil {
			return err
		}
		if v.Target == nil || v.Target.Format == nil || v.Target.Format.Type == "" {
			continue
		}
		format := v.Target.Format.Type
		if format == "iso" {
			format = "raw"
		}
		if d.Driver == nil {
			d.Driver = &libvirtxml.DomainDiskDriver{Name: "qemu"}
		}
		d.Driver.Type = format
	}
	return nil
}

// defineAndStart defines the domain (libvirt validates the XML against its
// schema) and starts it when asked. A failed start undefines what was
// defined, so nothing is left behind.
func (r *domainResource) defineAndStart(ctx context.Context, doc *libvirtxml.Domain, opts domainOptions) (libvirt.Domain, error) {
	// The UUID is chosen here, not by libvirt: when the connection breaks
	// and Do runs this again on a new one, defining the same name and UUID
	// again is a no-op redefinition instead of "already exists", and a start
	// that had already happened is recognised below.
	if doc.UUID == "" {
		doc.UUID = libvirtops.NewUUID()
	}
	var dom libvirt.Domain
	err := r.Client().Do(ctx, func(l *libvirt.Libvirt) error {
		if err := fillDiskFormats(l, doc); err != nil {
			return err
		}
		xml, err := doc.Marshal()
		if err != nil {
			return err
		}
		dom, err = l.DomainDefineXMLFlags(xml, libvirt.DomainDefineValidate)
		if err != nil {
			if other, lerr := l.DomainLookupByName(doc.Name); lerr == nil && libvirtops.UUIDString(other.UUID) != doc.UUID {
				u := libvirtops.UUIDString(other.UUID)
				return fmt.Errorf("defining domain: a domain named %q already exists (UUID %s) and is not in this state; "+
					"an earlier apply may have been interrupted after creating it. Adopt it with an import block "+
					"(to = <this resource>, id = %q), or remove it: virsh destroy %s; virsh undefine %s --nvram: %w",
					doc.Name, u, u, doc.Name, doc.Name, err)
			}
			return fmt.Errorf("defining domain: %w", err)
		}
		if opts.autostart {
			if err := l.DomainSetAutostart(dom, 1); err != nil {
				_ = undefineDomain(l, dom)
				return fmt.Errorf("setting autostart: %w", err)
			}
		}
		if opts.running {
			if err := startDomain(l, dom, opts); err != nil {
				_ = undefineDomain(l, dom)
				return err
			}
		}
		return nil
	})
	invalidateAutostart(r.Client())
	return dom, err
}

func startDomain(l *libvirt.Libvirt, dom libvirt.Domain, opts domainOptions) error {
	var flags uint32
	if opts.paused {
		flags |= uint32(libvirt.DomainStartPaused)
	}
	if opts.forceBoot {
		flags |= uint32(libvirt.DomainStartForceBoot)
	}
	if opts.bypassCache {
		flags |= uint32(libvirt.DomainStartBypassCache)
	}
	if opts.resetNVRAM {
		flags |= uint32(libvirt.DomainStartResetNvram)
	}
	if opts.validate {
		flags |= uint32(libvirt.DomainStartValidate)
	}
	if _, err := l.DomainCreateWithFlags(dom, flags); err != nil {
		// started already (by the first run of an operation that the
		// connection broke under, or by someone else): what was asked for
		if active, aerr := domainActive(l, dom); aerr == nil && active {
			return nil
		}
		return fmt.Errorf("starting domain: %w", err)
	}
	return nil
}

// stopDomain asks the guest to shut down (ACPI) and forces it off when it
// has not stopped within timeout. A stopped domain is left alone.
func stopDomain(ctx context.Context, l *libvirt.Libvirt, dom libvirt.Domain, timeout time.Duration, graceful bool) error {
	state, _, err := l.DomainGetState(dom, 0)
	if err != nil {
		return err
	}
	if libvirt.DomainState(state) == libvirt.DomainShutoff {
		return nil
	}
	if timeout > 0 && canShutDown(l, dom, libvirt.DomainState(state)) {
		if err := l.DomainShutdown(dom); err == nil {
			deadline := time.Now().Add(timeout)
			for time.Now().Before(deadline) {
				state, _, err := l.DomainGetState(dom, 0)
				if err != nil {
					return err
				}
				if libvirt.DomainState(state) == libvirt.DomainShutoff {
					return nil
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(500 * time.Millisecond):
				}
			}
		}
	}
	var destroyFlags libvirt.DomainDestroyFlagsValues
	if graceful {
		destroyFlags = libvirt.DomainDestroyGraceful
	}
	if err := l.DomainDestroyFlags(dom, destroyFlags); err != nil {
		var le libvirt.Error
		if errors.As(err, &le) && libvirt.ErrorNumber(le.Code) == libvirt.ErrOperationInvalid {
			return nil // stopped meanwhile
		}
		return fmt.Errorf("forcing the domain off: %w", err)
	}
	return nil
}

// undefineDomain removes the definition with its NVRAM file, managed-save
// image and snapshot and checkpoint metadata, so that nothing blocks a
// re-create under the same name.
func undefineDomain(l *libvirt.Libvirt, dom libvirt.Domain) error {
	flags := libvirt.DomainUndefineManagedSave | libvirt.DomainUndefineSnapshotsMetadata |
		libvirt.DomainUndefineNvram | libvirt.DomainUndefineCheckpointsMetadata
	err := l.DomainUndefineFlags(dom, flags)
	var le libvirt.Error
	if errors.As(err, &le) && libvirt.ErrorNumber(le.Code) == libvirt.ErrInvalidArg {
		// drivers without NVRAM or checkpoints (test:///) refuse those flags
		err = l.DomainUndefineFlags(dom, libvirt.DomainUndefineManagedSave|libvirt.DomainUndefineSnapshotsMetadata)
	}
	return err
}

// canShutDown reports whether a graceful shutdown request can reach the
// guest at all: not while it is paused, and not without either ACPI (the
// power button) or a QEMU guest agent channel. Otherwise waiting for it
// only delays the forced stop by the whole timeout.
func canShutDown(l *libvirt.Libvirt, dom libvirt.Domain, state libvirt.DomainState) bool {
	if state == libvirt.DomainPaused || state == libvirt.DomainPmsuspended {
		return false
	}
	x, err := l.DomainGetXMLDesc(dom, 0)
	if err != nil {
		return true // unknown: try
	}
	var def libvirtxml.Domain
	if def.Unmarshal(x) != nil {
		return true
	}
	if def.Features != nil && def.Features.ACPI != nil {
		return true
	}
	if def.Devices != nil {
		for _, c := range def.Devices.Channels {
			if c.Target != nil && c.Target.VirtIO != nil && c.Target.VirtIO.Name == "org.qemu.guest_agent.0" {
				return true
			}
		}
	}
	return false
}
