package libvirtops

import (
	"context"
	"fmt"
	"time"

	"github.com/digitalocean/go-libvirt"
)

// Power operations on a running domain, for the day-2 actions: they change
// the domain's run state and nothing of its definition.

// RebootMethod is how a reboot request reaches the guest.
type RebootMethod string

const (
	// RebootDefault lets libvirt choose (ACPI, else the guest agent).
	RebootDefault RebootMethod = ""
	// RebootACPI presses the virtual power button's reboot.
	RebootACPI RebootMethod = "acpi"
	// RebootAgent asks the QEMU guest agent to reboot.
	RebootAgent RebootMethod = "agent"
)

var rebootFlags = map[RebootMethod]libvirt.DomainRebootFlagValues{
	RebootDefault: libvirt.DomainRebootDefault,
	RebootACPI:    libvirt.DomainRebootAcpiPowerBtn,
	RebootAgent:   libvirt.DomainRebootGuestAgent,
}

// RebootMethods lists the methods Reboot accepts, for messages.
func RebootMethods() []string { return []string{string(RebootACPI), string(RebootAgent)} }

// Reboot asks the guest of the running domain id to reboot. The guest
// decides when (and whether) it does: libvirt returns once the request is
// delivered.
func (d Domain) Reboot(ctx context.Context, id string, method RebootMethod) error {
	flags, ok := rebootFlags[method]
	if !ok {
		return fmt.Errorf("unknown reboot method %q", method)
	}
	dom, err := domainRef(id)
	if err != nil {
		return err
	}
	return d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		if err := requireRunning(l, dom, "reboot"); err != nil {
			return err
		}
		return l.DomainReboot(dom, flags)
	})
}

// Reset resets the running domain id at once, as the reset button of a
// physical machine: the guest's operating system is not asked.
func (d Domain) Reset(ctx context.Context, id string) error {
	dom, err := domainRef(id)
	if err != nil {
		return err
	}
	return d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		if err := requireRunning(l, dom, "reset"); err != nil {
			return err
		}
		return l.DomainReset(dom, 0)
	})
}

// DefaultShutdownTimeout is how long a shutdown waits for the guest before
// forcing it off when the configuration says nothing: the domain
// resource's shutdown_timeout and the shutdown action share it.
const DefaultShutdownTimeout = "60s"

// Shutdown stops the domain id as the domain resource's delete does: a
// graceful shutdown request, then forced off when the guest has not stopped
// within timeout (at once with timeout 0). graceful makes the forced stop
// itself graceful (VIR_DOMAIN_DESTROY_GRACEFUL: no SIGKILL to QEMU). report
// hears each step.
func (d Domain) Shutdown(ctx context.Context, id string, timeout time.Duration, graceful bool, report func(string)) (StopOutcome, error) {
	dom, err := domainRef(id)
	if err != nil {
		return StopWasOff, err
	}
	var out StopOutcome
	err = d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		out, err = stopDomainReporting(ctx, l, dom, timeout, graceful, report)
		return err
	})
	return out, err
}

// requireRunning fails with a clear message when the domain does not run:
// libvirt's own ("domain is not running") does not say which operation.
func requireRunning(l *libvirt.Libvirt, dom libvirt.Domain, op string) error {
	state, _, err := l.DomainGetState(dom, 0)
	if err != nil {
		return err
	}
	switch libvirt.DomainState(state) {
	case libvirt.DomainRunning, libvirt.DomainPaused, libvirt.DomainBlocked:
		return nil
	}
	return fmt.Errorf("cannot %s the domain: it is %s, not running", op, DomainStateName(libvirt.DomainState(state)))
}

// DomainStateName names a domain state as virsh does.
func DomainStateName(s libvirt.DomainState) string {
	switch s {
	case libvirt.DomainRunning:
		return "running"
	case libvirt.DomainBlocked:
		return "blocked"
	case libvirt.DomainPaused:
		return "paused"
	case libvirt.DomainShutdown:
		return "shutting down"
	case libvirt.DomainShutoff:
		return "shut off"
	case libvirt.DomainCrashed:
		return "crashed"
	case libvirt.DomainPmsuspended:
		return "suspended"
	}
	return "in no known state"
}

// State returns the domain's run state by name ("running", "shut off", ...).
func (d Domain) State(ctx context.Context, id string) (string, error) {
	dom, err := domainRef(id)
	if err != nil {
		return "", err
	}
	var state int32
	err = d.c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		state, _, err = l.DomainGetState(dom, 0)
		return err
	})
	return DomainStateName(libvirt.DomainState(state)), err
}
