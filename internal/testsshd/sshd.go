// Package testsshd is a test helper: Debian's OpenSSH server started for one
// test on a loopback port, with throw-away host and user keys, for the SSH
// transport's integration tests and the upload benchmark over qemu+ssh.
package testsshd

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// Server is Debian's OpenSSH server started for one test: loopback only,
// throw-away host and user keys, root login by key only.
type Server struct {
	Port     string
	Dir      string
	HostKey  ssh.PublicKey
	UserKey  string // private key file of the authorised user
	UserPriv ed25519.PrivateKey
	LogFile  string
	PID      int
}

// Log is what sshd logged so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.LogFile)
	return string(b)
}

// WriteKey writes an ed25519 private key in OpenSSH format (mode 0600) and
// returns its public half. passphrase "" leaves it unencrypted.
func WriteKey(t testing.TB, path, passphrase string) (ssh.PublicKey, ed25519.PrivateKey) {
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

func freeLoopbackPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// Start starts sshd; extraConfig lines are appended to sshd_config.
func Start(t testing.TB, extraConfig ...string) *Server {
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
	s := &Server{Dir: dir, Port: freeLoopbackPort(t)}
	hostKeyFile := filepath.Join(dir, "ssh_host_ed25519_key")
	s.HostKey, _ = WriteKey(t, hostKeyFile, "")
	s.UserKey = filepath.Join(dir, "id_user")
	var userPub ssh.PublicKey
	userPub, s.UserPriv = WriteKey(t, s.UserKey, "")
	authKeys := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authKeys, ssh.MarshalAuthorizedKey(userPub), 0o600); err != nil {
		t.Fatal(err)
	}
	config := []string{
		"ListenAddress 127.0.0.1",
		"HostKey " + hostKeyFile,
		"PidFile " + filepath.Join(dir, "sshd.PID"),
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
	s.LogFile = logFile.Name()
	cmd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", configFile, "-p", s.Port)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sshd: %v", err)
	}
	s.PID = cmd.Process.Pid
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// Let per-connection children finish first, so none is orphaned.
		for deadline := time.Now().Add(3 * time.Second); HasChildren(cmd.Process.Pid) && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		if n := CountChildren(cmd.Process.Pid); n > 0 {
			t.Errorf("%d SSH session(s) still open when the test ended: a client connection leaked", n)
		}
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("sshd log:\n%s", s.Log())
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+s.Port, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("sshd exited:\n%s", s.Log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen on %s:\n%s", s.Port, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

// KnownHosts writes a known_hosts file of lines and returns its path.
func (s *Server) KnownHosts(t testing.TB, lines ...string) string {
	t.Helper()
	f, err := os.CreateTemp(s.Dir, "known_hosts")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// HostEntry is the server's known_hosts host pattern.
func (s *Server) HostEntry() string { return "[127.0.0.1]:" + s.Port }

// URI is a qemu+ssh URI of the system daemon through this server.
func (s *Server) URI(keyfile, knownHosts, extra string) string {
	u := fmt.Sprintf("qemu+ssh://root@127.0.0.1:%s/system?keyfile=%s&known_hosts=%s", s.Port, keyfile, knownHosts)
	if extra != "" {
		u += "&" + extra
	}
	return u
}

// HasChildren reports whether pid has child processes.
func HasChildren(pid int) bool { return CountChildren(pid) > 0 }

// CountChildren counts the processes whose parent is pid.
func CountChildren(pid int) int {
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
