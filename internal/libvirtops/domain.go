package libvirtops

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Domain is the adapter for libvirt domains, addressed by UUID.
type Domain struct{ byUUID }

// Domains returns the domain adapter on this connection.
func Domains(c *libvirtconn.Client) Domain { return Domain{byUUID{c: c, lookup: domainLookup}} }

// DomainOptions steer how a domain is started, stopped and updated.
type DomainOptions struct {
	Running, Autostart, Paused, ForceBoot, RestartOnChange bool
	BypassCache, ResetNVRAM, Validate                      bool // start flags
	Graceful                                               bool // destroy gracefully
	ShutdownTimeout                                        time.Duration
	// DestroyShutdown and UpdateShutdown are how long a delete and an
	// update wait for a graceful shutdown before forcing the domain off
	DestroyShutdown, UpdateShutdown time.Duration
}

// DomainState is what Fetch reads.
type DomainState struct {
	// Doc is the persistent definition (without the run-time id).
	Doc *libvirtxml.Domain
	// Live is the current definition: the running one when Active.
	Live      *libvirtxml.Domain
	Active    bool
	Autostart bool
}

// Fetch reads a domain with at most two calls: the current XML (which for
// an inactive domain is its persistent definition) and, only when it runs,
// the persistent definition. The autostart flag comes from one list call
// shared by all domains of a refresh.
func (d Domain) Fetch(ctx context.Context, id string) (*DomainState, error) {
	dom, err := domainRef(id)
	if err != nil {
		return nil, err
	}
	var current, persistent string
	err = d.c.Do(ctx, func(l *libvirt.Libvirt) error {
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
	def := &live
	if active {
		err := d.c.Do(ctx, func(l *libvirt.Libvirt) error {
			var err error
			persistent, err = l.DomainGetXMLDesc(dom, libvirt.DomainXMLSecure|libvirt.DomainXMLInactive)
			return err
		})
		if err != nil {
			return nil, err
		}
		def = new(libvirtxml.Domain)
		if err := def.Unmarshal(persistent); err != nil {
			return nil, fmt.Errorf("parsing domain XML: %w", err)
		}
	}
	liveCopy := live
	def.ID = nil
	autostart, err := domainAutostart(ctx, d.c, dom.UUID)
	if err != nil {
		return nil, err
	}
	return &DomainState{Doc: def, Live: &liveCopy, Active: active, Autostart: autostart}, nil
}

// MayExist tells, after a failed create, whether the domain with this UUID may exist: it does, or the
// look-up cannot say (the connection is broken).
func (d Domain) MayExist(ctx context.Context, id string) bool {
	dom, err := domainRef(id)
	if err != nil {
		return false
	}
	err = d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		_, err := l.DomainLookupByUUID(dom.UUID)
		return err
	})
	return !libvirtconn.IsNotFound(err)
}

// Delete stops the domain (graceful shutdown up to opts.DestroyShutdown,
// then forced off) and undefines it with its NVRAM, managed-save image and
// snapshot and checkpoint metadata.
func (d Domain) Delete(ctx context.Context, id string, opts DomainOptions) error {
	dom, err := domainRef(id)
	if err != nil {
		return err
	}
	return d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		if err := stopDomain(ctx, l, dom, opts.DestroyShutdown, opts.Graceful); err != nil {
			return err
		}
		return undefineDomain(l, dom)
	})
}

// LiveDefinition reads the running definition of the domain.
func (d Domain) LiveDefinition(ctx context.Context, id string) (*libvirtxml.Domain, error) {
	dom, err := domainRef(id)
	if err != nil {
		return nil, err
	}
	var live libvirtxml.Domain
	err = d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		x, err := l.DomainGetXMLDesc(dom, 0)
		if err != nil {
			return err
		}
		return live.Unmarshal(x)
	})
	if err != nil {
		return nil, err
	}
	return &live, nil
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

