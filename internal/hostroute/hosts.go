package hostroute

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/treeresource"
)

// Several hosts (docs/adr/0002-several-hosts.md): the provider block may name
// libvirt hosts besides its uri,
//
//	hosts = { a = { uri = "qemu+ssh://a/system" }, b = { uri = "qemu+ssh://b/system" } }
//
// and every resource that talks to libvirt has an optional attribute `host`,
// a key of hosts; without it the resource lives on the provider's uri. The
// host of a request travels in its context (withHost, set by Server from
// the resource's value); resources get their connection from Set, the
// provider data, through treeresource.ClientFromContext.

// DefaultURI is used when neither the uri attribute nor LIBVIRT_DEFAULT_URI is set.
const DefaultURI = "qemu:///system"

// hostModel is one entry of the provider's hosts.
type hostModel struct {
	URI           types.String `tfsdk:"uri"`
	MigrateUnsafe types.Bool   `tfsdk:"migrate_unsafe"`
}

func SchemaAttribute() schema.Attribute {
	return schema.MapNestedAttribute{
		Optional: true,
		Description: "Further libvirt hosts, by name. A resource with `host = \"NAME\"` lives on the host of that name; " +
			"a resource without `host` lives on `uri`. Each host has its own connection (hosts with the same uri share " +
			"one); a connection is opened when a resource first uses it. Changing a resource's `host` replaces it, except " +
			"for `libvirt_domain`, which moves: a running domain migrates live, a stopped one is defined on the new host " +
			"and undefined on the old one (see the guide \"Several hosts\").",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"uri": schema.StringAttribute{
				Required:    true,
				Description: "The host's libvirt connection URI, in any form `uri` accepts.",
			},
			"migrate_unsafe": schema.BoolAttribute{
				Optional: true,
				Description: "Live migrations to this host pass VIR_MIGRATE_UNSAFE: libvirt then skips its own check that every " +
					"disk is on a file system it knows to be shared (NFS, GlusterFS, Ceph, ...) or uses a safe cache mode. " +
					"The provider still checks at plan that this host has every disk in one of its storage pools under the " +
					"same path. For storage libvirt cannot recognise as shared (two libvirtd on one machine, a cluster file " +
					"system libvirt does not know). Default: false.",
			},
		}},
	}
}

// hostEntry is a configured host.
type hostEntry struct {
	uri           string
	known         bool // false while the uri is unknown (plan with a computed uri)
	migrateUnsafe bool
}

// Set is the provider data: the default connection (the provider's uri)
// and the named hosts, one client per distinct URI.
type Set struct {
	defaultURI   string
	defaultKnown bool
	hosts        map[string]hostEntry
	clients      map[string]*libvirtconn.Client
}

var _ treeresource.Clients = (*Set)(nil)

// Ref is the host a request is about: the resource's host attribute.
type Ref struct {
	Name    string
	Null    bool // no host attribute: the provider's uri
	Unknown bool // not known at plan
}

type hostCtxKey struct{}

// withHost returns ctx naming the host of the resource a request is about.
func withHost(ctx context.Context, h Ref) context.Context {
	return context.WithValue(ctx, hostCtxKey{}, h)
}

// hostFromContext returns the host ctx names; null when it names none.
func hostFromContext(ctx context.Context) Ref {
	if h, ok := ctx.Value(hostCtxKey{}).(Ref); ok {
		return h
	}
	return Ref{Null: true}
}

