package libvirtconn

import (
	"errors"
	"fmt"
	"os/user"
	"syscall"

	"github.com/digitalocean/go-libvirt"
)

// ErrNotFound is matched (errors.Is) by every libvirt error that says the
// object does not exist: Read removes such an object from state, Delete
// ignores it.
var ErrNotFound = errors.New("libvirt object not found")

// notFoundCodes are libvirt's "no such object" error numbers.
var notFoundCodes = map[libvirt.ErrorNumber]bool{
	libvirt.ErrNoDomain:           true,
	libvirt.ErrNoNetwork:          true,
	libvirt.ErrNoStoragePool:      true,
	libvirt.ErrNoStorageVol:       true,
	libvirt.ErrNoSecret:           true,
	libvirt.ErrNoDomainSnapshot:   true,
	libvirt.ErrNoNwfilter:         true,
	libvirt.ErrNoNwfilterBinding:  true,
	libvirt.ErrNoInterface:        true,
	libvirt.ErrNoNodeDevice:       true,
	libvirt.ErrNoDomainCheckpoint: true,
	libvirt.ErrNoNetworkPort:      true,
}

// Error is an error libvirtd returned for an operation.
type Error struct {
	// Code is libvirt's virErrorNumber (e.g. libvirt.ErrNoDomain).
	Code libvirt.ErrorNumber
	// Domain is libvirt's virErrorDomain. go-libvirt's wire decoder does
	// not keep it, so it is 0 (unknown) for errors that came through
	// go-libvirt; it is kept so callers can match it once it is available.
	Domain libvirt.ErrorDomain
	// Message is libvirt's own text.
	Message string

	err libvirt.Error
}

func (e *Error) Error() string { return e.Message }

// Unwrap exposes the go-libvirt error so errors.As(err, &libvirt.Error{})
// keeps working.
func (e *Error) Unwrap() error { return e.err }

// Is makes errors.Is(err, ErrNotFound) true for every "no such object" code.
func (e *Error) Is(target error) bool {
	return target == ErrNotFound && notFoundCodes[e.Code]
}

// WrapError turns a go-libvirt error (anywhere in err's chain) into *Error,
// keeping any outer context; other errors are returned unchanged.
func WrapError(err error) error {
	if err == nil {
		return nil
	}
	var typed *Error
	if errors.As(err, &typed) {
		return err
	}
	var le libvirt.Error
	if !errors.As(err, &le) {
		return err
	}
	wrapped := &Error{Code: libvirt.ErrorNumber(le.Code), Message: le.Message, err: le}
	if direct, ok := err.(libvirt.Error); ok && direct == le {
		return wrapped
	}
	// The libvirt error was wrapped by the caller: keep their context.
	return &contextError{msg: err.Error(), err: wrapped}
}

type contextError struct {
	msg string
	err *Error
}

func (c *contextError) Error() string { return c.msg }
func (c *contextError) Unwrap() error { return c.err }

// IsNotFound reports whether err says the libvirt object does not exist.
func IsNotFound(err error) bool {
	if errors.Is(err, ErrNotFound) {
		return true
	}
	var le libvirt.Error
	if errors.As(err, &le) {
		return notFoundCodes[libvirt.ErrorNumber(le.Code)]
	}
	return false
}

// localDialError explains why the local daemon socket could not be opened.
func localDialError(socket string, fromURI bool, err error) error {
	switch {
	case errors.Is(err, syscall.ENOENT):
		return fmt.Errorf("libvirt socket %s does not exist: is libvirtd running? Start it with \"systemctl start libvirtd\" "+
			"(modular daemons: \"systemctl start virtqemud.socket\"; without systemd: \"libvirtd -d\")%s: %w",
			socket, socketHint(fromURI), err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("libvirt socket %s exists but nobody accepts connections on it (stale socket): libvirtd is not running or is restarting; start it with \"systemctl start libvirtd\" (without systemd: \"libvirtd -d\"): %w",
			socket, err)
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		who := "your user"
		if u, uerr := user.Current(); uerr == nil {
			who = "user " + u.Username
		}
		return fmt.Errorf("permission denied on libvirt socket %s: %s may not use it. Add it to the group that owns the socket "+
			"(usually \"libvirt\": \"usermod -aG libvirt %s\", then log in again) or allow it with a polkit rule for action "+
			"\"org.libvirt.unix.manage\"; or connect to your own session daemon with qemu:///session: %w",
			socket, who, currentUserName(), err)
	}
	return fmt.Errorf("connecting to libvirt socket %s: %w", socket, err)
}

func socketHint(fromURI bool) string {
	if fromURI {
		return " (the path comes from socket= in the URI: check it)"
	}
	return ""
}

func currentUserName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "USER"
}

// openError explains libvirtd's refusal of ConnectOpen.
func openError(name string, err error) error {
	err = WrapError(err)
	var le *Error
	if errors.As(err, &le) {
		switch le.Code {
		case libvirt.ErrAuthFailed, libvirt.ErrAuthUnavailable, libvirt.ErrAuthCancelled, libvirt.ErrOperationDenied:
			return fmt.Errorf("libvirtd refused to open %s (authentication/authorization): %w; for a local socket, put the user in group \"libvirt\" or allow \"org.libvirt.unix.manage\" by a polkit rule", name, err)
		case libvirt.ErrNoConnect:
			return fmt.Errorf("libvirtd cannot open %s: %w (is the driver installed and enabled on that host?)", name, err)
		}
	}
	return fmt.Errorf("opening %s on libvirtd: %w", name, err)
}
