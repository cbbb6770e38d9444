package libvirtconn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh/knownhosts"
)

// TestIntegrationSSHConfigJump reaches libvirtd through ~/.ssh/config-style
// configuration: the URI names only a Host alias; HostName, Port, User,
// IdentityFile and ProxyJump come from the file. Each sshd authorises only
// its own user key, so every hop must use its own IdentityFile, and the
// bastions only forward (no sessions, no socket forwarding). Host keys are
// checked at every hop.
func TestIntegrationSSHConfigJump(t *testing.T) {
	integrationURI(t)
	onlyForward := []string{"AllowTcpForwarding yes", "AllowStreamLocalForwarding no", "ForceCommand /bin/false", "PermitTTY no"}
	bastion1 := startSSHD(t, onlyForward...)
	bastion2 := startSSHD(t, onlyForward...)
	target := startSSHD(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "ssh_config")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`
Host bastion1
  HostName 127.0.0.1
  Port %[1]s
  User root
  IdentityFile %[2]s

Host bastion2
  HostName 127.0.0.1
  Port %[3]s
  IdentityFile %[4]s

Host libvirt-behind-one
  HostName 127.0.0.1
  Port %[5]s
  User root
  IdentityFile %[6]s
  ProxyJump bastion1

Host libvirt-behind-two
  HostName 127.0.0.1
  Port %[5]s
  IdentityFile %[6]s
  ProxyJump bastion1,root@bastion2
`, bastion1.port, bastion1.userKey, bastion2.port, bastion2.userKey, target.port, target.userKey)), 0o600); err != nil {
		t.Fatal(err)
	}
	all := []string{
		knownhosts.Line([]string{bastion1.hostEntry()}, bastion1.hostKey),
		knownhosts.Line([]string{bastion2.hostEntry()}, bastion2.hostKey),
		knownhosts.Line([]string{target.hostEntry()}, target.hostKey),
	}
	uri := func(alias, kh string) string {
		return fmt.Sprintf("qemu+ssh://%s/system?ssh_config=%s&known_hosts=%s&sshauth=privkey", alias, config, kh)
	}
	accepted := func(s *testSSHD) int { return strings.Count(s.logText(), "Accepted publickey for root") }

	t.Run("one bastion", func(t *testing.T) {
		before1, beforeT := accepted(bastion1), accepted(target)
		name, err := libVersionVia(t, uri("libvirt-behind-one", target.knownHosts(t, all...)))
		if err != nil {
			t.Fatal(err)
		}
		if name != "qemu:///system" {
			t.Errorf("daemon opened %q", name)
		}
		if accepted(bastion1) != before1+1 || accepted(target) != beforeT+1 {
			t.Errorf("want one login on the bastion and one on the target; bastion log:\n%s", bastion1.logText())
		}
	})

	t.Run("two bastions", func(t *testing.T) {
		before1, before2, beforeT := accepted(bastion1), accepted(bastion2), accepted(target)
		if _, err := libVersionVia(t, uri("libvirt-behind-two", target.knownHosts(t, all...))); err != nil {
			t.Fatal(err)
		}
		if accepted(bastion1) != before1+1 || accepted(bastion2) != before2+1 || accepted(target) != beforeT+1 {
			t.Errorf("want one login on each hop")
		}
	})

	t.Run("unknown bastion host key refused", func(t *testing.T) {
		_, err := libVersionVia(t, uri("libvirt-behind-two", target.knownHosts(t, all[0], all[2])))
		var hke *HostKeyError
		if !errors.As(err, &hke) || hke.Problem != HostKeyUnknown || !strings.Contains(err.Error(), "jump host bastion2") {
			t.Fatalf("want an unknown host key error naming jump host bastion2, got %v", err)
		}
	})

	t.Run("unknown target host key refused", func(t *testing.T) {
		_, err := libVersionVia(t, uri("libvirt-behind-one", target.knownHosts(t, all[0], all[1])))
		var hke *HostKeyError
		if !errors.As(err, &hke) || hke.Problem != HostKeyUnknown || strings.Contains(err.Error(), "jump host") {
			t.Fatalf("want an unknown host key error for the target, got %v", err)
		}
	})

	t.Run("a bastion refuses the target's key", func(t *testing.T) {
		wrong := filepath.Join(dir, "wrong_config")
		b, _ := os.ReadFile(config)
		// bastion1 offered the target's key only
		s := strings.Replace(string(b), "IdentityFile "+bastion1.userKey, "IdentityFile "+target.userKey, 1)
		if err := os.WriteFile(wrong, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		u := fmt.Sprintf("qemu+ssh://libvirt-behind-one/system?ssh_config=%s&known_hosts=%s&sshauth=privkey", wrong, target.knownHosts(t, all...))
		_, err := libVersionVia(t, u)
		if err == nil || !strings.Contains(err.Error(), "jump host 127.0.0.1:"+bastion1.port) || !strings.Contains(err.Error(), "accepted none of the offered keys") {
			t.Fatalf("want an authentication error naming the jump host, got %v", err)
		}
	})
}
