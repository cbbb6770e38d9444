package libvirtconn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// defaultKeyFiles are tried, in this order, when the URI has no keyfile=.
var defaultKeyFiles = []string{"id_ed25519", "id_ecdsa", "id_rsa"}

// sshDialer reaches a remote libvirtd through golang.org/x/crypto/ssh. The
// remote socket is forwarded with direct-streamlocal (OpenSSH's default
// AllowStreamLocalForwarding=yes, as on Debian); when the server forbids
// that, or the socket path is unknown (qemu+ssh:///session), it runs
// virt-ssh-helper on the remote host instead (proxy=native), or "nc -U"
// (proxy=netcat).
type sshDialer struct {
	ep      *Endpoint
	timeout time.Duration
}

// authSource is one place a key came from, for the failure report.
type authSource struct {
	what string // e.g. "ssh-agent", "key file /root/.ssh/id_ed25519"
	note string // e.g. "2 keys", "not found", "passphrase-protected"
}

func (d *sshDialer) Dial() (net.Conn, error) {
	hops, knownHosts, err := sshRoute(d.ep)
	if err != nil {
		return nil, err
	}
	// jump hosts first: each next hop is reached through a direct-tcpip
	// channel of the one before, with its own keys and host key check
	var jumps []*ssh.Client
	closeJumps := func() {
		for i := len(jumps) - 1; i >= 0; i-- {
			jumps[i].Close()
		}
	}
	var client *ssh.Client
	for i, hop := range hops {
		var via *ssh.Client
		if i > 0 {
			via = jumps[i-1]
		}
		c, err := d.dialHop(hop, via, knownHosts, i < len(hops)-1)
		if err != nil {
			closeJumps()
			return nil, err
		}
		if i < len(hops)-1 {
			jumps = append(jumps, c)
		} else {
			client = c
		}
	}
	if len(jumps) > 0 {
		// the jump hosts' sessions end with the target's
		go func() { _ = client.Wait(); closeJumps() }()
	}

	conn, err := d.openRemote(client)
	if err != nil {
		client.Close()
		return nil, err
	}
	return conn, nil
}

// dialHop opens an SSH client to hop, through via (a jump host) when not nil.
func (d *sshDialer) dialHop(hop sshHop, via *ssh.Client, knownHosts string, isJump bool) (*ssh.Client, error) {
	ep := d.ep
	role := ""
	if isJump {
		role = "jump host "
	}
	signers, sources, closeAgent := collectSigners(ep.SSHAuth, hop.keyFiles, len(hop.keyFiles) > 0)
	defer closeAgent()
	if len(signers) == 0 {
		return nil, fmt.Errorf("SSH to %s%s@%s: no usable key; tried %s. Provide a key without passphrase with keyfile= (or IdentityFile in ssh_config), "+
			"or load the key into ssh-agent (ssh-add) and make SSH_AUTH_SOCK visible to the provider",
			role, hop.user, hop.hostPort(), describeSources(ep, sources))
	}
	cfg := &ssh.ClientConfig{
		User:    hop.user,
		Auth:    []ssh.AuthMethod{ssh.PublicKeys(signers...)},
		Timeout: d.timeout,
	}
	var hostKeyErr error
	if ep.NoVerify {
		cfg.HostKeyCallback = ssh.InsecureIgnoreHostKey() //nolint:gosec // the user asked for no_verify=1; Warnings() says so
	} else {
		checker, err := newHostKeyChecker(knownHosts, hop.hostname, hop.port)
		if err != nil {
			return nil, err
		}
		cfg.HostKeyAlgorithms = checker.knownAlgorithms()
		cfg.HostKeyCallback = func(hostname string, remote net.Addr, key ssh.PublicKey) error {
			hostKeyErr = checker.check(hostname, remote, key)
			if hostKeyErr != nil && isJump {
				hostKeyErr = fmt.Errorf("jump host %s: %w", hop.name, hostKeyErr)
			}
			return hostKeyErr
		}
	}

	var conn net.Conn
	var err error
	if via == nil {
		conn, err = net.DialTimeout("tcp", hop.hostPort(), d.timeout)
	} else {
		conn, err = via.Dial("tcp", hop.hostPort())
	}
	if err != nil {
		return nil, fmt.Errorf("SSH to %s%s: cannot reach the SSH server: %w", role, hop.hostPort(), err)
	}
	_ = conn.SetDeadline(time.Now().Add(d.timeout))
	sc, chans, reqs, err := ssh.NewClientConn(conn, hop.hostPort(), cfg)
	if err != nil {
		conn.Close()
		if hostKeyErr != nil {
			return nil, hostKeyErr
		}
		if strings.Contains(err.Error(), "unable to authenticate") {
			return nil, fmt.Errorf("SSH authentication as %q to %s%s failed: the server accepted none of the offered keys; tried %s. "+
				"Make sure the public key is in ~%s/.ssh/authorized_keys on the server (%v)",
				hop.user, role, hop.hostPort(), describeSources(ep, sources), hop.user, err)
		}
		return nil, fmt.Errorf("SSH to %s%s: %w", role, hop.hostPort(), err)
	}
	_ = conn.SetDeadline(time.Time{})
	return ssh.NewClient(sc, chans, reqs), nil
}

