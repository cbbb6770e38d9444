package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// The contract test pins the attribute paths that examples, modules and users
// depend on. The engine derives them from libvirtxml; a libvirtxml upgrade or a
// rule change that renames or reshapes one of them breaks configurations, so
// it must fail here first.

type attrKind string

const (
	kindStr    attrKind = "string"
	kindNum    attrKind = "number"
	kindBool   attrKind = "bool"
	kindObj    attrKind = "object"
	kindListed attrKind = "list"
)

// schemaKind names the kind of a framework attribute; nested lists of objects
// and plain lists are both "list".
func schemaKind(a schema.Attribute) attrKind {
	switch a.(type) {
	case schema.StringAttribute:
		return kindStr
	case schema.Int64Attribute:
		return kindNum
	case schema.BoolAttribute:
		return kindBool
	case schema.SingleNestedAttribute:
		return kindObj
	case schema.ListNestedAttribute, schema.ListAttribute:
		return kindListed
	}
	return attrKind("other")
}

// lookupAttr walks a dotted path; "name[]" steps into a list's element object.
func lookupAttr(attrs map[string]schema.Attribute, dotted string) (schema.Attribute, string) {
	var cur schema.Attribute
	for i, part := range strings.Split(dotted, ".") {
		name := strings.TrimSuffix(part, "[]")
		if i > 0 {
			switch c := cur.(type) {
			case schema.SingleNestedAttribute:
				attrs = c.Attributes
			case schema.ListNestedAttribute:
				attrs = c.NestedObject.Attributes
			default:
				return nil, "parent of " + part + " is not an object or list of objects"
			}
		}
		a, ok := attrs[name]
		if !ok {
			return nil, "no attribute " + name
		}
		cur = a
		if strings.HasSuffix(part, "[]") {
			if _, ok := a.(schema.ListNestedAttribute); !ok {
				return nil, part + " is not a list of objects"
			}
		}
	}
	return cur, ""
}

func resourceSchema(t *testing.T, r resource.Resource) schema.Schema {
	t.Helper()
	var resp resource.SchemaResponse
	r.Schema(context.Background(), resource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("schema: %v", resp.Diagnostics)
	}
	return resp.Schema
}