// DefineAndStart defines the domain (libvirt validates the XML against its
// schema) and starts it when asked. A failed start undefines what was
// defined, so nothing is left behind.
func (d Domain) DefineAndStart(ctx context.Context, doc *libvirtxml.Domain, opts DomainOptions) (uuid string, err error) {
	// The UUID is chosen here, not by libvirt: when the connection breaks
	// and Do runs this again on a new one, defining the same name and UUID
	// again is a no-op redefinition instead of "already exists", and a start
	// that had already happened is recognised below.
	if doc.UUID == "" {
		doc.UUID = NewUUID()
	}
	var dom libvirt.Domain
	err = d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		if err := fillDiskFormats(l, doc); err != nil {
			return err
		}
		xml, err := doc.Marshal()
		if err != nil {
			return err
		}
		dom, err = l.DomainDefineXMLFlags(xml, libvirt.DomainDefineValidate)
		if err != nil {
			if other, lerr := l.DomainLookupByName(doc.Name); lerr == nil && UUIDString(other.UUID) != doc.UUID {
				u := UUIDString(other.UUID)
				return fmt.Errorf("defining domain: a domain named %q already exists (UUID %s) and is not in this state; "+
					"an earlier apply may have been interrupted after creating it. Adopt it with an import block "+
					"(to = <this resource>, id = %q), or remove it: virsh destroy %s; virsh undefine %s --nvram: %w",
					doc.Name, u, u, doc.Name, doc.Name, err)
			}
			return fmt.Errorf("defining domain: %w", err)
		}
		if opts.Autostart {
			if err := l.DomainSetAutostart(dom, 1); err != nil {
				_ = undefineDomain(l, dom)
				return fmt.Errorf("setting autostart: %w", err)
			}
		}
		if opts.Running {
			if err := startDomain(l, dom, opts); err != nil {
				_ = undefineDomain(l, dom)
				return err
			}
		}
		return nil
	})
	invalidateAutostart(d.c)
	if err != nil {
		return "", err
	}
	return UUIDString(dom.UUID), nil
}

func startDomain(l *libvirt.Libvirt, dom libvirt.Domain, opts DomainOptions) error {
	var flags uint32
	if opts.Paused {
		flags |= uint32(libvirt.DomainStartPaused)
	}
	if opts.ForceBoot {
		flags |= uint32(libvirt.DomainStartForceBoot)
	}
	if opts.BypassCache {
		flags |= uint32(libvirt.DomainStartBypassCache)
	}
	if opts.ResetNVRAM {
		flags |= uint32(libvirt.DomainStartResetNvram)
	}
	if opts.Validate {
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
	_, err := stopDomainReporting(ctx, l, dom, timeout, graceful, nil)
	return err
}

// StopOutcome is how a domain stopped.
type StopOutcome int

const (
	// StopWasOff: the domain was not running.
	StopWasOff StopOutcome = iota
	// StopGraceful: the guest shut down within the timeout.
	StopGraceful
	// StopForced: the domain was forced off.
	StopForced
)

// stopDomainReporting is stopDomain telling report (when not nil) what it
// does, and returning how the domain stopped.
func stopDomainReporting(ctx context.Context, l *libvirt.Libvirt, dom libvirt.Domain, timeout time.Duration, graceful bool, report func(string)) (StopOutcome, error) {
	if report == nil {
		report = func(string) {}
	}
	state, _, err := l.DomainGetState(dom, 0)
	if err != nil {
		return StopWasOff, err
	}
	if libvirt.DomainState(state) == libvirt.DomainShutoff {
		return StopWasOff, nil
	}
	switch {
	case timeout <= 0:
		report("no shutdown timeout: forcing the domain off")
	case !canShutDown(l, dom, libvirt.DomainState(state)):
		report("the guest cannot be asked to shut down (paused, or neither ACPI nor a guest agent channel): forcing it off")
	default:
		err := l.DomainShutdown(dom)
		if err != nil {
			report(fmt.Sprintf("the shutdown request failed (%v): forcing the domain off", libvirtconn.WrapError(err)))
			break
		}
		report(fmt.Sprintf("shutdown requested; waiting up to %v for the guest to stop", timeout))
		deadline := time.Now().Add(timeout)
		for time.Now().Before(deadline) {
			state, _, err := l.DomainGetState(dom, 0)
			if err != nil {
				return StopWasOff, err
			}
			if libvirt.DomainState(state) == libvirt.DomainShutoff {
				return StopGraceful, nil
			}
			select {
			case <-ctx.Done():
				return StopWasOff, ctx.Err()
			case <-time.After(500 * time.Millisecond):
			}
		}
		report(fmt.Sprintf("the guest did not stop within %v: forcing it off", timeout))
	}
	var destroyFlags libvirt.DomainDestroyFlagsValues
	if graceful {
		destroyFlags = libvirt.DomainDestroyGraceful
	}
	if err := l.DomainDestroyFlags(dom, destroyFlags); err != nil {
		var le libvirt.Error
		if errors.As(err, &le) && libvirt.ErrorNumber(le.Code) == libvirt.ErrOperationInvalid {
			return StopGraceful, nil // stopped meanwhile
		}
		return StopWasOff, fmt.Errorf("forcing the domain off: %w", err)
	}
	return StopForced, nil
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

// Identify finds the domain by UUID when ref parses as one, else by name,
// and returns its UUID and name.
func (d Domain) Identify(ctx context.Context, ref string) (uuid, name string, err error) {
	var dom libvirt.Domain
	err = d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		if u, perr := ParseUUID(ref); perr == nil {
			dom, err = l.DomainLookupByUUID(u)
		} else {
			dom, err = l.DomainLookupByName(ref)
		}
		return err
	})
	if err != nil {
		return "", "", err
	}
	return UUIDString(dom.UUID), dom.Name, nil
}

