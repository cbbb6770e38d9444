package libvirtconn

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Transport is how the provider reaches libvirtd: the part after "+" in the
// URI scheme ("unix" when there is none and no host).
type Transport string

// The transports this package can dial.
const (
	TransportUnix Transport = "unix"
	TransportSSH  Transport = "ssh"
	TransportTCP  Transport = "tcp"
	TransportTLS  Transport = "tls"
)

// Default ports and sockets, as libvirt uses them.
const (
	DefaultSSHPort      = "22"
	DefaultTCPPort      = "16509"
	DefaultTLSPort      = "16514"
	DefaultSystemSocket = "/var/run/libvirt/libvirt-sock"
)

// supportedDrivers are the hypervisor drivers a libvirt daemon serves over its
// RPC protocol (the client-side-only drivers esx/vpx/hyperv are not reachable
// through libvirtd, so they are rejected with their own message).
var supportedDrivers = map[string]bool{
	"qemu": true, "test": true, "lxc": true, "xen": true, "libxl": true,
	"ch": true, "vbox": true, "bhyve": true, "vz": true, "openvz": true,
	"network": true, "storage": true, "nodedev": true, "secret": true,
	"nwfilter": true, "interface": true,
}

var clientSideDrivers = map[string]bool{"esx": true, "vpx": true, "gsx": true, "hyperv": true, "phyp": true}

var supportedTransports = []Transport{TransportUnix, TransportSSH, TransportTCP, TransportTLS}

// clientOnlyParams are query parameters libvirt's client consumes itself;
// they are never sent to the daemon in the ConnectOpen name.
var clientOnlyParams = map[string]bool{
	"name": true, "command": true, "socket": true, "netcat": true, "keyfile": true,
	"no_verify": true, "no_tty": true, "pkipath": true, "known_hosts": true,
	"known_hosts_verify": true, "sshauth": true, "mode": true, "proxy": true,
	"tls_priority": true, "ssh_config": true,
}

// Proxy modes for qemu+ssh: how the remote libvirt socket is reached.
const (
	// ProxyAuto forwards the remote socket through the SSH connection
	// (direct-streamlocal, allowed by OpenSSH's default
	// AllowStreamLocalForwarding=yes) and falls back to running
	// virt-ssh-helper remotely when the server refuses the forwarding.
	ProxyAuto = "auto"
	// ProxyNative runs virt-ssh-helper on the remote host (libvirt >= 6.8).
	ProxyNative = "native"
	// ProxyNetcat runs "nc -U <socket>" on the remote host.
	ProxyNetcat = "netcat"
	// ProxyDirect only uses direct-streamlocal forwarding.
	ProxyDirect = "direct"
)

// SSH authentication methods accepted in sshauth=.
const (
	SSHAuthAgent   = "agent"
	SSHAuthPrivKey = "privkey"
)

// Endpoint is a parsed, validated libvirt URI.
type Endpoint struct {
	// Raw is the URI as configured.
	Raw string
	// Driver is the hypervisor driver (the scheme before "+"), e.g. "qemu".
	Driver    string
	Transport Transport
	// User is the SSH login user (ssh only; defaults to the current user).
	User string
	// Hostname is the remote host without port or brackets; empty for unix.
	Hostname string
	// Port is the remote port, defaulted per transport; empty for unix.
	Port string
	// Path is the URI path, e.g. "/system".
	Path string
	// Name is what is sent to the daemon in ConnectOpen: the URI without
	// transport, host and client-only parameters (e.g. "qemu:///system").
	Name string
	// Socket is the unix socket path: local for unix, remote for ssh (empty
	// for ssh when it is not known, e.g. qemu+ssh:///session: see Proxy).
	Socket string
	// SocketFromURI is true when socket= was given.
	SocketFromURI bool

	// SSH settings.
	KeyFile    string
	KnownHosts string
	// UserFromURI, PortFromURI, KnownHostsFromURI: the URI set them, so
	// ssh_config's User, Port and UserKnownHostsFile do not apply.
	UserFromURI, PortFromURI, KnownHostsFromURI bool
	// SSHConfig is the OpenSSH client configuration consulted for the host
	// (default ~/.ssh/config; "none" for none).
	SSHConfig   string
	NoVerify    bool
	SSHAuth     []string
	Proxy       string
	NetcatBin   string
	PKIPath     string
	QueryParams url.Values
}

