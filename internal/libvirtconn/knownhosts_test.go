package libvirtconn

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func newEd25519Key(t *testing.T) ssh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newECDSAKey(t *testing.T) ssh.PublicKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(&priv.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writeKnownHosts(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var remoteAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 22}

func checkKey(t *testing.T, file, host, port string, key ssh.PublicKey) error {
	t.Helper()
	c, err := newHostKeyChecker(file, host, port)
	if err != nil {
		t.Fatal(err)
	}
	return c.check(net.JoinHostPort(host, port), remoteAddr, key)
}

func TestHostKeyMatching(t *testing.T) {
	key := newEd25519Key(t)
	other := newEd25519Key(t)

	hashed := knownhosts.Line([]string{knownhosts.HashHostname("[kvm1.example]:2222")}, key)
	if !strings.HasPrefix(hashed, "|1|") {
		t.Fatalf("hashed line is not hashed: %s", hashed)
	}

	cases := []struct {
		name       string
		lines      []string
		host, port string
		key        ssh.PublicKey
		wantErr    HostKeyProblem // "" = accepted
	}{
		{"plain host port 22", []string{knownhosts.Line([]string{"kvm1.example"}, key)}, "kvm1.example", "22", key, ""},
		{"bracketed host:port", []string{knownhosts.Line([]string{"[kvm1.example]:2222"}, key)}, "kvm1.example", "2222", key, ""},
		{"port-22 entry does not cover 2222", []string{knownhosts.Line([]string{"kvm1.example"}, key)}, "kvm1.example", "2222", key, HostKeyUnknown},
		{"[host]:2222 entry does not cover 22", []string{knownhosts.Line([]string{"[kvm1.example]:2222"}, key)}, "kvm1.example", "22", key, HostKeyUnknown},
		{"hashed [host]:port", []string{hashed}, "kvm1.example", "2222", key, ""},
		{"hashed port 22", []string{knownhosts.Line([]string{knownhosts.HashHostname("10.1.2.3")}, key)}, "10.1.2.3", "22", key, ""},
		{"hashed entry for other host", []string{hashed}, "kvm2.example", "2222", key, HostKeyUnknown},
		{"comma list", []string{knownhosts.Line([]string{"kvm1.example", "10.1.2.3"}, key)}, "10.1.2.3", "22", key, ""},
		{"wildcard", []string{knownhosts.Line([]string{"*.lab.example"}, key)}, "n7.lab.example", "22", key, ""},
		{"ipv6 bracketed", []string{knownhosts.Line([]string{"[::1]:2200"}, key)}, "::1", "2200", key, ""},
		{"changed key", []string{knownhosts.Line([]string{"[kvm1.example]:2222"}, key)}, "kvm1.example", "2222", other, HostKeyChanged},
		{"changed key hashed", []string{hashed}, "kvm1.example", "2222", other, HostKeyChanged},
		{"one of two keys matches", []string{knownhosts.Line([]string{"kvm1.example"}, other), knownhosts.Line([]string{"kvm1.example"}, key)}, "kvm1.example", "22", key, ""},
		{"revoked", []string{"@revoked * " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))), knownhosts.Line([]string{"kvm1.example"}, key)}, "kvm1.example", "22", key, HostKeyRevoked},
		{"comments and blank lines", []string{"# comment", "", knownhosts.Line([]string{"kvm1.example"}, key)}, "kvm1.example", "22", key, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := writeKnownHosts(t, tc.lines...)
			err := checkKey(t, file, tc.host, tc.port, tc.key)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("key refused: %v", err)
				}
				return
			}
			var hke *HostKeyError
			if !errors.As(err, &hke) {
				t.Fatalf("want *HostKeyError %s, got %v", tc.wantErr, err)
			}
			if hke.Problem != tc.wantErr {
				t.Fatalf("problem = %s, want %s (%v)", hke.Problem, tc.wantErr, err)
			}
			if !strings.Contains(err.Error(), ssh.FingerprintSHA256(tc.key)) {
				t.Errorf("error does not name the offered key's fingerprint %s: %v", ssh.FingerprintSHA256(tc.key), err)
			}
		})
	}
}

func TestHostKeyErrorTexts(t *testing.T) {
	key := newEd25519Key(t)
	other := newEd25519Key(t)
	fp := ssh.FingerprintSHA256(key)

	t.Run("unknown non-22 port", func(t *testing.T) {
		file := writeKnownHosts(t, "# empty")
		err := checkKey(t, file, "kvm1.example", "2222", key)
		for _, want := range []string{"[kvm1.example]:2222", "unknown", "ED25519", fp, "ssh-keyscan -p 2222 kvm1.example >> " + file, "no_verify=1"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q missing in %q", want, err)
			}
		}
	})
	t.Run("unknown port 22 has no -p", func(t *testing.T) {
		file := writeKnownHosts(t, "# empty")
		err := checkKey(t, file, "kvm1.example", "22", key)
		if !strings.Contains(err.Error(), "ssh-keyscan kvm1.example >> "+file) {
			t.Errorf("keyscan hint wrong: %v", err)
		}
	})
	t.Run("file missing", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "nope", "known_hosts")
		err := checkKey(t, file, "kvm1.example", "22", key)
		var hke *HostKeyError
		if !errors.As(err, &hke) || !hke.FileMissing || !strings.Contains(err.Error(), file+" does not exist") || !strings.Contains(err.Error(), fp) {
			t.Errorf("missing-file error wrong: %v", err)
		}
	})
	t.Run("changed names old entry and removal", func(t *testing.T) {
		file := writeKnownHosts(t, knownhosts.Line([]string{"[kvm1.example]:2222"}, other))
		err := checkKey(t, file, "kvm1.example", "2222", key)
		for _, want := range []string{"CHANGED", fp, ssh.FingerprintSHA256(other), file + ":1", "man-in-the-middle", "ssh-keygen -R '[kvm1.example]:2222' -f " + file} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q missing in %q", want, err)
			}
		}
	})
	t.Run("never leaks key material", func(t *testing.T) {
		file := writeKnownHosts(t, knownhosts.Line([]string{"kvm1.example"}, other))
		err := checkKey(t, file, "kvm1.example", "22", key)
		blob := strings.Fields(string(ssh.MarshalAuthorizedKey(key)))[1]
		if strings.Contains(err.Error(), blob) {
			t.Errorf("error contains the raw key blob")
		}
	})
}

func TestKnownAlgorithms(t *testing.T) {
	ed := newEd25519Key(t)
	ec := newECDSAKey(t)
	file := writeKnownHosts(t,
		knownhosts.Line([]string{"[kvm1.example]:2222"}, ed),
		knownhosts.Line([]string{"[kvm1.example]:2222"}, ec),
		knownhosts.Line([]string{"kvm9.example"}, ed),
	)
	c, err := newHostKeyChecker(file, "kvm1.example", "2222")
	if err != nil {
		t.Fatal(err)
	}
	got := c.knownAlgorithms()
	want := []string{ssh.KeyAlgoED25519, ssh.KeyAlgoECDSA256}
	if !slices.Equal(got, want) {
		t.Errorf("knownAlgorithms = %v, want %v", got, want)
	}
	unknown, err := newHostKeyChecker(file, "kvm2.example", "22")
	if err != nil {
		t.Fatal(err)
	}
	if got := unknown.knownAlgorithms(); len(got) != 0 {
		t.Errorf("unknown host: algorithms %v, want none (let the server choose)", got)
	}
}
