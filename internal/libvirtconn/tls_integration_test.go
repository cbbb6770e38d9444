package libvirtconn

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
)

// libvirtd does not listen on TCP by default, so qemu+tcp:// and
// qemu+tls:// are proven against relays on 127.0.0.1 that forward to the
// real daemon's unix socket: the relay plays libvirtd's network front end
// (TLS with client certificates and the one-byte certificate verdict), the
// RPC conversation is with the real libvirtd.

type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, cn string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns PEM certificate and key for a server or client.
// A server certificate names 127.0.0.1 and localhost unless dnsNames
// replaces them.
func (ca *testCA) issue(t *testing.T, cn string, server bool, dnsNames ...string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		tmpl.DNSNames = []string{"localhost"}
		if len(dnsNames) > 0 {
			tmpl.IPAddresses, tmpl.DNSNames = nil, dnsNames
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
}

// relay forwards accepted connections to the local libvirtd socket.
type relay struct {
	ln      net.Listener
	mu      sync.Mutex
	clients []string // client certificate CNs seen (TLS)
}

func (r *relay) port() string { return strings.Split(r.ln.Addr().String(), ":")[1] }

func (r *relay) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.clients...)
}

// startRelay serves on 127.0.0.1; with tlsCfg it terminates TLS and sends
// verdict (1 = client certificate accepted) like libvirtd does.
func startRelay(t *testing.T, tlsCfg *tls.Config, verdict byte) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				if tlsCfg != nil {
					tc := tls.Server(c, tlsCfg)
					if err := tc.Handshake(); err != nil {
						return
					}
					if certs := tc.ConnectionState().PeerCertificates; len(certs) > 0 {
						r.mu.Lock()
						r.clients = append(r.clients, certs[0].Subject.CommonName)
						r.mu.Unlock()
					}
					if _, err := tc.Write([]byte{verdict}); err != nil || verdict != 1 {
						return
					}
					c = tc
				}
				u, err := net.Dial("unix", DefaultSystemSocket)
				if err != nil {
					return
				}
				defer u.Close()
				done := make(chan struct{}, 2)
				go func() { io.Copy(u, c); done <- struct{}{} }()
				go func() { io.Copy(c, u); done <- struct{}{} }()
				<-done
			}()
		}
	}()
	return r
}