var driverRe = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// ParseURI parses and validates a libvirt connection URI without dialing.
func ParseURI(input string) (*Endpoint, error) {
	// every message and Endpoint.Raw show the URI without a password
	raw := redactRaw(input)
	if strings.TrimSpace(raw) == "" {
		return nil, fmt.Errorf("libvirt URI is empty; use for example %q, %q or %q",
			"qemu:///system", "qemu+ssh://user@host/system", "qemu+tls://host/system")
	}
	u, err := url.Parse(input)
	if err != nil {
		return nil, fmt.Errorf("libvirt URI %q cannot be parsed: %v", raw, unwrapURLError(err))
	}
	if u.Scheme == "" {
		return nil, fmt.Errorf("libvirt URI %q has no scheme: it must look like driver[+transport]://[user@][host][:port]/path, e.g. qemu:///system", raw)
	}
	if u.Opaque != "" {
		return nil, fmt.Errorf("libvirt URI %q must have \"//\" after the scheme, e.g. %s:///system", raw, u.Scheme)
	}
	e := &Endpoint{Raw: raw, Path: u.Path, QueryParams: u.Query()}

	driver, transport, hasTransport := strings.Cut(strings.ToLower(u.Scheme), "+")
	if !driverRe.MatchString(driver) {
		return nil, fmt.Errorf("libvirt URI %q: invalid driver %q in scheme", raw, driver)
	}
	if clientSideDrivers[driver] {
		return nil, fmt.Errorf("libvirt URI %q: the %q driver runs inside libvirt's C client library and is not served by libvirtd; this provider speaks libvirt's RPC protocol only (supported drivers: %s)",
			raw, driver, strings.Join(sortedKeys(supportedDrivers), ", "))
	}
	if !supportedDrivers[driver] {
		return nil, fmt.Errorf("libvirt URI %q: unsupported driver %q; supported drivers: %s (schemes are driver[+transport], transports: %s)",
			raw, driver, strings.Join(sortedKeys(supportedDrivers), ", "), transportList())
	}
	e.Driver = driver

	switch {
	case !hasTransport && u.Host != "":
		// libvirt's default for a URI with a host and no transport is TLS.
		e.Transport = TransportTLS
	case !hasTransport:
		e.Transport = TransportUnix
	default:
		t := Transport(transport)
		if !isSupportedTransport(t) {
			hint := ""
			if t == "libssh" || t == "libssh2" {
				hint = fmt.Sprintf(" (use %s+ssh://, which is implemented in Go here)", driver)
			}
			return nil, fmt.Errorf("libvirt URI %q: unsupported transport %q%s; supported schemes: %s+unix, %s+ssh, %s+tcp, %s+tls (or %s:// for the local socket)",
				raw, transport, hint, driver, driver, driver, driver, driver)
		}
		e.Transport = t
	}

	if driver == "qemu" && e.Path != "/system" && e.Path != "/session" {
		return nil, fmt.Errorf("libvirt URI %q: the qemu driver needs path /system or /session, got %q", raw, displayPath(e.Path))
	}

	q := u.Query()
	for key := range q {
		if len(q[key]) > 1 {
			return nil, fmt.Errorf("libvirt URI %q: parameter %q is given %d times", raw, key, len(q[key]))
		}
	}
	if v := q.Get("socket"); v != "" {
		if !filepath.IsAbs(v) {
			return nil, fmt.Errorf("libvirt URI %q: socket=%q must be an absolute path", raw, v)
		}
		e.Socket, e.SocketFromURI = v, true
	}
	if q.Has("no_verify") {
		switch q.Get("no_verify") {
		case "0", "":
		case "1":
			e.NoVerify = true
		default:
			return nil, fmt.Errorf("libvirt URI %q: no_verify must be 0 or 1, got %q", raw, q.Get("no_verify"))
		}
	}
	if v := q.Get("mode"); v != "" && v != "auto" && v != "legacy" && v != "direct" {
		return nil, fmt.Errorf("libvirt URI %q: mode must be auto, legacy or direct, got %q", raw, v)
	}

	switch e.Transport {
	case TransportUnix:
		if u.Host != "" {
			return nil, fmt.Errorf("libvirt URI %q: the unix transport is local and takes no host (%q); use %s+ssh://%s/... for a remote host", raw, u.Host, driver, u.Host)
		}
		if u.User != nil {
			return nil, fmt.Errorf("libvirt URI %q: the unix transport is local and takes no user name (%q); the socket's permissions decide who may connect", raw, u.User.Username())
		}
		for _, p := range []string{"keyfile", "known_hosts", "sshauth", "pkipath"} {
			if q.Has(p) {
				return nil, fmt.Errorf("libvirt URI %q: parameter %s= only applies to remote transports, not to the local socket", raw, p)
			}
		}
		if e.Socket == "" {
			e.Socket = localSocket(e.Path)
		}
	case TransportSSH, TransportTCP, TransportTLS:
		if err := e.parseHost(u); err != nil {
			return nil, err
		}
	}

	switch e.Transport {
	case TransportSSH:
		if err := e.parseSSH(u, q); err != nil {
			return nil, err
		}
	case TransportTCP, TransportTLS:
		for _, p := range []string{"keyfile", "known_hosts", "sshauth", "socket"} {
			if q.Has(p) {
				return nil, fmt.Errorf("libvirt URI %q: parameter %s= does not apply to the %s transport", raw, p, e.Transport)
			}
		}
		if e.Transport == TransportTCP && q.Has("pkipath") {
			return nil, fmt.Errorf("libvirt URI %q: pkipath= only applies to %s+tls:// (tcp is unencrypted)", raw, driver)
		}
		if u.User != nil {
			return nil, fmt.Errorf("libvirt URI %q: a user name only applies to %s+ssh:// (tcp/tls authenticate by certificate or SASL)", raw, driver)
		}
		e.PKIPath = q.Get("pkipath")
	}

	e.Name = daemonName(driver, e.Path, q)
	return e, nil
}

