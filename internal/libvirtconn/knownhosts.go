package libvirtconn

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// HostKeyProblem says why a server's SSH host key was not accepted.
type HostKeyProblem string

// The ways a host key can fail verification.
const (
	HostKeyUnknown HostKeyProblem = "unknown"
	HostKeyChanged HostKeyProblem = "changed"
	HostKeyRevoked HostKeyProblem = "revoked"
)

// HostKeyError is a refused SSH host key. Its text names the host, the
// offered key's SHA256 fingerprint and how to trust the key.
type HostKeyError struct {
	Problem HostKeyProblem
	// Host and Port as dialed.
	Host, Port string
	// KeyType and Fingerprint (SHA256:...) of the key the server offered.
	KeyType, Fingerprint string
	// KnownHosts is the file that was consulted.
	KnownHosts string
	// Known lists "file:line fingerprint" of the entries the key was
	// compared with (changed keys only).
	Known []string
	// FileMissing is true when the known_hosts file does not exist.
	FileMissing bool
}

func (e *HostKeyError) Error() string {
	entry := knownhosts.Normalize(net.JoinHostPort(e.Host, e.Port))
	scan := "ssh-keyscan"
	if e.Port != DefaultSSHPort {
		scan += " -p " + e.Port
	}
	scan += " " + e.Host + " >> " + e.KnownHosts
	check := "compare it with \"ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub\" run on the server"
	switch e.Problem {
	case HostKeyChanged:
		return fmt.Sprintf("SSH host key of %s has CHANGED: the server offered %s key %s, which does not match %s in %s. "+
			"Someone may be intercepting the connection (man-in-the-middle), or the host was reinstalled. "+
			"If you are sure the new key is right (%s), remove the old entry with \"ssh-keygen -R '%s' -f %s\" and trust the new one with \"%s\"",
			entry, e.KeyType, e.Fingerprint, strings.Join(e.Known, ", "), e.KnownHosts, check, entry, e.KnownHosts, scan)
	case HostKeyRevoked:
		return fmt.Sprintf("SSH host key of %s (%s %s) is marked @revoked in %s; refusing to connect", entry, e.KeyType, e.Fingerprint, e.KnownHosts)
	}
	where := "it is not in " + e.KnownHosts
	if e.FileMissing {
		where = "the known_hosts file " + e.KnownHosts + " does not exist"
	}
	return fmt.Sprintf("SSH host key of %s is unknown (%s key %s): %s. Host keys are verified to prevent man-in-the-middle attacks. "+
		"To trust this host, %s, then add it with \"%s\" (or set known_hosts= in the URI to another file; no_verify=1 turns checking off, insecure)",
		entry, e.KeyType, e.Fingerprint, where, check, scan)
}

// hostKeyChecker verifies server host keys against one known_hosts file
// (hashed "|1|" entries and "[host]:port" entries included).
type hostKeyChecker struct {
	file       string
	host, port string
	callback   ssh.HostKeyCallback
	missing    bool
}

func newHostKeyChecker(file, host, port string) (*hostKeyChecker, error) {
	c := &hostKeyChecker{file: file, host: host, port: port}
	if file == "" {
		return nil, errors.New("no known_hosts file: set known_hosts= in the URI (the home directory could not be determined)")
	}
	cb, err := knownhosts.New(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.missing = true
	case err != nil:
		return nil, fmt.Errorf("reading known_hosts file %s: %w", file, err)
	default:
		c.callback = cb
	}
	return c, nil
}

// check is the ssh.HostKeyCallback.
func (c *hostKeyChecker) check(hostname string, remote net.Addr, key ssh.PublicKey) error {
	base := &HostKeyError{
		Host: c.host, Port: c.port, KnownHosts: c.file,
		KeyType: keyTypeName(key.Type()), Fingerprint: ssh.FingerprintSHA256(key),
	}
	if c.callback == nil {
		base.Problem, base.FileMissing = HostKeyUnknown, true
		return base
	}
	err := c.callback(net.JoinHostPort(c.host, c.port), remote, key)
	if err == nil {
		return nil
	}
	var keyErr *knownhosts.KeyError
	var revErr *knownhosts.RevokedError
	switch {
	case errors.As(err, &revErr):
		base.Problem = HostKeyRevoked
		return base
	case errors.As(err, &keyErr) && len(keyErr.Want) == 0:
		base.Problem = HostKeyUnknown
		return base
	case errors.As(err, &keyErr):
		base.Problem = HostKeyChanged
		for _, k := range keyErr.Want {
			base.Known = append(base.Known, fmt.Sprintf("%s:%d (%s %s)", k.Filename, k.Line, keyTypeName(k.Key.Type()), ssh.FingerprintSHA256(k.Key)))
		}
		return base
	}
	return fmt.Errorf("checking SSH host key of %s against %s: %w", c.host, c.file, err)
}

// knownAlgorithms lists the host key algorithms of the keys known for the
// host, so the server is asked for a key we can verify (without this a server
// offering ed25519 and rsa could pick rsa while known_hosts holds ed25519).
func (c *hostKeyChecker) knownAlgorithms() []string {
	if c.callback == nil {
		return nil
	}
	probe, err := probeKey()
	if err != nil {
		return nil
	}
	var keyErr *knownhosts.KeyError
	err = c.callback(net.JoinHostPort(c.host, c.port), &net.TCPAddr{IP: net.IPv4zero}, probe)
	if !errors.As(err, &keyErr) {
		return nil
	}
	var algos []string
	seen := map[string]bool{}
	add := func(a string) {
		if !seen[a] {
			seen[a] = true
			algos = append(algos, a)
		}
	}
	for _, k := range keyErr.Want {
		switch t := k.Key.Type(); t {
		case ssh.KeyAlgoRSA:
			add(ssh.KeyAlgoRSASHA512)
			add(ssh.KeyAlgoRSASHA256)
			add(ssh.KeyAlgoRSA)
		default:
			add(t)
		}
	}
	return algos
}

func probeKey() (ssh.PublicKey, error) {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return ssh.NewPublicKey(pub)
}

// keyTypeName is the short name ssh-keygen prints (ED25519, RSA, ECDSA).
func keyTypeName(t string) string {
	switch {
	case t == ssh.KeyAlgoED25519:
		return "ED25519"
	case t == ssh.KeyAlgoRSA:
		return "RSA"
	case strings.HasPrefix(t, "ecdsa-"):
		return "ECDSA"
	case strings.HasPrefix(t, "sk-"):
		return strings.ToUpper(t)
	}
	return t
}
