package libvirtops

import (
	"context"
	"fmt"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Network is the adapter for libvirt networks, addressed by UUID.
type Network struct{ byUUID }

// Networks returns the network adapter on this connection.
func Networks(c *libvirtconn.Client) Network { return Network{byUUID{c: c, lookup: networkLookup}} }

// NetworkState is what Fetch reads: the persistent definition, and whether
// the network runs and starts with libvirtd.
type NetworkState struct {
	Doc       *libvirtxml.Network
	Running   bool
	Autostart bool
}

// Fetch reads the network with this UUID.
func (n Network) Fetch(ctx context.Context, id string) (*NetworkState, error) {
	net, err := networkRef(id)
	if err != nil {
		return nil, err
	}
	var xml string
	var autostart, active int32
	err = n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		net, err := n.named(l, net)
		if err != nil {
			return err
		}
		if xml, err = l.NetworkGetXMLDesc(net, uint32(libvirt.NetworkXMLInactive)); err != nil {
			return err
		}
		if active, err = l.NetworkIsActive(net); err != nil {
			return err
		}
		autostart, err = l.NetworkGetAutostart(net)
		return err
	})
	if err != nil {
		return nil, err
	}
	var doc libvirtxml.Network
	if err := doc.Unmarshal(xml); err != nil {
		return nil, fmt.Errorf("parsing network XML: %w", err)
	}
	return &NetworkState{Doc: &doc, Running: active == 1, Autostart: autostart == 1}, nil
}

// NameTaken returns the UUID of the network called name, or "" when there
// is none: a create never redefines a network that is not its own.
func (n Network) NameTaken(ctx context.Context, name string) (string, error) {
	var uuid string
	err := n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		existing, err := l.NetworkLookupByName(name)
		if err == nil {
			uuid = UUIDString(existing.UUID)
			return nil
		}
		if libvirtconn.IsNotFound(err) {
			return nil
		}
		return err
	})
	return uuid, err
}

// Create defines doc (whose UUID is set) and starts it and marks it
// autostart as asked. Defining the same document twice is harmless, so the
// connection may run it again after a break.
func (n Network) Create(ctx context.Context, doc *libvirtxml.Network, running, autostart bool) error {
	net, err := networkRef(doc.UUID)
	if err != nil {
		return err
	}
	net.Name = doc.Name
	xml, err := doc.Marshal()
	if err != nil {
		return fmt.Errorf("writing network XML: %w", err)
	}
	return n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		net, err := n.named(l, net)
		if err != nil {
			return err
		}
		if _, err := l.NetworkDefineXMLFlags(xml, uint32(libvirt.NetworkDefineValidate)); err != nil {
			return fmt.Errorf("defining network: %w", err)
		}
		active, err := l.NetworkIsActive(net)
		if err != nil {
			return err
		}
		if active != 1 && running {
			if err := l.NetworkCreate(net); err != nil {
				return fmt.Errorf("starting network %q: %w", doc.Name, err)
			}
		}
		if autostart {
			if err := l.NetworkSetAutostart(net, 1); err != nil {
				return fmt.Errorf("setting autostart: %w", err)
			}
		}
		return nil
	})
}

// Remove stops (when running) and undefines the network, whoever uses it:
// the cleanup after a failed create.
func (n Network) Remove(ctx context.Context, id string) error {
	net, err := networkRef(id)
	if err != nil {
		return err
	}
	return n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		net, err := n.named(l, net)
		if err != nil {
			return err
		}
		if active, err := l.NetworkIsActive(net); err != nil {
			return err
		} else if active == 1 {
			if err := l.NetworkDestroy(net); err != nil {
				return err
			}
		}
		return l.NetworkUndefine(net)
	})
}

// Delete stops and undefines the network unless running domains have
// interfaces on it: then it changes nothing and returns their names.
func (n Network) Delete(ctx context.Context, id string) (users []string, err error) {
	net, err := networkRef(id)
	if err != nil {
		return nil, err
	}
	err = n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		net, err := n.named(l, net)
		if err != nil {
			return err
		}
		users = nil
		active, err := l.NetworkIsActive(net)
		if err != nil {
			return err
		}
		if active == 1 {
			if users, err = networkUsers(l, net); err != nil || len(users) > 0 {
				return err
			}
			if err := l.NetworkDestroy(net); err != nil {
				return err
			}
		}
		return l.NetworkUndefine(net)
	})
	return users, err
}

// networkUsers lists the running domains on the (running) network net.
func networkUsers(l *libvirt.Libvirt, net libvirt.Network) ([]string, error) {
	x, err := l.NetworkGetXMLDesc(net, 0)
	if err != nil {
		return nil, err
	}
	var cur libvirtxml.Network
	if err := cur.Unmarshal(x); err != nil {
		return nil, fmt.Errorf("parsing network XML: %w", err)
	}
	bridge := ""
	if cur.Bridge != nil {
		bridge = cur.Bridge.Name
	}
	return domainsUsingNetwork(l, cur.Name, bridge)
}

