package libvirtconn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseURI(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	t.Setenv("HOME", "/home/tester")

	type want struct {
		transport Transport
		host      string
		port      string
		user      string
		socket    string
		name      string
		keyfile   string
		known     string
		noVerify  bool
		proxy     string
		sshauth   string
		pkipath   string
	}
	cases := []struct {
		uri  string
		want want
	}{
		{"qemu:///system", want{transport: TransportUnix, socket: "/var/run/libvirt/libvirt-sock", name: "qemu:///system"}},
		{"qemu:///session", want{transport: TransportUnix, socket: "/run/user/1000/libvirt/libvirt-sock", name: "qemu:///session"}},
		{"qemu+unix:///system", want{transport: TransportUnix, socket: "/var/run/libvirt/libvirt-sock", name: "qemu:///system"}},
		{"test:///default", want{transport: TransportUnix, socket: "/var/run/libvirt/libvirt-sock", name: "test:///default"}},
		{"lxc:///", want{transport: TransportUnix, socket: "/var/run/libvirt/libvirt-sock", name: "lxc:///"}},
		{"qemu:///system?socket=/tmp/x.sock", want{transport: TransportUnix, socket: "/tmp/x.sock", name: "qemu:///system"}},
		{"QEMU:///system", want{transport: TransportUnix, socket: "/var/run/libvirt/libvirt-sock", name: "qemu:///system"}},
		{"qemu+ssh://root@kvm1/system", want{transport: TransportSSH, host: "kvm1", port: "22", user: "root",
			socket: "/var/run/libvirt/libvirt-sock", name: "qemu:///system", known: "/home/tester/.ssh/known_hosts", proxy: "auto", sshauth: "agent,privkey"}},
		{"qemu+ssh://admin@kvm1:2222/system?keyfile=/k/id&known_hosts=/k/kh&sshauth=privkey", want{transport: TransportSSH, host: "kvm1", port: "2222", user: "admin",
			socket: "/var/run/libvirt/libvirt-sock", name: "qemu:///system", keyfile: "/k/id", known: "/k/kh", proxy: "auto", sshauth: "privkey"}},
		{"qemu+ssh://u@[::1]:2200/system?no_verify=1", want{transport: TransportSSH, host: "::1", port: "2200", user: "u",
			socket: "/var/run/libvirt/libvirt-sock", name: "qemu:///system", known: "/home/tester/.ssh/known_hosts", noVerify: true, proxy: "auto", sshauth: "agent,privkey"}},
		{"qemu+ssh://u@h/system?keyfile=~/.ssh/lab&socket=/run/libvirt/virtqemud-sock", want{transport: TransportSSH, host: "h", port: "22", user: "u",
			socket: "/run/libvirt/virtqemud-sock", name: "qemu:///system", keyfile: "/home/tester/.ssh/lab", known: "/home/tester/.ssh/known_hosts", proxy: "auto", sshauth: "agent,privkey"}},
		// The session socket of a remote user is unknown: virt-ssh-helper finds it.
		{"qemu+ssh://u@h/session", want{transport: TransportSSH, host: "h", port: "22", user: "u",
			socket: "", name: "qemu:///session", known: "/home/tester/.ssh/known_hosts", proxy: "auto", sshauth: "agent,privkey"}},
		{"qemu+ssh://u@h/system?proxy=netcat&known_hosts_verify=ignore", want{transport: TransportSSH, host: "h", port: "22", user: "u",
			socket: "/var/run/libvirt/libvirt-sock", name: "qemu:///system", known: "/home/tester/.ssh/known_hosts", noVerify: true, proxy: "netcat", sshauth: "agent,privkey"}},
		{"qemu+tcp://kvm1/system", want{transport: TransportTCP, host: "kvm1", port: "16509", name: "qemu:///system"}},
		{"qemu+tcp://10.0.0.5:1234/system", want{transport: TransportTCP, host: "10.0.0.5", port: "1234", name: "qemu:///system"}},
		{"qemu+tls://kvm1/system", want{transport: TransportTLS, host: "kvm1", port: "16514", name: "qemu:///system"}},
		{"qemu+tls://kvm1:16600/system?pkipath=/etc/pki/lab&no_verify=1", want{transport: TransportTLS, host: "kvm1", port: "16600", name: "qemu:///system", pkipath: "/etc/pki/lab", noVerify: true}},
		// A host without transport means TLS, as in libvirt.
		{"qemu://kvm1/system", want{transport: TransportTLS, host: "kvm1", port: "16514", name: "qemu:///system"}},
		// Non-client parameters are passed on to the daemon; name= wins.
		{"test+tcp://h/default?foo=bar&no_verify=0", want{transport: TransportTCP, host: "h", port: "16509", name: "test:///default?foo=bar"}},
		{"qemu+ssh://u@h/system?name=qemu:///embed", want{transport: TransportSSH, host: "h", port: "22", user: "u",
			socket: "/var/run/libvirt/libvirt-sock", name: "qemu:///embed", known: "/home/tester/.ssh/known_hosts", proxy: "auto", sshauth: "agent,privkey"}},
	}
	for _, tc := range cases {
		t.Run(tc.uri, func(t *testing.T) {
			ep, err := ParseURI(tc.uri)
			if err != nil {
				t.Fatalf("ParseURI: %v", err)
			}
			got := want{
				transport: ep.Transport, host: ep.Hostname, port: ep.Port, user: ep.User, socket: ep.Socket,
				name: ep.Name, keyfile: ep.KeyFile, known: ep.KnownHosts, noVerify: ep.NoVerify,
				proxy: ep.Proxy, sshauth: strings.Join(ep.SSHAuth, ","), pkipath: ep.PKIPath,
			}
			if got != tc.want {
				t.Errorf("ParseURI(%q)\n got  %+v\n want %+v", tc.uri, got, tc.want)
			}
		})
	}
}