func TestSchemaContract(t *testing.T) {
	contract := map[string]struct {
		r     resource.Resource
		paths map[string]attrKind
	}{
		"libvirt_domain": {NewDomainResource(), map[string]attrKind{
			"host":                                 kindStr,
			"type":                                 kindStr,
			"os":                                   kindObj,
			"os.type":                              kindStr,
			"os.type_arch":                         kindStr,
			"os.type_machine":                      kindStr,
			"memory":                               kindNum,
			"memory_unit":                          kindStr,
			"vcpu":                                 kindNum,
			"devices":                              kindObj,
			"devices.disks":                        kindListed,
			"devices.disks[].source":               kindObj,
			"devices.disks[].source.volume":        kindObj,
			"devices.disks[].source.volume.pool":   kindStr,
			"devices.disks[].source.volume.volume": kindStr,
			"devices.disks[].target.dev":           kindStr,
			"devices.disks[].target.bus":           kindStr,
			"devices.disks[].driver.type":          kindStr,
			"devices.disks[].device":               kindStr,
			"devices.interfaces":                   kindListed,
			"devices.interfaces[].type":            kindStr,
			"devices.interfaces[].model.type":      kindStr,
			"devices.interfaces[].source.network":  kindObj,
			"devices.interfaces[].source.network.network": kindStr,
			"devices.interfaces[].mac.address":            kindStr,
			"devices.serials[].target.port":               kindNum,
			"devices.consoles[].target.type":              kindStr,
			"devices.consoles[].target.port":              kindNum,
			"devices.channels[].source.unix":              kindObj,
			"devices.channels[].target.virt_io.name":      kindStr,
			"devices.graphics":                            kindListed,
			"devices.graphics[].vnc.listen":               kindStr,
			"devices.graphics[].vnc.auto_port":            kindBool, // yes/no, a bool as in dmacvicar 0.9.x
			"devices.graphics[].spice":                    kindObj,
			// provider-level attributes beside the tree
			"id":        kindStr,
			"running":   kindBool,
			"autostart": kindBool,
		}},
		"libvirt_volume": {NewVolumeResource(), map[string]attrKind{
			"host":                      kindStr,
			"capacity":                  kindNum,
			"capacity_unit":             kindStr,
			"target.format.type":        kindStr,
			"backing_store":             kindObj,
			"backing_store.path":        kindStr,
			"backing_store.format.type": kindStr,
		}},
		"libvirt_secret": {NewSecretResource(), map[string]attrKind{
			"host":         kindStr,
			"uuid":         kindStr,
			"description":  kindStr,
			"ephemeral":    kindStr, // yes/no, as libvirt writes it
			"private":      kindStr,
			"usage":        kindObj,
			"usage.type":   kindStr,
			"usage.volume": kindStr,
			"usage.name":   kindStr,
			"usage.target": kindStr,
			// provider-level attributes beside the tree
			"id":           kindStr,
			"value":        kindStr,
			"value_base64": kindStr,
		}},
		"libvirt_domain_snapshot": {NewDomainSnapshotResource(), map[string]attrKind{
			"host":                           kindStr,
			"name":                           kindStr,
			"description":                    kindStr,
			"memory.snapshot":                kindStr,
			"memory.file":                    kindStr,
			"disks.disks":                    kindListed,
			"disks.disks[].name":             kindStr,
			"disks.disks[].snapshot":         kindStr,
			"disks.disks[].driver.type":      kindStr,
			"disks.disks[].source.file.file": kindStr,
			"domain":                         kindStr,
			"disk_only":                      kindBool,
		}},
		"libvirt_network": {NewNetworkResource(), map[string]attrKind{
			"host":                            kindStr,
			"forward.mode":                    kindStr,
			"ips":                             kindListed,
			"ips[].address":                   kindStr,
			"ips[].prefix":                    kindNum,
			"ips[].dhcp.hosts":                kindListed,
			"ips[].dhcp.hosts[].mac":          kindStr,
			"ips[].dhcp.hosts[].ip":           kindStr,
			"ips[].dhcp.hosts[].name":         kindStr,
			"dns.enable":                      kindStr,
			"dns.host":                        kindListed,
			"dns.host[].ip":                   kindStr,
			"dns.host[].hostnames":            kindListed,
			"dns.host[].hostnames[].hostname": kindStr,
			"domain.name":                     kindStr,
		}},
		"libvirt_nwfilter": {NewNWFilterResource(), map[string]attrKind{
			"host":                                   kindStr,
			"name":                                   kindStr,
			"chain":                                  kindStr,
			"priority":                               kindNum,
			"entries":                                kindListed,
			"entries[].rule":                         kindObj,
			"entries[].rule.action":                  kindStr,
			"entries[].rule.direction":               kindStr,
			"entries[].rule.priority":                kindNum,
			"entries[].rule.ip.dst_ip_addr":          kindStr,
			"entries[].rule.tcp.dst_port_start":      kindStr,
			"entries[].rule.tcp_ipv6":                kindObj,
			"entries[].filter_ref.filter":            kindStr,
			"entries[].filter_ref.parameters[].name": kindStr,
			"id":                                     kindStr,
		}},
		"libvirt_ignition": {NewIgnitionResource(), map[string]attrKind{
			"id": kindStr, "name": kindStr, "content": kindStr, "directory": kindStr, "path": kindStr, "size": kindNum,
		}},
		"libvirt_combustion": {NewCombustionResource(), map[string]attrKind{
			"id": kindStr, "name": kindStr, "content": kindStr, "directory": kindStr, "path": kindStr, "size": kindNum,
		}},
	}
	checked := 0
	for typeName, c := range contract {
		s := resourceSchema(t, c.r)
		for p, want := range c.paths {
			a, problem := lookupAttr(s.Attributes, p)
			if problem != "" {
				t.Errorf("%s.%s: %s", typeName, p, problem)
				continue
			}
			if got := schemaKind(a); got != want {
				t.Errorf("%s.%s: kind %s, contract says %s", typeName, p, got, want)
				continue
			}
			checked++
		}
	}
	t.Logf("schema contract: %d paths checked", checked)
}