// RedefineAndRestart replaces the persistent definition and restarts the
// network so it runs with it (start false leaves it stopped). detached are
// the running domains whose interfaces the restart left off the bridge
// (libvirt does not reattach them).
func (n Network) RedefineAndRestart(ctx context.Context, doc *libvirtxml.Network, start bool) (detached []string, err error) {
	net, err := networkRef(doc.UUID)
	if err != nil {
		return nil, err
	}
	net.Name = doc.Name
	xml, err := doc.Marshal()
	if err != nil {
		return nil, fmt.Errorf("writing network XML: %w", err)
	}
	err = n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		net, err := n.named(l, net)
		if err != nil {
			return err
		}
		detached = nil
		active, _ := l.NetworkIsActive(net)
		if active == 1 {
			// the guests whose interfaces the restart leaves off the bridge
			if x, err := l.NetworkGetXMLDesc(net, 0); err == nil {
				var cur libvirtxml.Network
				if cur.Unmarshal(x) == nil && cur.Bridge != nil {
					detached, _ = domainsUsingNetwork(l, cur.Name, cur.Bridge.Name)
				}
			}
		}
		if active == 1 && !start && len(detached) > 0 {
			return fmt.Errorf("network %q is in use: running domains have interfaces on it: %s; stop them first, "+
				"stopping the network would cut them off", doc.Name, strings.Join(detached, ", "))
		}
		if _, err := l.NetworkDefineXMLFlags(xml, uint32(libvirt.NetworkDefineValidate)); err != nil {
			return fmt.Errorf("redefining network: %w", err)
		}
		if active == 1 {
			if err := l.NetworkDestroy(net); err != nil {
				return fmt.Errorf("stopping network for restart: %w", err)
			}
		}
		if !start {
			return nil
		}
		if err := l.NetworkCreate(net); err != nil {
			return fmt.Errorf("starting network with the new definition: %w", err)
		}
		return nil
	})
	return detached, err
}

// SetRunning starts or stops the network. Stopping it under running domains
// would cut them off: it is left running and users names them.
func (n Network) SetRunning(ctx context.Context, id string, running bool) (users []string, err error) {
	net, err := networkRef(id)
	if err != nil {
		return nil, err
	}
	err = n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		net, err := n.named(l, net)
		if err != nil {
			return err
		}
		users = nil
		active, err := l.NetworkIsActive(net)
		if err != nil {
			return err
		}
		switch {
		case running && active != 1:
			return l.NetworkCreate(net)
		case !running && active == 1:
			if users, err = networkUsers(l, net); err != nil || len(users) > 0 {
				return err
			}
			return l.NetworkDestroy(net)
		}
		return nil
	})
	return users, err
}

// SetAutostart sets whether the network starts with libvirtd.
func (n Network) SetAutostart(ctx context.Context, id string, autostart bool) error {
	net, err := networkRef(id)
	if err != nil {
		return err
	}
	return n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		net, err := n.named(l, net)
		if err != nil {
			return err
		}
		var a int32
		if autostart {
			a = 1
		}
		return l.NetworkSetAutostart(net, a)
	})
}

// UpdateLive applies the DHCP host and DNS host changes from libvirt's
// current definition to doc with virNetworkUpdate: the running network
// (dnsmasq) and its definition change, nothing restarts.
func (n Network) UpdateLive(ctx context.Context, doc *libvirtxml.Network) error {
	net, err := networkRef(doc.UUID)
	if err != nil {
		return err
	}
	net.Name = doc.Name
	return n.c.Do(ctx, func(l *libvirt.Libvirt) error {
		net, err := n.named(l, net)
		if err != nil {
			return err
		}
		// the operations are computed from libvirt's current hosts, not from
		// the state: a run that client.Do repeats after a broken connection
		// only does what is still missing
		x, err := l.NetworkGetXMLDesc(net, 0)
		if err != nil {
			return err
		}
		var live libvirtxml.Network
		if err := live.Unmarshal(x); err != nil {
			return fmt.Errorf("parsing network XML: %w", err)
		}
		ops, err := networkLiveOps(&live, doc)
		if err != nil {
			return err
		}
		flags := networkUpdateFlags
		if active, err := l.NetworkIsActive(net); err != nil {
			return err
		} else if active != 1 {
			flags = libvirt.NetworkUpdateAffectConfig // stopped out of band: the next start uses it
		}
		for _, op := range ops {
			if err := applyNetworkUpdate(l, net, &live, op, flags); err != nil {
				return err
			}
		}
		return nil
	})
}
