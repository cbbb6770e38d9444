package libvirtconn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/virtxml/terraform-provider-libvirt/internal/testsshd"
)

// libVersionVia connects with uri and asks libvirtd for its version and URI.
func libVersionVia(t *testing.T, uri string) (string, error) {
	t.Helper()
	c, err := New(uri)
	if err != nil {
		t.Fatalf("New(%q): %v", uri, err)
	}
	defer c.Close()
	var name string
	err = c.Do(context.Background(), func(l *libvirt.Libvirt) error {
		v, err := l.ConnectGetLibVersion()
		if err != nil {
			return err
		}
		if v == 0 {
			return errors.New("libvirt version 0")
		}
		name, err = l.ConnectGetUri()
		return err
	})
	return name, err
}

func TestIntegrationSSH(t *testing.T) {
	integrationURI(t)
	s := testsshd.Start(t)
	fp := ssh.FingerprintSHA256(s.HostKey)

	t.Run("known host key accepted", func(t *testing.T) {
		kh := s.KnownHosts(t, knownhosts.Line([]string{s.HostEntry()}, s.HostKey))
		uri := s.URI(s.UserKey, kh, "")
		c, err := New(uri)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Warnings()) != 0 || c.Host() != "127.0.0.1" {
			t.Errorf("warnings %v, host %q", c.Warnings(), c.Host())
		}
		name, err := libVersionVia(t, uri)
		if err != nil {
			t.Fatal(err)
		}
		if name != "qemu:///system" {
			t.Errorf("daemon opened %q, want qemu:///system", name)
		}
	})

	t.Run("hashed known_hosts entry accepted", func(t *testing.T) {
		kh := s.KnownHosts(t, knownhosts.Line([]string{knownhosts.HashHostname(s.HostEntry())}, s.HostKey))
		if b, _ := os.ReadFile(kh); !bytes.HasPrefix(b, []byte("|1|")) {
			t.Fatalf("entry not hashed: %s", b)
		}
		if _, err := libVersionVia(t, s.URI(s.UserKey, kh, "")); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("unknown host key refused", func(t *testing.T) {
		other, _ := testsshd.WriteKey(t, filepath.Join(t.TempDir(), "k"), "")
		// Known for another port only: [host]:port must match exactly.
		kh := s.KnownHosts(t, knownhosts.Line([]string{"127.0.0.1"}, s.HostKey), knownhosts.Line([]string{"[127.0.0.1]:1"}, other))
		_, err := libVersionVia(t, s.URI(s.UserKey, kh, ""))
		var hke *HostKeyError
		if !errors.As(err, &hke) || hke.Problem != HostKeyUnknown {
			t.Fatalf("want unknown host key error, got %v", err)
		}
		for _, want := range []string{fp, s.HostEntry(), "ssh-keyscan -p " + s.Port + " 127.0.0.1 >> " + kh} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q missing in %q", want, err)
			}
		}
		// The suggested command really produces an entry that is accepted.
		out, kerr := exec.Command("ssh-keyscan", "-p", s.Port, "127.0.0.1").Output()
		if kerr != nil {
			t.Fatalf("ssh-keyscan: %v", kerr)
		}
		kh2 := s.KnownHosts(t, string(out))
		if _, err := libVersionVia(t, s.URI(s.UserKey, kh2, "")); err != nil {
			t.Errorf("entry from ssh-keyscan not accepted: %v", err)
		}
	})

	t.Run("missing known_hosts file refused", func(t *testing.T) {
		kh := filepath.Join(t.TempDir(), "does-not-exist")
		_, err := libVersionVia(t, s.URI(s.UserKey, kh, ""))
		if err == nil || !strings.Contains(err.Error(), fp) || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("want unknown-key error for missing file, got %v", err)
		}
	})

	t.Run("changed host key refused", func(t *testing.T) {
		old, _ := testsshd.WriteKey(t, filepath.Join(t.TempDir(), "old"), "")
		kh := s.KnownHosts(t, knownhosts.Line([]string{s.HostEntry()}, old))
		_, err := libVersionVia(t, s.URI(s.UserKey, kh, ""))
		var hke *HostKeyError
		if !errors.As(err, &hke) || hke.Problem != HostKeyChanged {
			t.Fatalf("want changed host key error, got %v", err)
		}
		for _, want := range []string{"CHANGED", fp, ssh.FingerprintSHA256(old), "ssh-keygen -R"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q missing in %q", want, err)
			}
		}
	})

	t.Run("no_verify connects and warns", func(t *testing.T) {
		kh := filepath.Join(t.TempDir(), "empty")
		uri := s.URI(s.UserKey, kh, "no_verify=1")
		c, err := New(uri)
		if err != nil {
			t.Fatal(err)
		}
		w := c.Warnings()
		if len(w) != 1 || !strings.Contains(w[0].Summary, "host key checking is OFF") {
			t.Errorf("warnings = %+v", w)
		}
		if _, err := libVersionVia(t, uri); err != nil {
			t.Fatal(err)
		}
	})

	knownOK := s.KnownHosts(t, knownhosts.Line([]string{s.HostEntry()}, s.HostKey))

	t.Run("wrong user key: auth failure lists what was tried", func(t *testing.T) {
		t.Setenv("SSH_AUTH_SOCK", "")
		stranger := filepath.Join(t.TempDir(), "id_stranger")
		pub, _ := testsshd.WriteKey(t, stranger, "")
		_, err := libVersionVia(t, s.URI(stranger, knownOK, ""))
		if err == nil {
			t.Fatal("connected with a key that is not authorised")
		}
		for _, want := range []string{"authentication", `"root"`, "key file " + stranger, ssh.FingerprintSHA256(pub), "SSH_AUTH_SOCK is not set", "authorized_keys"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q missing in %q", want, err)
			}
		}
	})

	t.Run("passphrase-protected key is explained", func(t *testing.T) {
		t.Setenv("SSH_AUTH_SOCK", "")
		locked := filepath.Join(t.TempDir(), "id_locked")
		testsshd.WriteKey(t, locked, "correct horse")
		_, err := libVersionVia(t, s.URI(locked, knownOK, ""))
		if err == nil || !strings.Contains(err.Error(), "passphrase-protected") || !strings.Contains(err.Error(), "ssh-add") {
			t.Fatalf("want passphrase hint, got %v", err)
		}
		if strings.Contains(err.Error(), "correct horse") {
			t.Error("error leaks the passphrase")
		}
	})

	t.Run("ssh-agent", func(t *testing.T) {
		keyring := agent.NewKeyring()
		if err := keyring.Add(agent.AddedKey{PrivateKey: s.UserPriv}); err != nil {
			t.Fatal(err)
		}
		sock := filepath.Join(t.TempDir(), "agent.sock")
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				go func() { agent.ServeAgent(keyring, c); c.Close() }()
			}
		}()
		t.Setenv("SSH_AUTH_SOCK", sock)
		uri := fmt.Sprintf("qemu+ssh://root@127.0.0.1:%s/system?known_hosts=%s&sshauth=agent", s.Port, knownOK)
		if _, err := libVersionVia(t, uri); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("default key ~/.ssh/id_ed25519", func(t *testing.T) {
		t.Setenv("SSH_AUTH_SOCK", "")
		home := t.TempDir()
		t.Setenv("HOME", home)
		if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(s.UserKey)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		// known_hosts defaults to ~/.ssh/known_hosts too.
		if err := os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), []byte(knownhosts.Line([]string{s.HostEntry()}, s.HostKey)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		uri := fmt.Sprintf("qemu+ssh://root@127.0.0.1:%s/system", s.Port)
		if _, err := libVersionVia(t, uri); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("proxy=native runs virt-ssh-helper", func(t *testing.T) {
		if _, err := exec.LookPath("virt-ssh-helper"); err != nil {
			t.Fatalf("virt-ssh-helper not installed on the (local) server: %v", err)
		}
		name, err := libVersionVia(t, s.URI(s.UserKey, knownOK, "proxy=native"))
		if err != nil {
			t.Fatal(err)
		}
		if name != "qemu:///system" {
			t.Errorf("daemon opened %q", name)
		}
	})

	t.Run("socket= wrong path is reported", func(t *testing.T) {
		for _, proxy := range []string{"auto", "direct"} {
			_, err := libVersionVia(t, s.URI(s.UserKey, knownOK, "socket=/run/nope/libvirt-sock&proxy="+proxy))
			if err == nil || !strings.Contains(err.Error(), "/run/nope/libvirt-sock") || !strings.Contains(err.Error(), "is libvirtd running on 127.0.0.1") {
				t.Fatalf("proxy=%s: want remote socket error, got %v", proxy, err)
			}
		}
	})

	t.Run("libvirt error through virt-ssh-helper stays typed", func(t *testing.T) {
		_, err := libVersionVia(t, s.URI(s.UserKey, knownOK, "proxy=native&name=nosuchdriver:///system"))
		var e *Error
		if !errors.As(err, &e) || e.Code != libvirt.ErrNoConnect || !strings.Contains(err.Error(), "no connection driver available for nosuchdriver:///system") {
			t.Fatalf("want typed ErrNoConnect from libvirtd, got %v", err)
		}
	})

	t.Run("failing remote proxy command shows its stderr", func(t *testing.T) {
		_, err := libVersionVia(t, s.URI(s.UserKey, knownOK, "proxy=netcat&netcat=/nonexistent/nc"))
		if err == nil || !strings.Contains(err.Error(), `remote command "/nonexistent/nc -U '/var/run/libvirt/libvirt-sock'"`) || !strings.Contains(err.Error(), "/nonexistent/nc: No such file or directory") {
			t.Fatalf("want remote stderr in the error, got %v", err)
		}
		t.Logf("diagnosis: %v", err)
	})

	t.Run("concurrent use over ssh", func(t *testing.T) {
		c, err := New(s.URI(s.UserKey, knownOK, ""))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- c.Do(context.Background(), func(l *libvirt.Libvirt) error {
					_, _, err := l.ConnectListAllDomains(1, 0)
					return err
				})
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})
}

// A libvirtd restart under an SSH connection: the next Do reconnects through
// a new SSH connection and the old one is closed, not leaked.
func TestIntegrationSSHLibvirtdRestart(t *testing.T) {
	integrationURI(t)
	restartAllowed(t)
	ensureLibvirtd(t)
	s := testsshd.Start(t)
	kh := s.KnownHosts(t, knownhosts.Line([]string{s.HostEntry()}, s.HostKey))
	for _, proxy := range []string{"direct", "native"} {
		t.Run("proxy="+proxy, func(t *testing.T) {
			c, err := New(s.URI(s.UserKey, kh, "proxy="+proxy))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			op := func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err }
			if err := c.Do(context.Background(), op); err != nil {
				t.Fatal(err)
			}
			if n := testsshd.CountChildren(s.PID); n != 1 {
				t.Errorf("%d SSH sessions open, want 1", n)
			}
			stopLibvirtd(t)
			startLibvirtd(t)
			if err := c.Do(context.Background(), op); err != nil {
				t.Fatalf("Do over SSH after libvirtd restart: %v", err)
			}
			deadline := time.Now().Add(3 * time.Second)
			for testsshd.CountChildren(s.PID) != 1 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if n := testsshd.CountChildren(s.PID); n != 1 {
				t.Errorf("%d SSH sessions open after reconnect, want 1 (the broken one must be closed)", n)
			}
		})
	}
}

// With AllowStreamLocalForwarding off, the default proxy=auto falls back to
// virt-ssh-helper; proxy=direct explains the refusal.
func TestIntegrationSSHWithoutSocketForwarding(t *testing.T) {
	integrationURI(t)
	s := testsshd.Start(t, "AllowStreamLocalForwarding no")
	kh := s.KnownHosts(t, knownhosts.Line([]string{s.HostEntry()}, s.HostKey))

	if _, err := libVersionVia(t, s.URI(s.UserKey, kh, "")); err != nil {
		t.Fatalf("proxy=auto did not fall back to virt-ssh-helper: %v", err)
	}
	_, err := libVersionVia(t, s.URI(s.UserKey, kh, "proxy=direct"))
	if err == nil || !strings.Contains(err.Error(), "AllowStreamLocalForwarding") || !strings.Contains(err.Error(), "proxy=native") {
		t.Fatalf("want forwarding-forbidden error, got %v", err)
	}
}
