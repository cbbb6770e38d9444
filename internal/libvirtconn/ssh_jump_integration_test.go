package libvirtconn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/virtxml/terraform-provider-libvirt/internal/testsshd"
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
	bastion1 := testsshd.Start(t, onlyForward...)
	bastion2 := testsshd.Start(t, onlyForward...)
	target := testsshd.Start(t)
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
`, bastion1.Port, bastion1.UserKey, bastion2.Port, bastion2.UserKey, target.Port, target.UserKey)), 0o600); err != nil {
		t.Fatal(err)
	}
	all := []string{
		knownhosts.Line([]string{bastion1.HostEntry()}, bastion1.HostKey),
		knownhosts.Line([]string{bastion2.HostEntry()}, bastion2.HostKey),
		knownhosts.Line([]string{target.HostEntry()}, target.HostKey),
	}
	uri := func(alias, kh string) string {
		return fmt.Sprintf("qemu+ssh://%s/system?ssh_config=%s&known_hosts=%s&sshauth=privkey", alias, config, kh)
	}
	accepted := func(s *testsshd.Server) int { return strings.Count(s.Log(), "Accepted publickey for root") }

	t.Run("one bastion", func(t *testing.T) {
		before1, beforeT := accepted(bastion1), accepted(target)
		name, err := libVersionVia(t, uri("libvirt-behind-one", target.KnownHosts(t, all...)))
		if err != nil {
			t.Fatal(err)
		}
		if name != "qemu:///system" {
			t.Errorf("daemon opened %q", name)
		}
		if accepted(bastion1) != before1+1 || accepted(target) != beforeT+1 {
			t.Errorf("want one login on the bastion and one on the target; bastion log:\n%s", bastion1.Log())
		}
	})

	t.Run("two bastions", func(t *testing.T) {
		before1, before2, beforeT := accepted(bastion1), accepted(bastion2), accepted(target)
		if _, err := libVersionVia(t, uri("libvirt-behind-two", target.KnownHosts(t, all...))); err != nil {
			t.Fatal(err)
		}
		if accepted(bastion1) != before1+1 || accepted(bastion2) != before2+1 || accepted(target) != beforeT+1 {
			t.Errorf("want one login on each hop")
		}
	})

	t.Run("unknown bastion host key refused", func(t *testing.T) {
		_, err := libVersionVia(t, uri("libvirt-behind-two", target.KnownHosts(t, all[0], all[2])))
		var hke *HostKeyError
		if !errors.As(err, &hke) || hke.Problem != HostKeyUnknown || !strings.Contains(err.Error(), "jump host bastion2") {
			t.Fatalf("want an unknown host key error naming jump host bastion2, got %v", err)
		}
	})

	t.Run("unknown target host key refused", func(t *testing.T) {
		_, err := libVersionVia(t, uri("libvirt-behind-one", target.KnownHosts(t, all[0], all[1])))
		var hke *HostKeyError
		if !errors.As(err, &hke) || hke.Problem != HostKeyUnknown || strings.Contains(err.Error(), "jump host") {
			t.Fatalf("want an unknown host key error for the target, got %v", err)
		}
	})

	t.Run("a bastion refuses the target's key", func(t *testing.T) {
		wrong := filepath.Join(dir, "wrong_config")
		b, _ := os.ReadFile(config)
		// bastion1 offered the target's key only
		s := strings.Replace(string(b), "IdentityFile "+bastion1.UserKey, "IdentityFile "+target.UserKey, 1)
		if err := os.WriteFile(wrong, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		u := fmt.Sprintf("qemu+ssh://libvirt-behind-one/system?ssh_config=%s&known_hosts=%s&sshauth=privkey", wrong, target.KnownHosts(t, all...))
		_, err := libVersionVia(t, u)
		if err == nil || !strings.Contains(err.Error(), "jump host 127.0.0.1:"+bastion1.Port) || !strings.Contains(err.Error(), "accepted none of the offered keys") {
			t.Fatalf("want an authentication error naming the jump host, got %v", err)
		}
	})
}