// NewSet builds the provider data from the provider's configuration;
// the uri is the configured one ("" for the default) and uriKnown false while
// it is unknown at plan.
func NewSet(ctx context.Context, uri string, uriKnown bool, hosts types.Map, diags *diag.Diagnostics) *Set {
	s := &Set{hosts: map[string]hostEntry{}, clients: map[string]*libvirtconn.Client{}, defaultKnown: uriKnown}
	if uriKnown {
		if uri == "" {
			uri = os.Getenv("LIBVIRT_DEFAULT_URI")
		}
		if uri == "" {
			uri = DefaultURI
		}
		s.defaultURI = uri
		s.addClient(uri, path.Root("uri"), diags)
	}
	if hosts.IsNull() || hosts.IsUnknown() {
		// An unknown map at plan: every named host is unknown (no client).
		return s
	}
	var entries map[string]hostModel
	diags.Append(hosts.ElementsAs(ctx, &entries, false)...)
	for name, e := range entries {
		p := path.Root("hosts").AtMapKey(name)
		if name == "" || strings.Contains(name, "/") {
			diags.AddAttributeError(p, "Invalid host name", fmt.Sprintf("host name %q: a host name is not empty and has no \"/\" (import IDs use NAME/ID)", name))
			continue
		}
		he := hostEntry{migrateUnsafe: e.MigrateUnsafe.ValueBool()}
		if !e.URI.IsUnknown() && !e.URI.IsNull() {
			he.uri, he.known = e.URI.ValueString(), true
			s.addClient(he.uri, p.AtName("uri"), diags)
		}
		s.hosts[name] = he
	}
	return s
}

func (s *Set) addClient(uri string, p path.Path, diags *diag.Diagnostics) {
	if _, ok := s.clients[uri]; ok {
		return
	}
	client, err := libvirtconn.New(uri)
	if err != nil {
		diags.AddAttributeError(p, "Invalid libvirt URI", err.Error())
		return
	}
	for _, w := range client.Warnings() {
		diags.AddAttributeWarning(p, w.Summary, w.Detail)
	}
	s.clients[uri] = client
}

// names lists the configured host names, sorted.
func (s *Set) names() []string {
	out := make([]string, 0, len(s.hosts))
	for n := range s.hosts {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// resolve returns the URI of host h; known is false while it cannot be known
// (an unknown host name or uri at plan).
func (s *Set) resolve(h Ref) (uri string, known bool, err error) {
	switch {
	case h.Unknown:
		return "", false, nil
	case h.Null:
		return s.defaultURI, s.defaultKnown, nil
	}
	e, ok := s.hosts[h.Name]
	if !ok {
		if len(s.hosts) == 0 {
			return "", false, fmt.Errorf("host %q: the provider has no hosts; name it in the provider block: hosts = { %s = { uri = \"...\" } }", h.Name, h.Name)
		}
		return "", false, fmt.Errorf("host %q is not one of the provider's hosts (%s)", h.Name, strings.Join(s.names(), ", "))
	}
	return e.uri, e.known, nil
}

// Client returns the connection of host h (nil while its URI is unknown).
func (s *Set) Client(h Ref) (*libvirtconn.Client, error) {
	uri, known, err := s.resolve(h)
	if err != nil || !known {
		return nil, err
	}
	return s.clients[uri], nil
}

// ClientFor is the connection of the host ctx names (treeresource.Clients);
// a host the provider does not know is an error on the host attribute.
func (s *Set) ClientFor(ctx context.Context) (*libvirtconn.Client, diag.Diagnostics) {
	c, err := s.Client(hostFromContext(ctx))
	if err != nil {
		return nil, diag.Diagnostics{diag.NewAttributeErrorDiagnostic(path.Root(Attr), "Unknown host", err.Error())}
	}
	return c, nil
}

// MigrateUnsafe tells whether live migrations to host h skip libvirt's
// shared-storage check: the host's entry says so (for the provider's uri, an
// entry with the same uri).
func (s *Set) MigrateUnsafe(h Ref) bool {
	if !h.Null {
		return s.hosts[h.Name].migrateUnsafe
	}
	for _, e := range s.hosts {
		if e.known && e.uri == s.defaultURI && e.migrateUnsafe {
			return true
		}
	}
	return false
}

// Label names host h in messages.
func (h Ref) Label() string {
	switch {
	case h.Unknown:
		return "(unknown host)"
	case h.Null:
		return "the provider's uri"
	}
	return fmt.Sprintf("host %q", h.Name)
}

// SameHost tells whether a and b are the same connection: equal names, or
// names whose URIs are known and equal.
func (s *Set) SameHost(a, b Ref) bool {
	if a == b {
		return true
	}
	ua, ka, ea := s.resolve(a)
	ub, kb, eb := s.resolve(b)
	return ea == nil && eb == nil && ka && kb && ua == ub
}