// InterfaceAddresses are the addresses one source reported for one
// interface of a running domain.
type InterfaceAddresses struct {
	Name, Hwaddr string // Hwaddr in lower case
	Addrs        []IPAddress
}

// IPAddress is one address of an interface: Type "ipv4" or "ipv6".
type IPAddress struct {
	Type, Addr string
	Prefix     int64
}

// addressSources are libvirt's codes of the address sources by name.
var addressSources = map[string]libvirt.DomainInterfaceAddressesSource{
	"lease": libvirt.DomainInterfaceAddressesSrcLease,
	"agent": libvirt.DomainInterfaceAddressesSrcAgent,
	"arp":   libvirt.DomainInterfaceAddressesSrcArp,
}

// Addresses asks one source ("lease", "agent" or "arp") for the addresses
// of the running domain's interfaces.
func (d Domain) Addresses(ctx context.Context, id, source string) ([]InterfaceAddresses, error) {
	dom, err := domainRef(id)
	if err != nil {
		return nil, err
	}
	code, ok := addressSources[source]
	if !ok {
		return nil, fmt.Errorf("unknown address source %q", source)
	}
	var raw []libvirt.DomainInterface
	err = d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		raw, err = l.DomainInterfaceAddresses(dom, uint32(code), 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]InterfaceAddresses, 0, len(raw))
	for _, r := range raw {
		iface := InterfaceAddresses{Name: r.Name, Addrs: []IPAddress{}}
		if len(r.Hwaddr) > 0 {
			iface.Hwaddr = strings.ToLower(r.Hwaddr[0])
		}
		for _, a := range r.Addrs {
			typ := "ipv4"
			if libvirt.IPAddrType(a.Type) == libvirt.IPAddrTypeIpv6 {
				typ = "ipv6"
			}
			iface.Addrs = append(iface.Addrs, IPAddress{Type: typ, Addr: a.Addr, Prefix: int64(a.Prefix)})
		}
		out = append(out, iface)
	}
	return out, nil
}

// AddressesNotYet reports errors that mean "no addresses at this moment":
// the domain is not running, or its guest agent is not (yet) answering.
func AddressesNotYet(err error) bool {
	var le *libvirtconn.Error
	if !errors.As(err, &le) {
		return false
	}
	switch le.Code {
	case libvirt.ErrOperationInvalid, libvirt.ErrAgentUnresponsive, libvirt.ErrAgentCommandTimeout, libvirt.ErrAgentCommandFailed:
		return true
	}
	return false
}
