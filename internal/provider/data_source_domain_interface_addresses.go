package provider

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

var (
	_ datasource.DataSource              = (*domainInterfaceAddressesDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*domainInterfaceAddressesDataSource)(nil)
)

// NewDomainInterfaceAddressesDataSource returns data.libvirt_domain_interface_addresses.
func NewDomainInterfaceAddressesDataSource() datasource.DataSource {
	return &domainInterfaceAddressesDataSource{}
}

type domainInterfaceAddressesDataSource struct {
	client *libvirtconn.Client
}

const (
	addrSourceLease = "lease"
	addrSourceAgent = "agent"
	addrSourceARP   = "arp"
	addrSourceAny   = "any"

	waitForIPv4          = "ipv4"
	waitForAllInterfaces = "all_interfaces"

	defaultAddrWaitTimeout = 5 * time.Minute
	addrPollFirstDelay     = time.Second
	addrPollMaxDelay       = 10 * time.Second
)

// addrSourceOrder is what each source value queries, in order.
var addrSourceOrder = map[string][]string{
	addrSourceLease: {addrSourceLease},
	addrSourceAgent: {addrSourceAgent},
	addrSourceARP:   {addrSourceARP},
	addrSourceAny:   {addrSourceLease, addrSourceAgent, addrSourceARP},
}

// domainName is a domain found by lookupDomain: its UUID, and its name for
// messages.
type domainName struct{ uuid, name string }

type domainInterfaceAddressesModel struct {
	ID            types.String          `tfsdk:"id"`
	Domain        types.String          `tfsdk:"domain"`
	Source        types.String          `tfsdk:"source"`
	Wait          *addrWaitModel        `tfsdk:"wait"`
	Interfaces    []domainInterfaceData `tfsdk:"interfaces"`
	IPv4Addresses []string              `tfsdk:"ipv4_addresses"`
}

type addrWaitModel struct {
	Timeout types.String `tfsdk:"timeout"`
	Until   types.String `tfsdk:"until"`
}

type domainInterfaceData struct {
	Name   string            `tfsdk:"name"`
	Hwaddr string            `tfsdk:"hwaddr"`
	Addrs  []domainIPAddress `tfsdk:"addrs"`
}

type domainIPAddress struct {
	Type   string `tfsdk:"type"`
	Addr   string `tfsdk:"addr"`
	Prefix int64  `tfsdk:"prefix"`
}

func (d *domainInterfaceAddressesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_domain_interface_addresses"
}