func TestParseURISessionSocketWithoutRuntimeDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("HOME", "/home/tester")
	ep, err := ParseURI("qemu:///session")
	if err != nil {
		t.Fatal(err)
	}
	if ep.Socket != "/home/tester/.cache/libvirt/libvirt-sock" {
		t.Errorf("session socket = %q", ep.Socket)
	}
}

func TestParseURIDefaultSSHUser(t *testing.T) {
	ep, err := ParseURI("qemu+ssh://h/system")
	if err != nil {
		t.Fatal(err)
	}
	if ep.User == "" || ep.User != currentUserName() {
		t.Errorf("default ssh user = %q, want the current user %q", ep.User, currentUserName())
	}
}

func TestParseURIErrors(t *testing.T) {
	cases := []struct {
		uri      string
		contains []string
	}{
		{"", []string{"empty", "qemu:///system"}},
		{"/var/run/libvirt/libvirt-sock", []string{"no scheme", "driver[+transport]"}},
		{"qemu:system", []string{`must have "//"`}},
		{"foo:///system", []string{`unsupported driver "foo"`, "qemu", "test", "lxc", "transports: unix, ssh, tcp, tls"}},
		{"esx://vcenter/", []string{`"esx" driver`, "not served by libvirtd"}},
		{"qemu+libssh2://h/system", []string{`unsupported transport "libssh2"`, "qemu+ssh://", "qemu+unix, qemu+ssh, qemu+tcp, qemu+tls"}},
		{"qemu+ext:///system", []string{`unsupported transport "ext"`, "qemu+ssh"}},
		{"qemu:///", []string{"/system or /session", `"/"`}},
		{"qemu:///sys", []string{"/system or /session"}},
		{"qemu+ssh:///system", []string{"needs a host"}},
		{"qemu+ssh://h:99999/system", []string{`port "99999"`, "between 1 and 65535"}},
		{"qemu+ssh://h:ab/system", []string{"cannot be parsed"}},
		{"qemu+ssh://h:/system", []string{"empty port"}},
		{"qemu+ssh://u:hunter2pw@h/system", []string{"passwords in the URI are not supported"}},
		{"qemu+ssh://h/system?sshauth=password", []string{"interactive prompt"}},
		{"qemu+ssh://h/system?sshauth=agent,gssapi", []string{`unknown sshauth method "gssapi"`}},
		{"qemu+ssh://h/system?no_verify=yes", []string{"no_verify must be 0 or 1"}},
		{"qemu+ssh://h/system?known_hosts_verify=auto", []string{"known_hosts_verify must be normal or ignore"}},
		{"qemu+ssh://h/system?proxy=magic", []string{"proxy must be"}},
		{"qemu+ssh://h/system?pkipath=/x", []string{"pkipath= only applies to qemu+tls://"}},
		{"qemu+ssh://h/session?proxy=direct", []string{"session socket path is not known", "socket="}},
		{"qemu:///system?socket=relative.sock", []string{"absolute path"}},
		{"qemu:///system?keyfile=/k", []string{"keyfile= only applies to remote transports"}},
		{"qemu+unix://host/system", []string{"takes no host", "qemu+ssh://host/"}},
		{"qemu+tcp://h/system?pkipath=/x", []string{"pkipath= only applies to qemu+tls://"}},
		{"qemu+tls://h/system?keyfile=/x", []string{"keyfile= does not apply to the tls transport"}},
		{"qemu+tcp://root@h/system", []string{"user name only applies to qemu+ssh://"}},
		{"qemu:///system?socket=/a&socket=/b", []string{`"socket" is given 2 times`}},
		{"qemu:///system?mode=weird", []string{"mode must be"}},
	}
	for _, tc := range cases {
		t.Run(tc.uri, func(t *testing.T) {
			_, err := ParseURI(tc.uri)
			if err == nil {
				t.Fatalf("ParseURI(%q) succeeded, want an error", tc.uri)
			}
			for _, s := range tc.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if strings.Contains(err.Error(), "hunter2pw") {
				t.Errorf("error leaks the password: %q", err)
			}
		})
	}
}