func (e *Endpoint) parseHost(u *url.URL) error {
	if u.Host == "" {
		return fmt.Errorf("libvirt URI %q: the %s transport needs a host, e.g. %s+%s://host/system", e.Raw, e.Transport, e.Driver, e.Transport)
	}
	e.Hostname = u.Hostname()
	e.Port = u.Port()
	if e.Hostname == "" {
		return fmt.Errorf("libvirt URI %q: empty host name", e.Raw)
	}
	if strings.HasSuffix(u.Host, ":") {
		return fmt.Errorf("libvirt URI %q: empty port after \":\"", e.Raw)
	}
	if e.Port != "" {
		n, err := strconv.Atoi(e.Port)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("libvirt URI %q: port %q is not a number between 1 and 65535", e.Raw, e.Port)
		}
	} else {
		switch e.Transport {
		case TransportSSH:
			e.Port = DefaultSSHPort
		case TransportTCP:
			e.Port = DefaultTCPPort
		case TransportTLS:
			e.Port = DefaultTLSPort
		}
	}
	return nil
}

func (e *Endpoint) parseSSH(u *url.URL, q url.Values) error {
	if q.Has("pkipath") {
		return fmt.Errorf("libvirt URI %q: pkipath= only applies to %s+tls://", e.Raw, e.Driver)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return fmt.Errorf("libvirt URI %q: passwords in the URI are not supported (they would end up in state and logs); use a key file (keyfile=) or ssh-agent", redactURI(u))
		}
		e.User = u.User.Username()
	}
	e.UserFromURI = e.User != ""
	e.PortFromURI = u.Port() != ""
	if e.User == "" {
		if cur, err := user.Current(); err == nil {
			e.User = cur.Username
		}
	}
	e.SSHConfig = expandHome(q.Get("ssh_config"))
	if e.SSHConfig == "" {
		if home, err := os.UserHomeDir(); err == nil {
			e.SSHConfig = filepath.Join(home, ".ssh", "config")
		}
	}
	e.KeyFile = expandHome(q.Get("keyfile"))
	e.KnownHostsFromURI = q.Has("known_hosts")
	e.KnownHosts = expandHome(q.Get("known_hosts"))
	if e.KnownHosts == "" {
		if home, err := os.UserHomeDir(); err == nil {
			e.KnownHosts = filepath.Join(home, ".ssh", "known_hosts")
		}
	}
	if q.Has("known_hosts_verify") {
		switch q.Get("known_hosts_verify") {
		case "normal":
		case "ignore":
			e.NoVerify = true
		default:
			return fmt.Errorf("libvirt URI %q: known_hosts_verify must be normal or ignore (auto, which adds unknown keys silently, is not supported: trust keys explicitly)", e.Raw)
		}
	}
	e.SSHAuth = []string{SSHAuthAgent, SSHAuthPrivKey}
	if v := q.Get("sshauth"); v != "" {
		e.SSHAuth = nil
		for _, m := range strings.Split(v, ",") {
			m = strings.TrimSpace(m)
			switch m {
			case SSHAuthAgent, SSHAuthPrivKey:
				e.SSHAuth = append(e.SSHAuth, m)
			case "password", "keyboard-interactive":
				return fmt.Errorf("libvirt URI %q: sshauth method %q needs an interactive prompt, which a provider does not have; use agent or privkey", e.Raw, m)
			default:
				return fmt.Errorf("libvirt URI %q: unknown sshauth method %q; supported: agent, privkey", e.Raw, m)
			}
		}
	}
	e.Proxy = ProxyAuto
	if v := q.Get("proxy"); v != "" {
		switch v {
		case ProxyAuto, ProxyNative, ProxyNetcat, ProxyDirect:
			e.Proxy = v
		default:
			return fmt.Errorf("libvirt URI %q: proxy must be auto, native, netcat or direct, got %q", e.Raw, v)
		}
	}
	e.NetcatBin = "nc"
	if v := q.Get("netcat"); v != "" {
		e.NetcatBin = v
	}
	if e.Socket == "" && e.Path != "/session" {
		e.Socket = DefaultSystemSocket
	}
	if e.Socket == "" && (e.Proxy == ProxyDirect || e.Proxy == ProxyNetcat) {
		return fmt.Errorf("libvirt URI %q: the remote session socket path is not known; add socket=/run/user/UID/libvirt/libvirt-sock or use proxy=auto/native (virt-ssh-helper)", e.Raw)
	}
	return nil
}

