package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// defaultWaitForIPTimeout is wait_for_ip.timeout's default, as in
// dmacvicar/libvirt 0.9.x.
const defaultWaitForIPTimeout = 300 * time.Second

// ipWait is one interface's wait_for_ip.
type ipWait struct {
	index   int // in devices.interfaces
	source  string
	timeout time.Duration
}

// ipWaits reads wait_for_ip of each interface in a planned domain.
func ipWaits(plan map[string]tftypes.Value) []ipWait {
	var out []ipWait
	for i, iface := range interfacesOf(plan) {
		w := treeresource.ObjectAttrs(iface["wait_for_ip"])
		if w == nil {
			continue
		}
		wait := ipWait{index: i, source: addrSourceAny, timeout: defaultWaitForIPTimeout}
		if s, ok := treeresource.String(w, "source"); ok {
			wait.source = s
		}
		if n, ok := treeresource.Int64(w, "timeout"); ok {
			wait.timeout = time.Duration(n) * time.Second
		}
		out = append(out, wait)
	}
	return out
}

// interfacesOf lists the attributes of each element of devices.interfaces
// (nil for an element that is null or unknown).
func interfacesOf(attrs map[string]tftypes.Value) []map[string]tftypes.Value {
	var ifaces []tftypes.Value
	list := treeresource.Nested(attrs["devices"], "interfaces")
	if list.Type() == nil || list.IsNull() || !list.IsKnown() || list.As(&ifaces) != nil {
		return nil
	}
	out := make([]map[string]tftypes.Value, len(ifaces))
	for i, iface := range ifaces {
		out[i] = treeresource.ObjectAttrs(iface)
	}
	return out
}

// validateIPWaits refuses wait_for_ip values the wait cannot use.
func validateIPWaits(config map[string]tftypes.Value, diags *diag.Diagnostics) {
	for _, w := range ipWaits(config) {
		p := path.Root("devices").AtName("interfaces").AtListIndex(w.index).AtName("wait_for_ip")
		switch w.source {
		case addrSourceLease, addrSourceAgent, addrSourceAny:
		default:
			diags.AddAttributeError(p.AtName("source"), "Invalid wait_for_ip source",
				fmt.Sprintf("source must be %q, %q or %q, got %q.", addrSourceLease, addrSourceAgent, addrSourceAny, w.source))
		}
		if w.timeout <= 0 {
			diags.AddAttributeError(p.AtName("timeout"), "Invalid wait_for_ip timeout", "timeout must be a positive number of seconds.")
		}
	}
}

// waitForIPs waits until every interface with wait_for_ip has an IPv4
// address, reading its MAC from the running domain.
func (r *domainResource) waitForIPs(ctx context.Context, id, name string, waits []ipWait) error {
	if len(waits) == 0 {
		return nil
	}
	dom := domainName{uuid: id, name: name}
	live, err := libvirtops.Domains(r.Client()).LiveDefinition(ctx, id)
	if err != nil {
		return fmt.Errorf("reading the running domain for wait_for_ip: %w", err)
	}
	for _, w := range waits {
		if live.Devices == nil || w.index >= len(live.Devices.Interfaces) || live.Devices.Interfaces[w.index].MAC == nil {
			return fmt.Errorf("interface %d has no MAC address to wait for", w.index)
		}
		mac := strings.ToLower(live.Devices.Interfaces[w.index].MAC.Address)
		deadline := time.Now().Add(w.timeout)
		var last []sourceObservation
		for {
			seen, err := pollAddresses(ctx, r.Client(), dom, w.source)
			if err != nil {
				return err
			}
			last = seen
			if macHasIPv4(seen, mac) {
				break
			}
			if time.Now().After(deadline) {
				var lines []string
				for _, o := range last {
					lines = append(lines, o.String())
				}
				return fmt.Errorf("interface %d (%s) of domain %q has no IPv4 address after %s (wait_for_ip, source %s); last seen:\n%s\n\n%s",
					w.index, mac, dom.name, w.timeout, w.source, strings.Join(lines, "\n"), diagnoseBoot(ctx, r.Client(), id))
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(2 * time.Second):
			}
		}
	}
	return nil
}

func macHasIPv4(seen []sourceObservation, mac string) bool {
	for _, o := range seen {
		for _, iface := range o.interfaces {
			if strings.EqualFold(iface.Hwaddr, mac) && len(usableIPv4([]domainInterfaceData{iface})) > 0 {
				return true
			}
		}
	}
	return false
}