// openRemote opens the byte stream to the remote libvirtd.
func (d *sshDialer) openRemote(client *ssh.Client) (net.Conn, error) {
	ep := d.ep
	host := ep.hostPort()
	switch {
	case ep.Proxy == ProxyNative || (ep.Proxy == ProxyAuto && ep.Socket == ""):
		return d.runRemote(client, "virt-ssh-helper "+shellQuote(ep.Name))
	case ep.Proxy == ProxyNetcat:
		return d.runRemote(client, ep.NetcatBin+" -U "+shellQuote(ep.Socket))
	}
	ch, err := client.Dial("unix", ep.Socket)
	if err == nil {
		return &sshStreamConn{Conn: ch, client: client}, nil
	}
	var oce *ssh.OpenChannelError
	if !errors.As(err, &oce) {
		return nil, fmt.Errorf("opening libvirt socket %s on %s through SSH: %w", ep.Socket, host, err)
	}
	// OpenSSH answers "open failed" both when the socket is missing and
	// when AllowStreamLocalForwarding forbids forwarding, so both reasons
	// are named; proxy=auto (without socket=, which virt-ssh-helper
	// cannot honour) first tries virt-ssh-helper, which reports the
	// real cause on its stderr (see sshCommandConn.diagnose).
	why := fmt.Errorf("the SSH server %s did not forward the libvirt socket %s: either it does not exist there (is libvirtd running on %s? \"systemctl start libvirtd\"; does user %q have access to it, group \"libvirt\"?%s) "+
		"or sshd forbids socket forwarding (AllowStreamLocalForwarding no: use proxy=native for virt-ssh-helper or proxy=netcat): %w",
		host, ep.Socket, ep.Hostname, ep.User, socketHint(ep.SocketFromURI), err)
	if ep.Proxy == ProxyAuto && !ep.SocketFromURI {
		conn, herr := d.runRemote(client, "virt-ssh-helper "+shellQuote(ep.Name))
		if herr != nil {
			return nil, fmt.Errorf("%w; falling back to virt-ssh-helper failed too: %v", why, herr)
		}
		conn.(*sshCommandConn).fallbackFrom = why
		return conn, nil
	}
	return nil, why
}

// runRemote runs command on the server and uses its stdin/stdout as the
// libvirt stream.
func (d *sshDialer) runRemote(client *ssh.Client, command string) (net.Conn, error) {
	sess, err := client.NewSession()
	if err != nil {
		return nil, fmt.Errorf("SSH to %s: opening a session for %q: %w", d.ep.hostPort(), command, err)
	}
	stdin, err := sess.StdinPipe()
	if err != nil {
		sess.Close()
		return nil, err
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		sess.Close()
		return nil, err
	}
	stderr := &limitedBuffer{max: 4096}
	sess.Stderr = stderr
	if err := sess.Start(command); err != nil {
		sess.Close()
		return nil, fmt.Errorf("SSH to %s: running %q: %w", d.ep.hostPort(), command, err)
	}
	return &sshCommandConn{
		r: stdout, w: stdin, sess: sess, client: client, stderr: stderr, command: command,
		local: client.LocalAddr(), remote: client.RemoteAddr(),
	}, nil
}

// collectSigners gathers keys in sshauth= order: the agent's, and keyFiles
// (the default key files when none); explicit says the files were named
// (keyfile=, IdentityFile), so a missing one is reported. The returned func
// closes the agent connection once the handshake is over.
func collectSigners(auth, keyFiles []string, explicit bool) ([]ssh.Signer, []authSource, func()) {
	var signers []ssh.Signer
	var sources []authSource
	closer := func() {}
	for _, method := range auth {
		switch method {
		case SSHAuthAgent:
			sock := os.Getenv("SSH_AUTH_SOCK")
			if sock == "" {
				sources = append(sources, authSource{"ssh-agent", "SSH_AUTH_SOCK is not set"})
				continue
			}
			conn, err := net.Dial("unix", sock)
			if err != nil {
				sources = append(sources, authSource{"ssh-agent", "cannot connect to " + sock + ": " + err.Error()})
				continue
			}
			closer = func() { conn.Close() }
			got, err := agent.NewClient(conn).Signers()
			if err != nil {
				sources = append(sources, authSource{"ssh-agent", "listing keys failed: " + err.Error()})
				continue
			}
			sources = append(sources, authSource{"ssh-agent", fmt.Sprintf("%d key(s)", len(got))})
			signers = append(signers, got...)
		case SSHAuthPrivKey:
			files := keyFiles
			if len(files) == 0 {
				explicit = false
				if home, err := os.UserHomeDir(); err == nil {
					for _, f := range defaultKeyFiles {
						files = append(files, filepath.Join(home, ".ssh", f))
					}
				}
			}
			for _, f := range files {
				s, note := loadKeyFile(f, explicit)
				if s != nil {
					signers = append(signers, s)
				}
				if note != "" {
					sources = append(sources, authSource{"key file " + f, note})
				}
			}
		}
	}
	return signers, sources, closer
}