func (d *domainInterfaceAddressesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The IP addresses of a domain's network interfaces, as libvirt reports them from DHCP leases of libvirt networks, " +
			"the QEMU guest agent, or the host's ARP table. With `wait`, reading polls until addresses appear, so the first apply that " +
			"creates a domain also yields its address.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:    true,
				Description: "UUID of the domain.",
			},
			"domain": schema.StringAttribute{
				Required:    true,
				Description: "The domain: its UUID (for example `libvirt_domain.x.id`) or its name.",
				Validators:  []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"source": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Description: "Where addresses come from: `lease` (DHCP leases of libvirt-managed networks; default), " +
					"`agent` (the QEMU guest agent inside the guest; needs a guest agent channel), `arp` (the host's ARP table), " +
					"or `any` (lease, then agent, then arp: the first that reports an address).",
				Validators: []validator.String{stringvalidator.OneOf(addrSourceLease, addrSourceAgent, addrSourceARP, addrSourceAny)},
			},
			"wait": schema.SingleNestedAttribute{
				Optional: true,
				Description: "Poll (with backoff, 1 s growing to 10 s) until addresses appear instead of returning what is there now. " +
					"On timeout, reading fails with what each source reported. Without `wait`, a stopped domain or an unresponsive " +
					"guest agent yields empty `interfaces` and a warning.",
				Attributes: map[string]schema.Attribute{
					"timeout": schema.StringAttribute{
						Optional:    true,
						Description: "How long to wait, as a Go duration (`90s`, `5m`). Default `5m`.",
						Validators:  []validator.String{treeresource.DurationValidator{}},
					},
					"until": schema.StringAttribute{
						Optional: true,
						Description: "What to wait until: `ipv4` (default): any interface has an IPv4 address; `all_interfaces`: every " +
							"interface in the domain's definition (matched by MAC) has an address. Loopback and link-local addresses never count. " +
							"(Not named `for`: HCL reads `{ for = ... }` as a for expression.)",
						Validators: []validator.String{stringvalidator.OneOf(waitForIPv4, waitForAllInterfaces)},
					},
				},
			},
			"interfaces": schema.ListNestedAttribute{
				Computed:    true,
				Description: "The interfaces the source reported, in its order (the guest agent also reports the guest's loopback).",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"name":   schema.StringAttribute{Computed: true, Description: "Interface name: the host-side device (`vnet0`) for lease and arp, the guest's name (`eth0`) for agent."},
						"hwaddr": schema.StringAttribute{Computed: true, Description: "MAC address, lower case."},
						"addrs": schema.ListNestedAttribute{
							Computed:    true,
							Description: "Addresses of the interface.",
							NestedObject: schema.NestedAttributeObject{
								Attributes: map[string]schema.Attribute{
									"type":   schema.StringAttribute{Computed: true, Description: "`ipv4` or `ipv6`."},
									"addr":   schema.StringAttribute{Computed: true, Description: "The address, without prefix."},
									"prefix": schema.Int64Attribute{Computed: true, Description: "Prefix length."},
								},
							},
						},
					},
				},
			},
			"ipv4_addresses": schema.ListAttribute{
				Computed:    true,
				ElementType: types.StringType,
				Description: "All IPv4 addresses of all interfaces, in order, without loopback and link-local ones: `ipv4_addresses[0]` is the usual \"the VM's IP\".",
			},
		},
	}
}

