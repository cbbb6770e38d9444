package libvirtconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// localDialer opens the daemon's unix socket.
type localDialer struct {
	socket  string
	fromURI bool
	timeout time.Duration
}

func (d *localDialer) Dial() (net.Conn, error) {
	c, err := net.DialTimeout("unix", d.socket, d.timeout)
	if err != nil {
		return nil, localDialError(d.socket, d.fromURI, err)
	}
	if uc, ok := c.(*net.UnixConn); ok {
		// a whole stream packet (256 KiB) fits the socket in one write:
		// the default (208 KiB) splits each packet into partial writes,
		// and each wait for the socket to drain is a wake-up that costs
		// much on a loaded machine. The kernel caps it at wmem_max.
		_ = uc.SetWriteBuffer(StreamWriteBuffer)
	}
	return c, nil
}

// StreamWriteBuffer is the send buffer asked for on the local socket.
var StreamWriteBuffer = 4 << 20

// tcpDialer opens qemu+tcp:// (unencrypted; libvirtd must have
// listen_tcp=1 and usually SASL).
type tcpDialer struct {
	ep      *Endpoint
	timeout time.Duration
}

func (d *tcpDialer) Dial() (net.Conn, error) {
	c, err := net.DialTimeout("tcp", d.ep.hostPort(), d.timeout)
	if err != nil {
		return nil, remoteDialError(d.ep, err)
	}
	return c, nil
}

func remoteDialError(ep *Endpoint, err error) error {
	if errors.Is(err, syscall.ECONNREFUSED) {
		flag := "listen_tcp = 1"
		if ep.Transport == TransportTLS {
			flag = "listen_tls = 1"
		}
		return fmt.Errorf("libvirtd on %s does not listen on %s port %s (connection refused): enable it with %q in /etc/libvirt/libvirtd.conf and start libvirtd with --listen (or the libvirtd-%s.socket unit): %w",
			ep.Hostname, ep.Transport, ep.Port, flag, ep.Transport, err)
	}
	return fmt.Errorf("connecting to libvirtd at %s (%s): %w", ep.hostPort(), ep.Transport, err)
}

// TLSFiles are the certificate files qemu+tls:// uses.
type TLSFiles struct {
	CACert, ClientCert, ClientKey string
}

// tlsFiles resolves the files like libvirt: pkipath= holds all three;
// otherwise a non-root user's ~/.pki/libvirt files win when present, then
// the system locations.
func tlsFiles(pkiPath string) (TLSFiles, error) {
	if pkiPath != "" {
		f := TLSFiles{
			CACert:     filepath.Join(pkiPath, "cacert.pem"),
			ClientCert: filepath.Join(pkiPath, "clientcert.pem"),
			ClientKey:  filepath.Join(pkiPath, "clientkey.pem"),
		}
		for _, p := range []string{f.CACert, f.ClientCert, f.ClientKey} {
			if err := mustExist(p, "pkipath="+pkiPath); err != nil {
				return f, err
			}
		}
		return f, nil
	}
	system := TLSFiles{
		CACert:     "/etc/pki/CA/cacert.pem",
		ClientCert: "/etc/pki/libvirt/clientcert.pem",
		ClientKey:  "/etc/pki/libvirt/private/clientkey.pem",
	}
	if os.Geteuid() == 0 {
		for _, p := range []string{system.CACert, system.ClientCert, system.ClientKey} {
			if err := mustExist(p, "libvirt's default for root; set pkipath= to use another directory"); err != nil {
				return system, err
			}
		}
		return system, nil
	}
	home, _ := os.UserHomeDir()
	user := filepath.Join(home, ".pki", "libvirt")
	pick := func(userFile, systemFile string) (string, error) {
		u := filepath.Join(user, userFile)
		if _, err := os.Stat(u); err == nil {
			return u, nil
		}
		if _, err := os.Stat(systemFile); err == nil {
			return systemFile, nil
		}
		return "", fmt.Errorf("TLS file %s is missing (also looked for %s); create it or set pkipath= to a directory holding cacert.pem, clientcert.pem and clientkey.pem", u, systemFile)
	}
	var f TLSFiles
	var err error
	if f.CACert, err = pick("cacert.pem", system.CACert); err != nil {
		return f, err
	}
	if f.ClientCert, err = pick("clientcert.pem", system.ClientCert); err != nil {
		return f, err
	}
	if f.ClientKey, err = pick("clientkey.pem", system.ClientKey); err != nil {
		return f, err
	}
	return f, nil
}

func mustExist(path, why string) error {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("TLS file %s is missing (%s); it must hold the %s", path, why, tlsFileRole(filepath.Base(path)))
	}
	if err != nil {
		return fmt.Errorf("TLS file %s: %w", path, err)
	}
	return nil
}

func tlsFileRole(base string) string {
	switch base {
	case "cacert.pem":
		return "CA certificate that signed the server's certificate"
	case "clientcert.pem":
		return "client certificate"
	case "clientkey.pem":
		return "client private key"
	}
	return "PEM file"
}

// tlsDialer opens qemu+tls://.
type tlsDialer struct {
	ep      *Endpoint
	timeout time.Duration
}

func (d *tlsDialer) config() (*tls.Config, error) {
	files, err := tlsFiles(d.ep.PKIPath)
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(files.ClientCert, files.ClientKey)
	if err != nil {
		return nil, fmt.Errorf("loading TLS client certificate %s with key %s: %w", files.ClientCert, files.ClientKey, err)
	}
	caPEM, err := os.ReadFile(files.CACert)
	if err != nil {
		return nil, fmt.Errorf("reading TLS CA certificate: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("TLS CA file %s holds no PEM certificate", files.CACert)
	}
	return &tls.Config{
		Certificates:       []tls.Certificate{cert},
		RootCAs:            pool,
		ServerName:         d.ep.Hostname,
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: d.ep.NoVerify, //nolint:gosec // no_verify=1 is the user's explicit choice; Warnings() says so
	}, nil
}

func (d *tlsDialer) Dial() (net.Conn, error) {
	cfg, err := d.config()
	if err != nil {
		return nil, err
	}
	raw, err := net.DialTimeout("tcp", d.ep.hostPort(), d.timeout)
	if err != nil {
		return nil, remoteDialError(d.ep, err)
	}
	_ = raw.SetDeadline(time.Now().Add(d.timeout))
	c := tls.Client(raw, cfg)
	if err := c.Handshake(); err != nil {
		raw.Close()
		return nil, fmt.Errorf("TLS handshake with libvirtd at %s failed: %w", d.ep.hostPort(), err)
	}
	// libvirtd sends one byte after checking our certificate: 1 = accepted.
	buf := make([]byte, 1)
	if _, err := c.Read(buf); err != nil {
		c.Close()
		return nil, fmt.Errorf("libvirtd at %s closed the TLS connection after the handshake (it rejected our client certificate or address): %w", d.ep.hostPort(), err)
	}
	if buf[0] != 1 {
		c.Close()
		return nil, fmt.Errorf("libvirtd at %s rejected our client certificate (check its tls_allowed_dn_list and that the certificate is signed by its CA)", d.ep.hostPort())
	}
	_ = raw.SetDeadline(time.Time{})
	return c, nil
}
