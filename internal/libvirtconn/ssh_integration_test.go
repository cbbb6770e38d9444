package libvirtconn

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
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
)

// testSSHD is Debian's OpenSSH server started for one test: loopback only,
// throw-away host and user keys, root login by key only.
type testSSHD struct {
	port     string
	dir      string
	hostKey  ssh.PublicKey
	userKey  string // private key file of the authorised user
	userPriv ed25519.PrivateKey
	logFile  string
	pid      int
}

func (s *testSSHD) logText() string {
	b, _ := os.ReadFile(s.logFile)
	return string(b)
}

// writeKey writes an ed25519 private key in OpenSSH format (mode 0600) and
// returns its public half. passphrase "" leaves it unencrypted.
func writeKey(t *testing.T, path, passphrase string) (ssh.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var block *pem.Block
	if passphrase == "" {
		block, err = ssh.MarshalPrivateKey(priv, "tfplv-test")
	} else {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(priv, "tfplv-test", []byte(passphrase))
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sshPub, priv
}

func freeLoopbackPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// startSSHD starts sshd; extraConfig lines are appended to sshd_config.
func startSSHD(t *testing.T, extraConfig ...string) *testSSHD {
	t.Helper()
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		out, err := exec.Command("apt-get", "install", "-y", "openssh-server").CombinedOutput()
		if err != nil {
			t.Fatalf("installing openssh-server: %v\n%s", err, out)
		}
	}
	// sshd's privilege separation directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := &testSSHD{dir: dir, port: freeLoopbackPort(t)}
	hostKeyFile := filepath.Join(dir, "ssh_host_ed25519_key")
	s.hostKey, _ = writeKey(t, hostKeyFile, "")
	s.userKey = filepath.Join(dir, "id_user")
	var userPub ssh.PublicKey
	userPub, s.userPriv = writeKey(t, s.userKey, "")
	authKeys := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authKeys, ssh.MarshalAuthorizedKey(userPub), 0o600); err != nil {
		t.Fatal(err)
	}
	config := []string{
		"ListenAddress 127.0.0.1",
		"HostKey " + hostKeyFile,
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"AuthorizedKeysFile " + authKeys,
		"PermitRootLogin prohibit-password",
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		// t.TempDir lives under world-writable /tmp, which StrictModes rejects.
		"StrictModes no",
		"LogLevel VERBOSE",
	}
	config = append(config, extraConfig...)
	configFile := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(configFile, []byte(strings.Join(config, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A file, not a pipe: sshd's session children inherit stderr, and
	// cmd.Wait would wait for them to close a pipe.
	logFile, err := os.Create(filepath.Join(dir, "sshd.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	s.logFile = logFile.Name()
	cmd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", configFile, "-p", s.port)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sshd: %v", err)
	}
	s.pid = cmd.Process.Pid
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// Let per-connection children finish first, so none is orphaned.
		for deadline := time.Now().Add(3 * time.Second); hasChildren(cmd.Process.Pid) && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		if n := countChildren(cmd.Process.Pid); n > 0 {
			t.Errorf("%d SSH session(s) still open when the test ended: a client connection leaked", n)
		}
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("sshd log:\n%s", s.logText())
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+s.port, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("sshd exited:\n%s", s.logText())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen on %s:\n%s", s.port, s.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

func (s *testSSHD) knownHosts(t *testing.T, lines ...string) string {
	t.Helper()
	f, err := os.CreateTemp(s.dir, "known_hosts")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

func (s *testSSHD) hostEntry() string { return "[127.0.0.1]:" + s.port }

func (s *testSSHD) uri(keyfile, knownHosts, extra string) string {
	u := fmt.Sprintf("qemu+ssh://root@127.0.0.1:%s/system?keyfile=%s&known_hosts=%s", s.port, keyfile, knownHosts)
	if extra != "" {
		u += "&" + extra
	}
	return u
}

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
	s := startSSHD(t)
	fp := ssh.FingerprintSHA256(s.hostKey)

	t.Run("known host key accepted", func(t *testing.T) {
		kh := s.knownHosts(t, knownhosts.Line([]string{s.hostEntry()}, s.hostKey))
		uri := s.uri(s.userKey, kh, "")
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
		kh := s.knownHosts(t, knownhosts.Line([]string{knownhosts.HashHostname(s.hostEntry())}, s.hostKey))
		if b, _ := os.ReadFile(kh); !bytes.HasPrefix(b, []byte("|1|")) {
			t.Fatalf("entry not hashed: %s", b)
		}
		if _, err := libVersionVia(t, s.uri(s.userKey, kh, "")); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("unknown host key refused", func(t *testing.T) {
		other, _ := writeKey(t, filepath.Join(t.TempDir(), "k"), "")
		// Known for another port only: [host]:port must match exactly.
		kh := s.knownHosts(t, knownhosts.Line([]string{"127.0.0.1"}, s.hostKey), knownhosts.Line([]string{"[127.0.0.1]:1"}, other))
		_, err := libVersionVia(t, s.uri(s.userKey, kh, ""))
		var hke *HostKeyError
		if !errors.As(err, &hke) || hke.Problem != HostKeyUnknown {
			t.Fatalf("want unknown host key error, got %v", err)
		}
		for _, want := range []string{fp, s.hostEntry(), "ssh-keyscan -p " + s.port + " 127.0.0.1 >> " + kh} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q missing in %q", want, err)
			}
		}
		// The suggested command really produces an entry that is accepted.
		out, kerr := exec.Command("ssh-keyscan", "-p", s.port, "127.0.0.1").Output()
		if kerr != nil {
			t.Fatalf("ssh-keyscan: %v", kerr)
		}
		kh2 := s.knownHosts(t, string(out))
		if _, err := libVersionVia(t, s.uri(s.userKey, kh2, "")); err != nil {
			t.Errorf("entry from ssh-keyscan not accepted: %v", err)
		}
	})

	t.Run("missing known_hosts file refused", func(t *testing.T) {
		kh := filepath.Join(t.TempDir(), "does-not-exist")
		_, err := libVersionVia(t, s.uri(s.userKey, kh, ""))
		if err == nil || !strings.Contains(err.Error(), fp) || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("want unknown-key error for missing file, got %v", err)
		}
	})

	t.Run("changed host key refused", func(t *testing.T) {
		old, _ := writeKey(t, filepath.Join(t.TempDir(), "old"), "")
		kh := s.knownHosts(t, knownhosts.Line([]string{s.hostEntry()}, old))
		_, err := libVersionVia(t, s.uri(s.userKey, kh, ""))
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
		uri := s.uri(s.userKey, kh, "no_verify=1")
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

	knownOK := s.knownHosts(t, knownhosts.Line([]string{s.hostEntry()}, s.hostKey))

	t.Run("wrong user key: auth failure lists what was tried", func(t *testing.T) {
		t.Setenv("SSH_AUTH_SOCK", "")
		stranger := filepath.Join(t.TempDir(), "id_stranger")
		pub, _ := writeKey(t, stranger, "")
		_, err := libVersionVia(t, s.uri(stranger, knownOK, ""))
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
		writeKey(t, locked, "correct horse")
		_, err := libVersionVia(t, s.uri(locked, knownOK, ""))
		if err == nil || !strings.Contains(err.Error(), "passphrase-protected") || !strings.Contains(err.Error(), "ssh-add") {
			t.Fatalf("want passphrase hint, got %v", err)
		}
		if strings.Contains(err.Error(), "correct horse") {
			t.Error("error leaks the passphrase")
		}
	})

	t.Run("ssh-agent", func(t *testing.T) {
		keyring := agent.NewKeyring()
		if err := keyring.Add(agent.AddedKey{PrivateKey: s.userPriv}); err != nil {
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
		uri := fmt.Sprintf("qemu+ssh://root@127.0.0.1:%s/system?known_hosts=%s&sshauth=agent", s.port, knownOK)
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
		b, err := os.ReadFile(s.userKey)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		// known_hosts defaults to ~/.ssh/known_hosts too.
		if err := os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), []byte(knownhosts.Line([]string{s.hostEntry()}, s.hostKey)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		uri := fmt.Sprintf("qemu+ssh://root@127.0.0.1:%s/system", s.port)
		if _, err := libVersionVia(t, uri); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("proxy=native runs virt-ssh-helper", func(t *testing.T) {
		if _, err := exec.LookPath("virt-ssh-helper"); err != nil {
			t.Fatalf("virt-ssh-helper not installed on the (local) server: %v", err)
		}
		name, err := libVersionVia(t, s.uri(s.userKey, knownOK, "proxy=native"))
		if err != nil {
			t.Fatal(err)
		}
		if name != "qemu:///system" {
			t.Errorf("daemon opened %q", name)
		}
	})

	t.Run("socket= wrong path is reported", func(t *testing.T) {
		for _, proxy := range []string{"auto", "direct"} {
			_, err := libVersionVia(t, s.uri(s.userKey, knownOK, "socket=/run/nope/libvirt-sock&proxy="+proxy))
			if err == nil || !strings.Contains(err.Error(), "/run/nope/libvirt-sock") || !strings.Contains(err.Error(), "is libvirtd running on 127.0.0.1") {
				t.Fatalf("proxy=%s: want remote socket error, got %v", proxy, err)
			}
		}
	})

	t.Run("libvirt error through virt-ssh-helper stays typed", func(t *testing.T) {
		_, err := libVersionVia(t, s.uri(s.userKey, knownOK, "proxy=native&name=nosuchdriver:///system"))
		var e *Error
		if !errors.As(err, &e) || e.Code != libvirt.ErrNoConnect || !strings.Contains(err.Error(), "no connection driver available for nosuchdriver:///system") {
			t.Fatalf("want typed ErrNoConnect from libvirtd, got %v", err)
		}
	})

	t.Run("failing remote proxy command shows its stderr", func(t *testing.T) {
		_, err := libVersionVia(t, s.uri(s.userKey, knownOK, "proxy=netcat&netcat=/nonexistent/nc"))
		if err == nil || !strings.Contains(err.Error(), `remote command "/nonexistent/nc -U '/var/run/libvirt/libvirt-sock'"`) || !strings.Contains(err.Error(), "/nonexistent/nc: No such file or directory") {
			t.Fatalf("want remote stderr in the error, got %v", err)
		}
		t.Logf("diagnosis: %v", err)
	})

	t.Run("concurrent use over ssh", func(t *testing.T) {
		c, err := New(s.uri(s.userKey, knownOK, ""))
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
	s := startSSHD(t)
	kh := s.knownHosts(t, knownhosts.Line([]string{s.hostEntry()}, s.hostKey))
	for _, proxy := range []string{"direct", "native"} {
		t.Run("proxy="+proxy, func(t *testing.T) {
			c, err := New(s.uri(s.userKey, kh, "proxy="+proxy))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			op := func(l *libvirt.Libvirt) error { _, err := l.ConnectGetLibVersion(); return err }
			if err := c.Do(context.Background(), op); err != nil {
				t.Fatal(err)
			}
			if n := countChildren(s.pid); n != 1 {
				t.Errorf("%d SSH sessions open, want 1", n)
			}
			stopLibvirtd(t)
			startLibvirtd(t)
			if err := c.Do(context.Background(), op); err != nil {
				t.Fatalf("Do over SSH after libvirtd restart: %v", err)
			}
			deadline := time.Now().Add(3 * time.Second)
			for countChildren(s.pid) != 1 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if n := countChildren(s.pid); n != 1 {
				t.Errorf("%d SSH sessions open after reconnect, want 1 (the broken one must be closed)", n)
			}
		})
	}
}

// With AllowStreamLocalForwarding off, the default proxy=auto falls back to
// virt-ssh-helper; proxy=direct explains the refusal.
func TestIntegrationSSHWithoutSocketForwarding(t *testing.T) {
	integrationURI(t)
	s := startSSHD(t, "AllowStreamLocalForwarding no")
	kh := s.knownHosts(t, knownhosts.Line([]string{s.hostEntry()}, s.hostKey))

	if _, err := libVersionVia(t, s.uri(s.userKey, kh, "")); err != nil {
		t.Fatalf("proxy=auto did not fall back to virt-ssh-helper: %v", err)
	}
	_, err := libVersionVia(t, s.uri(s.userKey, kh, "proxy=direct"))
	if err == nil || !strings.Contains(err.Error(), "AllowStreamLocalForwarding") || !strings.Contains(err.Error(), "proxy=native") {
		t.Fatalf("want forwarding-forbidden error, got %v", err)
	}
}

func hasChildren(pid int) bool { return countChildren(pid) > 0 }

// countChildren counts the processes whose parent is pid.
func countChildren(pid int) int {
	n := 0
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may contain spaces, so cut at ")".
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[1] == fmt.Sprint(pid) {
			n++
		}
	}
	return n
}