func (d *domainInterfaceAddressesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = treeresource.ClientFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *domainInterfaceAddressesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg domainInterfaceAddressesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() || !treeresource.RequireClient(d.client, &resp.Diagnostics) {
		return
	}
	source := cfg.Source.ValueString()
	if source == "" {
		source = addrSourceLease
	}

	dom := d.lookupDomain(ctx, cfg.Domain.ValueString(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	var result []domainInterfaceData
	if cfg.Wait == nil {
		result = d.readOnce(ctx, dom, source, &resp.Diagnostics)
	} else {
		result = d.readWaiting(ctx, dom, source, *cfg.Wait, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}

	cfg.ID = types.StringValue(dom.uuid)
	cfg.Source = types.StringValue(source)
	cfg.Interfaces = result
	if cfg.Interfaces == nil {
		cfg.Interfaces = []domainInterfaceData{}
	}
	cfg.IPv4Addresses = usableIPv4(result)
	resp.Diagnostics.Append(resp.State.Set(ctx, cfg)...)
}

// lookupDomain finds the domain by UUID when ref parses as one, else by name.
func (d *domainInterfaceAddressesDataSource) lookupDomain(ctx context.Context, ref string, diags *diag.Diagnostics) domainName {
	uuid, name, err := libvirtops.Domains(d.client).Identify(ctx, ref)
	if libvirtconn.IsNotFound(err) {
		diags.AddAttributeError(path.Root("domain"), "Domain not found",
			fmt.Sprintf("No domain with UUID or name %q exists on %s.", ref, d.client.URI()))
		return domainName{}
	}
	if err != nil {
		diags.AddAttributeError(path.Root("domain"), "Cannot look up domain", fmt.Sprintf("Looking up domain %q: %v", ref, err))
		return domainName{}
	}
	return domainName{uuid: uuid, name: name}
}

// sourceObservation is what one source said in one poll.
type sourceObservation struct {
	source     string
	interfaces []domainInterfaceData
	err        error // a "not yet" condition (domain stopped, agent unresponsive)
}

func (o sourceObservation) String() string {
	if o.err != nil {
		return fmt.Sprintf("%s: %v", o.source, o.err)
	}
	if len(o.interfaces) == 0 {
		return o.source + ": no interfaces reported"
	}
	var parts []string
	for _, iface := range o.interfaces {
		var addrs []string
		for _, a := range iface.Addrs {
			addrs = append(addrs, fmt.Sprintf("%s/%d", a.Addr, a.Prefix))
		}
		if len(addrs) == 0 {
			addrs = []string{"no addresses"}
		}
		parts = append(parts, fmt.Sprintf("%s (%s): %s", iface.Name, iface.Hwaddr, strings.Join(addrs, ", ")))
	}
	return o.source + ": " + strings.Join(parts, "; ")
}

// pollAddresses asks each source in order and returns what each said. A source that
// has a usable address ends the round early. Errors other than "not yet"
// conditions are returned as err.
func pollAddresses(ctx context.Context, c *libvirtconn.Client, dom domainName, source string) ([]sourceObservation, error) {
	var seen []sourceObservation
	for _, s := range addrSourceOrder[source] {
		raw, err := libvirtops.Domains(c).Addresses(ctx, dom.uuid, s)
		obs := sourceObservation{source: s}
		switch {
		case err == nil:
			obs.interfaces = convertInterfaces(raw)
		case libvirtops.AddressesNotYet(err):
			obs.err = err
		default:
			return seen, fmt.Errorf("reading addresses of domain %s from %s: %w", dom.name, s, err)
		}
		seen = append(seen, obs)
		if len(usableIPv4(obs.interfaces)) > 0 {
			break
		}
	}
	return seen, nil
}

// connectionLost reports errors of the transport rather than answers of
// libvirtd (which are *libvirtconn.Error): the daemon went away and did not
// come back within the client's reconnect window.
func connectionLost(err error) bool {
	var le *libvirtconn.Error
	return !errors.As(err, &le)
}

// pick is the result a round yields: the first source with a usable address,
// else the first source that answered at all.
func pick(seen []sourceObservation) []domainInterfaceData {
	for _, o := range seen {
		if len(usableIPv4(o.interfaces)) > 0 {
			return o.interfaces
		}
	}
	for _, o := range seen {
		if o.err == nil {
			return o.interfaces
		}
	}
	return nil
}

func (d *domainInterfaceAddressesDataSource) readOnce(ctx context.Context, dom domainName, source string, diags *diag.Diagnostics) []domainInterfaceData {
	seen, err := pollAddresses(ctx, d.client, dom, source)
	if err != nil {
		diags.AddError("Cannot read domain interface addresses", err.Error())
		return nil
	}
	result := pick(seen)
	if result == nil {
		var lines []string
		for _, o := range seen {
			lines = append(lines, o.String())
		}
		diags.AddWarning("No interface addresses for domain "+dom.name,
			"No source could report addresses yet:\n"+strings.Join(lines, "\n")+
				"\nSet wait = { timeout = \"5m\" } to poll until the guest has an address.")
	}
	return result
}

func (d *domainInterfaceAddressesDataSource) readWaiting(ctx context.Context, dom domainName, source string, w addrWaitModel, diags *diag.Diagnostics) []domainInterfaceData {
	timeout := defaultAddrWaitTimeout
	if !w.Timeout.IsNull() {
		timeout, _ = time.ParseDuration(w.Timeout.ValueString()) // validated
	}
	waitFor := w.Until.ValueString()
	if waitFor == "" {
		waitFor = waitForIPv4
	}
	var wantMACs []string
	if waitFor == waitForAllInterfaces {
		wantMACs = d.domainMACs(ctx, dom, diags)
		if diags.HasError() {
			return nil
		}
	}

	deadline := time.Now().Add(timeout)
	delay := addrPollFirstDelay
	last := map[string]sourceObservation{}
	for {
		seen, err := pollAddresses(ctx, d.client, dom, source)
		switch {
		case err == nil:
		case connectionLost(err):
			// libvirtd restarted mid-wait: keep waiting, say so on timeout.
			seen = append(seen, sourceObservation{source: "connection", err: err})
		default:
			diags.AddError("Cannot read domain interface addresses", err.Error())
			return nil
		}
		for _, o := range seen {
			last[o.source] = o
			if waitSatisfied(waitFor, o.interfaces, wantMACs) {
				return o.interfaces
			}
		}
		remaining := time.Until(deadline)
		if remaining <= 0 {
			break
		}
		tflog.Debug(ctx, "waiting for domain interface addresses", map[string]any{"domain": dom.name, "retry_in": delay.String()})
		select {
		case <-ctx.Done():
			diags.AddError("Waiting for domain interface addresses cancelled", ctx.Err().Error())
			return nil
		case <-time.After(min(delay, remaining)):
		}
		delay = min(delay*2, addrPollMaxDelay)
	}

	var lines []string
	for _, s := range append(addrSourceOrder[source], "connection") {
		if o, ok := last[s]; ok {
			lines = append(lines, "  "+o.String())
		}
	}
	what := "IPv4 address"
	if waitFor == waitForAllInterfaces {
		what = fmt.Sprintf("address on every interface (%s)", strings.Join(wantMACs, ", "))
	}
	diags.AddAttributeError(path.Root("wait"), "Timed out waiting for domain interface addresses",
		fmt.Sprintf("Domain %s had no %s after %s (wait.until = %q, source = %q). Last seen:\n%s\n\n%s",
			dom.name, what, timeout, waitFor, source, strings.Join(lines, "\n"), diagnoseBoot(ctx, d.client, dom.uuid)))
	return nil
}

// domainMACs lists the MAC addresses of the interfaces in the domain's live
// definition (libvirt fills in generated MACs).
func (d *domainInterfaceAddressesDataSource) domainMACs(ctx context.Context, dom domainName, diags *diag.Diagnostics) []string {
	def, err := libvirtops.Domains(d.client).LiveDefinition(ctx, dom.uuid)
	if err != nil {
		diags.AddError("Cannot read domain definition", fmt.Sprintf("Reading the definition of %s: %v", dom.name, err))
		return nil
	}
	var macs []string
	if def.Devices != nil {
		for _, iface := range def.Devices.Interfaces {
			if iface.MAC != nil {
				macs = append(macs, strings.ToLower(iface.MAC.Address))
			}
		}
	}
	return macs
}

// waitSatisfied decides whether what a source reported is what wait.until asks.
func waitSatisfied(waitFor string, ifaces []domainInterfaceData, wantMACs []string) bool {
	if waitFor == waitForIPv4 {
		return len(usableIPv4(ifaces)) > 0
	}
	for _, mac := range wantMACs {
		found := false
		for _, iface := range ifaces {
			if iface.Hwaddr == mac && hasUsableAddr(iface) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func convertInterfaces(raw []libvirtops.InterfaceAddresses) []domainInterfaceData {
	out := make([]domainInterfaceData, 0, len(raw))
	for _, r := range raw {
		iface := domainInterfaceData{Name: r.Name, Hwaddr: r.Hwaddr, Addrs: make([]domainIPAddress, 0, len(r.Addrs))}
		for _, a := range r.Addrs {
			iface.Addrs = append(iface.Addrs, domainIPAddress{Type: a.Type, Addr: a.Addr, Prefix: a.Prefix})
		}
		out = append(out, iface)
	}
	return out
}

// usableAddr excludes loopback and link-local addresses: they say nothing
// about how to reach the guest.
func usableAddr(a domainIPAddress) bool {
	ip, err := netip.ParseAddr(a.Addr)
	if err != nil {
		return false
	}
	return !ip.IsLoopback() && !ip.IsLinkLocalUnicast() && !ip.IsUnspecified()
}

func hasUsableAddr(iface domainInterfaceData) bool {
	for _, a := range iface.Addrs {
		if usableAddr(a) {
			return true
		}
	}
	return false
}

func usableIPv4(ifaces []domainInterfaceData) []string {
	out := []string{}
	for _, iface := range ifaces {
		for _, a := range iface.Addrs {
			if a.Type == "ipv4" && usableAddr(a) {
				out = append(out, a.Addr)
			}
		}
	}
	return out
}