func TestNewClientHostAndWarnings(t *testing.T) {
	cases := []struct {
		uri          string
		host         string
		warnContains string // "" = no warnings
	}{
		{"qemu:///system", LocalHost, ""},
		{"test:///default", LocalHost, ""},
		{"qemu+ssh://root@kvm1.example:2222/system", "kvm1.example", ""},
		{"qemu+ssh://root@kvm1.example/system?no_verify=1", "kvm1.example", "SSH host key checking is OFF"},
		{"qemu+ssh://root@[::1]:2222/system?no_verify=1", "::1", "SSH host key checking is OFF"},
		{"qemu+tls://kvm2/system?no_verify=1", "kvm2", "TLS server certificate checking is OFF"},
		{"qemu+tls://kvm2/system", "kvm2", ""},
		{"qemu+tcp://kvm3/system", "kvm3", "unencrypted"},
	}
	for _, tc := range cases {
		t.Run(tc.uri, func(t *testing.T) {
			c, err := New(tc.uri)
			if err != nil {
				t.Fatal(err)
			}
			if c.URI() != tc.uri {
				t.Errorf("URI() = %q", c.URI())
			}
			if c.Host() != tc.host {
				t.Errorf("Host() = %q, want %q", c.Host(), tc.host)
			}
			w := c.Warnings()
			if tc.warnContains == "" {
				if len(w) != 0 {
					t.Errorf("unexpected warnings %+v", w)
				}
				return
			}
			if len(w) != 1 || !strings.Contains(w[0].Summary, tc.warnContains) || w[0].Detail == "" {
				t.Fatalf("warnings = %+v, want one containing %q", w, tc.warnContains)
			}
			// Every call warns again: the warning is not one-shot.
			if again := c.Warnings(); len(again) != 1 {
				t.Errorf("second Warnings() = %+v", again)
			}
		})
	}
}

func TestTLSFilesMissing(t *testing.T) {
	dir := t.TempDir()
	_, err := tlsFiles(dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "cacert.pem")) || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("want missing cacert.pem error naming the path, got %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cacert.pem"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = tlsFiles(dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "clientcert.pem")) {
		t.Fatalf("want missing clientcert.pem error, got %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	if got := shellQuote("qemu:///system"); got != "'qemu:///system'" {
		t.Errorf("got %s", got)
	}
	if got := shellQuote("a'b"); got != `'a'\''b'` {
		t.Errorf("got %s", got)
	}
}

// A password written into a URI never appears in an error, whatever the
// transport and whether or not the URI parses.
func TestParseURIRedactsPasswords(t *testing.T) {
	for _, uri := range []string{
		"qemu+tcp://admin:s3cret@127.0.0.1/system",
		"qemu+tls://admin:s3cret@127.0.0.1/system",
		"qemu+ssh://admin:s3cret@127.0.0.1/system",
		"qemu+tcp://admin:s3cret@127.0.0.1:99999/system",
		"qemu+tcp://admin:s3cret@[::1/system",
		"qemu+unix://admin:s3cret@/system",
		"qemu+bogus://admin:s3cret@host/system",
	} {
		e, err := ParseURI(uri)
		if err == nil {
			t.Errorf("%s: accepted (Raw %q)", redactRaw(uri), e.Raw)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the password is in the error: %v", err)
		}
		if !strings.Contains(err.Error(), "admin") {
			t.Errorf("the error no longer names the URI's user: %v", err)
		}
	}
}