// daemonName is the ConnectOpen name: name= verbatim, else the driver, path
// and every parameter that is not client-only.
func daemonName(driver, path string, q url.Values) string {
	if n := q.Get("name"); n != "" {
		return n
	}
	rest := url.Values{}
	for k, v := range q {
		if !clientOnlyParams[k] {
			rest[k] = v
		}
	}
	name := driver + "://" + path
	if len(rest) > 0 {
		name += "?" + rest.Encode()
	}
	return name
}

// localSocket is the daemon socket libvirt's client uses for a local URI:
// per-user for /session, the system daemon otherwise.
func localSocket(path string) string {
	if path == "/session" {
		return sessionSocket()
	}
	return DefaultSystemSocket
}

// sessionSocket follows libvirt: $XDG_RUNTIME_DIR/libvirt/libvirt-sock, else
// ~/.cache/libvirt/libvirt-sock.
func sessionSocket() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "libvirt", "libvirt-sock")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = "~"
	}
	return filepath.Join(home, ".cache", "libvirt", "libvirt-sock")
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

func isSupportedTransport(t Transport) bool {
	for _, s := range supportedTransports {
		if s == t {
			return true
		}
	}
	return false
}

func transportList() string {
	s := make([]string, len(supportedTransports))
	for i, t := range supportedTransports {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func displayPath(p string) string {
	if p == "" {
		return "(empty)"
	}
	return p
}

func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// credentialsInURI matches the user-info of a URI that holds a password.
var credentialsInURI = regexp.MustCompile(`(://[^/?#@:]*):[^/?#@]*@`)

// redactRaw drops a password from a URI string, whether or not it parses.
func redactRaw(s string) string { return credentialsInURI.ReplaceAllString(s, "$1:xxxxx@") }

func redactURI(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(c.User.Username())
	}
	return c.String()
}

// hostPort joins the endpoint's host and port for dialing.
func (e *Endpoint) hostPort() string { return net.JoinHostPort(e.Hostname, e.Port) }
