package listing

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwpath "github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/virtxml/terraform-provider-libvirt/internal/hostroute"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

// Every kind takes its resource from the catalog, and a list resource and
// a plural data source are served for each.
func TestCatalogKinds(t *testing.T) {
	var none func() resource.Resource
	resources := map[string]func() resource.Resource{}
	for _, k := range []string{"domain", "domain_snapshot", "network", "nwfilter", "pool", "secret", "volume"} {
		resources[k] = none
	}
	c := Catalog{TypeName: "libvirt", Resources: resources}
	var names []string
	for _, k := range c.kinds() {
		if _, ok := resources[k.name]; !ok {
			t.Errorf("kind %q has no resource in the catalog", k.name)
		}
		names = append(names, k.name)
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "domain domain_snapshot network nwfilter pool secret volume" {
		t.Errorf("kinds %q", got)
	}
	if n, m := len(c.ListResources()), len(c.DataSources()); n != len(names) || m != len(names) {
		t.Errorf("%d list resources and %d data sources for %d kinds", n, m, len(names))
	}
}

// The filters of a kind are host, name and its own.
func TestKindFilters(t *testing.T) {
	for _, k := range (Catalog{}).kinds() {
		f := k.filters()
		if _, ok := f[hostroute.Attr]; !ok {
			t.Errorf("%s: no host filter", k.name)
		}
		if _, ok := f["name"]; !ok {
			t.Errorf("%s: no name filter", k.name)
		}
		if len(f) != 2+len(k.extra) {
			t.Errorf("%s: filters %v", k.name, f)
		}
	}
}

// selected keeps what the name pattern matches.
func TestSelectedMatchesName(t *testing.T) {
	k := listKind{name: "network", list: func(context.Context, *libvirtconn.Client, listFilter) ([]libvirtops.Listed, error) {
		return []libvirtops.Listed{{Name: "web-1"}, {Name: "db-1"}, {Name: "web-2"}}, nil
	}}
	got, err := k.selected(context.Background(), nil, listFilter{name: "web-*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "web-1" || got[1].Name != "web-2" {
		t.Errorf("selected %v, want web-1 and web-2", got)
	}
}

// A name that is not a shell pattern is refused on the name attribute,
// saying what is allowed.
func TestReadFilterRefusesBadPattern(t *testing.T) {
	k := (Catalog{}).kinds()[0]
	get := func(_ context.Context, p fwpath.Path, target any) diag.Diagnostics {
		if p.Equal(fwpath.Root("name")) {
			s := "web-["
			*(target.(**string)) = &s
		}
		return nil
	}
	var f listFilter
	diags := readFilter(context.Background(), k, get, &f)
	if !diags.HasError() {
		t.Fatal("a bad pattern was accepted")
	}
	d := diags.Errors()[0]
	if !strings.Contains(d.Detail(), "not a shell pattern") || !strings.Contains(d.Detail(), "allowed:") {
		t.Errorf("detail %q", d.Detail())
	}
	if wa, ok := d.(diag.DiagnosticWithPath); !ok || !wa.Path().Equal(fwpath.Root("name")) {
		t.Errorf("the error is not on name: %v", d)
	}
}

// The provider data is the host set; anything else is a provider bug said
// as such.
func TestHostsOf(t *testing.T) {
	var diags diag.Diagnostics
	if hostsOf(nil, &diags) != nil || diags.HasError() {
		t.Errorf("nil provider data: %v", diags)
	}
	set := &hostroute.Set{}
	if hostsOf(set, &diags) != set || diags.HasError() {
		t.Errorf("host set: %v", diags)
	}
	if hostsOf("x", &diags) != nil || !diags.HasError() || !strings.Contains(diags.Errors()[0].Detail(), "provider bug") {
		t.Errorf("wrong provider data: %v", diags)
	}
}
