package provider

import (
	"sort"
	"strings"
	"testing"
)

// TestProtocolServerBuilds: the shipped server accepts every resource (no
// own attribute has behaviour its protocol layer cannot run) and plans the
// XML-tree resources itself.
func TestProtocolServerBuilds(t *testing.T) {
	s, err := newProtocolServer(&libvirtProvider{version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	got := s.TreeTypes()
	sort.Strings(got)
	if want := "libvirt_domain libvirt_domain_snapshot libvirt_network libvirt_nwfilter libvirt_pool libvirt_secret libvirt_volume"; strings.Join(got, " ") != want {
		t.Errorf("tree resources %q, want %q", got, want)
	}
}