// writePKI creates pkipath files (CA, client cert/key) and the server's
// certificate, signed by serverCA (normally the same CA).
func writePKI(t *testing.T, ca, serverCA *testCA) (string, *tls.Config) {
	t.Helper()
	dir := t.TempDir()
	certPEM, keyPEM := ca.issue(t, "tfplv-client", false)
	for name, b := range map[string][]byte{"cacert.pem": ca.pem, "clientcert.pem": certPEM, "clientkey.pem": keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sCert, sKey := serverCA.issue(t, "127.0.0.1", true)
	serverPair, err := tls.X509KeyPair(sCert, sKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return dir, &tls.Config{
		Certificates: []tls.Certificate{serverPair},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
		MinVersion:   tls.VersionTLS12,
	}
}

func daemonURIVia(t *testing.T, uri string) (string, *Client, error) {
	t.Helper()
	c, err := New(uri)
	if err != nil {
		t.Fatalf("New(%q): %v", uri, err)
	}
	t.Cleanup(func() { c.Close() })
	var name string
	err = c.Do(context.Background(), func(l *libvirt.Libvirt) error {
		var err error
		name, err = l.ConnectGetUri()
		return err
	})
	return name, c, err
}

func TestIntegrationTLSRelay(t *testing.T) {
	integrationURI(t)
	ca := newTestCA(t, "tfplv test CA")

	t.Run("client certificate from pkipath", func(t *testing.T) {
		dir, cfg := writePKI(t, ca, ca)
		r := startRelay(t, cfg, 1)
		name, c, err := daemonURIVia(t, "qemu+tls://127.0.0.1:"+r.port()+"/system?pkipath="+dir)
		if err != nil {
			t.Fatal(err)
		}
		if name != "qemu:///system" {
			t.Errorf("daemon opened %q", name)
		}
		if seen := r.seen(); len(seen) != 1 || seen[0] != "tfplv-client" {
			t.Errorf("relay saw client certificates %v, want [tfplv-client]", seen)
		}
		if len(c.Warnings()) != 0 {
			t.Errorf("unexpected warnings %v", c.Warnings())
		}
	})

	t.Run("server certificate from another CA refused", func(t *testing.T) {
		dir, cfg := writePKI(t, ca, newTestCA(t, "rogue CA"))
		r := startRelay(t, cfg, 1)
		_, _, err := daemonURIVia(t, "qemu+tls://127.0.0.1:"+r.port()+"/system?pkipath="+dir)
		if err == nil || !strings.Contains(err.Error(), "TLS handshake") || !strings.Contains(err.Error(), "unknown authority") {
			t.Fatalf("want certificate verification error, got %v", err)
		}
		// no_verify=1 skips the server check, and says so.
		name, c, err := daemonURIVia(t, "qemu+tls://127.0.0.1:"+r.port()+"/system?no_verify=1&pkipath="+dir)
		if err != nil || name != "qemu:///system" {
			t.Fatalf("no_verify=1: %q, %v", name, err)
		}
		if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0].Summary, "TLS server certificate checking is OFF") {
			t.Errorf("warnings = %v", w)
		}
	})

	t.Run("host name not in server certificate refused", func(t *testing.T) {
		dir, cfg := writePKI(t, ca, ca)
		sCert, sKey := ca.issue(t, "kvm.example", true, "kvm.example")
		pair, err := tls.X509KeyPair(sCert, sKey)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
		r := startRelay(t, cfg, 1)
		_, _, err = daemonURIVia(t, "qemu+tls://127.0.0.1:"+r.port()+"/system?pkipath="+dir)
		if err == nil || !strings.Contains(err.Error(), "TLS handshake") || !strings.Contains(err.Error(), "127.0.0.1") {
			t.Fatalf("want host name verification error, got %v", err)
		}
		t.Logf("error: %v", err)
	})

	t.Run("libvirtd rejecting the client certificate", func(t *testing.T) {
		dir, cfg := writePKI(t, ca, ca)
		r := startRelay(t, cfg, 0)
		_, _, err := daemonURIVia(t, "qemu+tls://127.0.0.1:"+r.port()+"/system?pkipath="+dir)
		if err == nil || !strings.Contains(err.Error(), "rejected our client certificate") {
			t.Fatalf("want rejection error, got %v", err)
		}
	})

	t.Run("missing client key names the file", func(t *testing.T) {
		dir, cfg := writePKI(t, ca, ca)
		r := startRelay(t, cfg, 1)
		os.Remove(filepath.Join(dir, "clientkey.pem"))
		_, _, err := daemonURIVia(t, "qemu+tls://127.0.0.1:"+r.port()+"/system?pkipath="+dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "clientkey.pem")) || !strings.Contains(err.Error(), "client private key") {
			t.Fatalf("want missing-file error, got %v", err)
		}
	})
}

func TestIntegrationTCPRelay(t *testing.T) {
	integrationURI(t)
	r := startRelay(t, nil, 0)
	name, c, err := daemonURIVia(t, "qemu+tcp://127.0.0.1:"+r.port()+"/system")
	if err != nil {
		t.Fatal(err)
	}
	if name != "qemu:///system" {
		t.Errorf("daemon opened %q", name)
	}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0].Summary, "unencrypted") {
		t.Errorf("warnings = %v", w)
	}
	// test:///default through the same relay: the name follows the URI.
	name, _, err = daemonURIVia(t, "test+tcp://127.0.0.1:"+r.port()+"/default")
	if err != nil || name != "test:///default" {
		t.Errorf("test+tcp: %q, %v", name, err)
	}
}
