package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// A MAC address written in the configuration that another domain on the
// same host already uses is warned about at plan: two guests with one MAC on
// one network lose packets, and libvirt does not refuse it. A warning, not
// an error: replacing a domain (create before destroy) briefly has both.

// hostMACs is the MAC -> domain index of one connection, read once per
// macIndexTTL and shared by all domains of a plan (one listing and one XML
// read per domain, instead of one per domain and planned domain).
type hostMACs struct {
	mu    sync.Mutex
	at    time.Time
	byMAC map[string]macOwner
}

type macOwner struct{ name, uuid string }

const macIndexTTL = 20 * time.Second

var macIndexes sync.Map // *libvirtconn.Client -> *hostMACs

func macIndexOf(ctx context.Context, c *libvirtconn.Client) (map[string]macOwner, error) {
	v, _ := macIndexes.LoadOrStore(c, &hostMACs{})
	h := v.(*hostMACs)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byMAC != nil && time.Since(h.at) < macIndexTTL {
		return h.byMAC, nil
	}
	idx := map[string]macOwner{}
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		doms, _, err := l.ConnectListAllDomains(1, 0)
		if err != nil {
			return err
		}
		for _, d := range doms {
			x, err := l.DomainGetXMLDesc(d, libvirt.DomainXMLInactive)
			if err != nil {
				continue // gone meanwhile
			}
			var def libvirtxml.Domain
			if def.Unmarshal(x) != nil || def.Devices == nil {
				continue
			}
			for _, i := range def.Devices.Interfaces {
				if i.MAC != nil && i.MAC.Address != "" {
					idx[strings.ToLower(i.MAC.Address)] = macOwner{name: d.Name, uuid: libvirtops.UUIDString(d.UUID)}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.byMAC, h.at = idx, time.Now()
	return idx, nil
}

// warnDuplicateMACs warns about configured MACs (new to this domain) that
// another domain of the host has.
func (r *domainResource) warnDuplicateMACs(ctx context.Context, config, state map[string]tftypes.Value, diags *diag.Diagnostics) {
	have := map[string]bool{}
	for _, m := range interfaceMACs(state) {
		have[m.mac] = true
	}
	var fresh []configuredMAC
	for _, m := range interfaceMACs(config) {
		if !have[m.mac] {
			fresh = append(fresh, m)
		}
	}
	if len(fresh) == 0 || r.Client() == nil {
		return
	}
	idx, err := macIndexOf(ctx, r.Client())
	if err != nil {
		return // the plan goes on; apply reports connection problems
	}
	self, _ := treeresource.String(state, "id")
	for _, m := range fresh {
		if o, ok := idx[m.mac]; ok && o.uuid != self {
			diags.AddAttributeWarning(path.Root("devices").AtName("interfaces").AtListIndex(m.index).AtName("mac").AtName("address"),
				"MAC address already in use",
				fmt.Sprintf("Domain %q (%s) on this host already has an interface with MAC %s. Two guests with one MAC on one network lose traffic; choose another address, or leave mac unset and libvirt generates one.", o.name, o.uuid, m.mac))
		}
	}
}

type configuredMAC struct {
	index int
	mac   string
}

// interfaceMACs lists the known MACs of devices.interfaces, lower case.
func interfaceMACs(attrs map[string]tftypes.Value) []configuredMAC {
	var out []configuredMAC
	for i, iface := range interfacesOf(attrs) {
		if mac, ok := treeresource.String(treeresource.ObjectAttrs(iface["mac"]), "address"); ok {
			out = append(out, configuredMAC{index: i, mac: strings.ToLower(mac)})
		}
	}
	return out
}
