package libvirtconn

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/kevinburke/ssh_config"
)

// sshHop is one SSH server on the way to libvirtd: the target, or a jump
// host (ProxyJump) in front of it.
type sshHop struct {
	name     string // as written (an alias), for messages
	hostname string
	port     string
	user     string
	keyFiles []string // IdentityFile; empty: the default key files
}

func (h sshHop) hostPort() string { return net.JoinHostPort(h.hostname, h.port) }

// sshRoute resolves the URI's host with the OpenSSH client configuration
// (ep.SSHConfig), as ssh(1) would: HostName, User, Port and IdentityFile
// for the host, UserKnownHostsFile, and the ProxyJump chain, each jump host
// resolved the same way. What the URI sets itself (user, port, keyfile=,
// known_hosts=) wins over the configuration. The returned hops are in
// dialing order: jump hosts first, the target last.
func sshRoute(ep *Endpoint) (hops []sshHop, knownHosts string, err error) {
	cfg, err := loadSSHConfig(ep.SSHConfig)
	if err != nil {
		return nil, "", err
	}
	target := resolveHop(cfg, ep.Hostname, "", "")
	if ep.UserFromURI || target.user == "" {
		target.user = ep.User
	}
	if ep.PortFromURI || target.port == "" {
		target.port = ep.Port
	}
	if ep.KeyFile != "" {
		target.keyFiles = []string{ep.KeyFile}
	}
	knownHosts = ep.KnownHosts
	if cfg != nil && !ep.KnownHostsFromURI {
		if f, _ := cfg.Get(ep.Hostname, "UserKnownHostsFile"); f != "" && f != "none" {
			knownHosts = expandSSHPath(strings.Fields(f)[0])
		}
	}
	if cfg != nil {
		jump, _ := cfg.Get(ep.Hostname, "ProxyJump")
		if jump != "" && !strings.EqualFold(jump, "none") {
			for _, j := range strings.Split(jump, ",") {
				hop, err := parseJump(cfg, strings.TrimSpace(j), ep)
				if err != nil {
					return nil, "", fmt.Errorf("ssh_config %s: ProxyJump of %s: %w", ep.SSHConfig, ep.Hostname, err)
				}
				hops = append(hops, hop)
			}
		}
	}
	return append(hops, target), knownHosts, nil
}

// loadSSHConfig reads the configuration; a missing default file is no
// configuration, a missing file named in the URI is an error.
func loadSSHConfig(file string) (*ssh_config.Config, error) {
	if file == "" || file == "none" {
		return nil, nil
	}
	f, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		if home, herr := os.UserHomeDir(); herr == nil && file == filepath.Join(home, ".ssh", "config") {
			return nil, nil
		}
		return nil, fmt.Errorf("ssh_config %s does not exist", file)
	}
	if err != nil {
		return nil, fmt.Errorf("ssh_config %s: %w", file, err)
	}
	defer f.Close()
	cfg, err := ssh_config.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("ssh_config %s: %w", file, err)
	}
	return cfg, nil
}

// parseJump resolves one ProxyJump entry, [user@]host[:port], through the
// configuration of its host.
func parseJump(cfg *ssh_config.Config, spec string, ep *Endpoint) (sshHop, error) {
	if spec == "" {
		return sshHop{}, errors.New("empty jump host")
	}
	if strings.Contains(spec, "://") {
		spec = strings.TrimPrefix(spec, "ssh://")
	}
	user, host := "", spec
	if i := strings.LastIndex(spec, "@"); i >= 0 {
		user, host = spec[:i], spec[i+1:]
	}
	port := ""
	if h, p, err := net.SplitHostPort(host); err == nil {
		host, port = h, p
	}
	hop := resolveHop(cfg, host, user, port)
	if hop.user == "" {
		hop.user = ep.User
	}
	if hop.port == "" {
		hop.port = DefaultSSHPort
	}
	return hop, nil
}

// resolveHop applies the configuration of alias; user and port given
// explicitly win.
func resolveHop(cfg *ssh_config.Config, alias, user, port string) sshHop {
	hop := sshHop{name: alias, hostname: alias, user: user, port: port}
	if cfg == nil {
		return hop
	}
	if h, _ := cfg.Get(alias, "HostName"); h != "" {
		hop.hostname = strings.ReplaceAll(h, "%h", alias)
	}
	if hop.user == "" {
		hop.user, _ = cfg.Get(alias, "User")
	}
	if hop.port == "" {
		hop.port, _ = cfg.Get(alias, "Port")
	}
	files, _ := cfg.GetAll(alias, "IdentityFile")
	for _, f := range files {
		f = strings.NewReplacer("%h", hop.hostname, "%r", hop.user, "%p", hop.port).Replace(f)
		hop.keyFiles = append(hop.keyFiles, expandSSHPath(f))
	}
	return hop
}

// expandSSHPath expands ~ and %d (the home directory).
func expandSSHPath(p string) string {
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	p = strings.ReplaceAll(p, "%d", home)
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}