// loadKeyFile parses a private key; note describes the result without any
// key material (only the public fingerprint).
func loadKeyFile(path string, explicit bool) (ssh.Signer, string) {
	pem, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if explicit {
			return nil, "does not exist"
		}
		return nil, ""
	}
	if err != nil {
		return nil, "cannot be read: " + err.Error()
	}
	signer, err := ssh.ParsePrivateKey(pem)
	var ppErr *ssh.PassphraseMissingError
	if errors.As(err, &ppErr) {
		return nil, "is passphrase-protected (load it into ssh-agent with ssh-add and use sshauth=agent)"
	}
	if err != nil {
		return nil, "is not a private key OpenSSH format understands"
	}
	pub := signer.PublicKey()
	return signer, fmt.Sprintf("%s %s", keyTypeName(pub.Type()), ssh.FingerprintSHA256(pub))
}

func describeSources(ep *Endpoint, sources []authSource) string {
	parts := make([]string, 0, len(sources))
	for _, s := range sources {
		parts = append(parts, s.what+" ("+s.note+")")
	}
	if len(parts) == 0 {
		parts = append(parts, "no key files found (~/.ssh/"+strings.Join(defaultKeyFiles, ", ~/.ssh/")+")")
	}
	return fmt.Sprintf("sshauth=%s: %s", strings.Join(ep.SSHAuth, ","), strings.Join(parts, "; "))
}

// shellQuote single-quotes s for the remote POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sshStreamConn is a forwarded unix-socket channel that also closes its SSH
// client, so a dropped libvirt connection leaves no SSH session behind.
type sshStreamConn struct {
	net.Conn
	client *ssh.Client
	once   sync.Once
}

func (c *sshStreamConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.client.Close() })
	return err
}

// sshCommandConn is the stdin/stdout of a remote command as a net.Conn.
type sshCommandConn struct {
	r             io.Reader
	w             io.WriteCloser
	sess          *ssh.Session
	client        *ssh.Client
	stderr        *limitedBuffer
	command       string
	local, remote net.Addr
	once          sync.Once
	// fallbackFrom is why socket forwarding was not used (proxy=auto).
	fallbackFrom error
}

// diagnose explains a failed libvirt handshake over the remote command: its
// stderr and exit status (waiting briefly for them to arrive).
func (c *sshCommandConn) diagnose() string {
	done := make(chan error, 1)
	go func() { done <- c.sess.Wait() }()
	var exit error
	select {
	case exit = <-done:
	case <-time.After(2 * time.Second):
	}
	msg := fmt.Sprintf("remote command %q", c.command)
	var missing *ssh.ExitMissingError
	if exit != nil && !errors.As(exit, &missing) {
		msg += " failed (" + exit.Error() + ")"
	}
	if e := strings.TrimSpace(c.stderr.String()); e != "" {
		msg += ": " + e
	} else {
		msg += " closed the connection"
	}
	if c.fallbackFrom != nil {
		msg += " [used because " + c.fallbackFrom.Error() + "]"
	}
	return msg
}

func (c *sshCommandConn) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		if msg := strings.TrimSpace(c.stderr.String()); msg != "" {
			return n, fmt.Errorf("remote %q ended: %s: %w", c.command, msg, io.EOF)
		}
	}
	return n, err
}
func (c *sshCommandConn) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c *sshCommandConn) Close() error {
	c.once.Do(func() {
		c.w.Close()
		c.sess.Close()
		c.client.Close()
	})
	return nil
}
func (c *sshCommandConn) LocalAddr() net.Addr              { return c.local }
func (c *sshCommandConn) RemoteAddr() net.Addr             { return c.remote }
func (c *sshCommandConn) SetDeadline(time.Time) error      { return nil }
func (c *sshCommandConn) SetReadDeadline(time.Time) error  { return nil }
func (c *sshCommandConn) SetWriteDeadline(time.Time) error { return nil }

// limitedBuffer keeps the first max bytes written (remote stderr).
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
