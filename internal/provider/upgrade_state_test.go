package provider

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// upgradeState runs UpgradeResourceState of the shipped server on a version
// 0 state and returns the upgraded object.
func upgradeState(t *testing.T, typeName string, attrs map[string]any) map[string]any {
	t.Helper()
	return upgradeStateFrom(t, typeName, 0, attrs)
}

// upgradeStateFrom is upgradeState for a state of the given schema version.
func upgradeStateFrom(t *testing.T, typeName string, version int64, attrs map[string]any) map[string]any {
	t.Helper()
	js, err := json.Marshal(attrs)
	if err != nil {
		t.Fatal(err)
	}
	srv := ProtocolServer("test")()
	ctx := context.Background()
	sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: typeName, Version: version, RawState: &tfprotov6.RawState{JSON: js}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Fatalf("%s: %s: %s", typeName, d.Summary, d.Detail)
	}
	v, err := resp.UpgradedState.Unmarshal(sch.ResourceSchemas[typeName].ValueType())
	if err != nil {
		t.Fatal(err)
	}
	m, _ := plain(v).(map[string]any)
	return m
}

// plain turns a value into maps, slices, strings, float64s and bools.
func plain(v tftypes.Value) any {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case v.Type().Is(tftypes.Number):
		var f big.Float
		_ = v.As(&f)
		x, _ := f.Float64()
		return x
	case v.Type().Is(tftypes.List{}):
		var l []tftypes.Value
		_ = v.As(&l)
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = plain(e)
		}
		return out
	}
	var m map[string]tftypes.Value
	_ = v.As(&m)
	out := make(map[string]any, len(m))
	for k, e := range m {
		out[k] = plain(e)
	}
	return out
}

// at walks a decoded JSON value by attribute names and list indices.
func at(v any, path ...any) any {
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[p]
		case int:
			l, ok := v.([]any)
			if !ok || p >= len(l) {
				return nil
			}
			v = l[p]
		}
	}
	return v
}

// TestUpgradeStateFromVersion0: a state written by provider 0.1.x (names
// split at every capital, <acpi/> as an empty object, autoport as "yes",
// an embedded struct one object deeper) reads as this version's attributes.
func TestUpgradeStateFromVersion0(t *testing.T) {
	old := map[string]any{
		"id": "742b4a76-5db9-4919-bdc2-4a0d431f07c2", "uuid": "742b4a76-5db9-4919-bdc2-4a0d431f07c2",
		"name": "vm", "type": "qemu", "memory": 512, "memory_unit": "MiB", "vcpu_cpu_set": "0-1",
		"running": true, "shutdown_timeout": "90s",
		"features": map[string]any{"acpi": map[string]any{}, "pae": nil},
		"devices": map[string]any{
			"disks":    []any{map[string]any{"device": "cdrom", "read_only": map[string]any{}, "target": map[string]any{"dev": "sda"}}},
			"graphics": []any{map[string]any{"vnc": map[string]any{"auto_port": "yes", "listen": "127.0.0.1"}}},
			"interfaces": []any{map[string]any{"type": "vhostuser", "source": map[string]any{
				"v_host_user": map[string]any{"chardev": map[string]any{"unix": map[string]any{"path": "/run/vu.sock", "mode": "client"}}}}}},
			"audios": []any{map[string]any{"id": 1, "alsa": map[string]any{
				"input": map[string]any{"dev": "hw:0", "domain_audio_channel": map[string]any{"voices": 2}}}}},
			"v_sock": map[string]any{"model": "virtio"},
		},
		"gone_in_version_1": "dropped",
	}
	got := upgradeState(t, "libvirt_domain", old)
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"features", "acpi"}, true},
		{[]any{"devices", "disks", 0, "read_only"}, true},
		{[]any{"devices", "graphics", 0, "vnc", "auto_port"}, true},
		{[]any{"devices", "interfaces", 0, "source", "vhost_user", "chardev", "unix", "path"}, "/run/vu.sock"},
		{[]any{"devices", "audios", 0, "alsa", "input", "voices"}, float64(2)},
		{[]any{"devices", "audios", 0, "alsa", "input", "dev"}, "hw:0"},
		{[]any{"devices", "vsock", "model"}, "virtio"},
		{[]any{"vcpu_cpuset"}, "0-1"},
		{[]any{"memory"}, float64(512)},
		{[]any{"running"}, true},
		{[]any{"shutdown_timeout"}, "90s"},
		{[]any{"id"}, "742b4a76-5db9-4919-bdc2-4a0d431f07c2"},
	}
	for _, c := range checks {
		if v := at(got, c.path...); v != c.want {
			t.Errorf("%v = %#v, want %#v", c.path, v, c.want)
		}
	}
	if _, ok := got["gone_in_version_1"]; ok {
		t.Errorf("an attribute this version does not have was kept")
	}
}

// dmacvicarStates reads the state dmacvicar/libvirt 0.9.7 wrote
// (shared/reference): each tree resource's attributes by address, all at
// schema version 0.
func dmacvicarStates(t *testing.T) map[string]map[string]any {
	t.Helper()
	raw, err := os.ReadFile(dmacvicarReference + "/terraform.tfstate")
	if err != nil {
		t.Fatalf("the reference state (shared/reference beside the checkout): %v", err)
	}
	var st struct {
		Resources []struct {
			Type, Name string
			Instances  []struct {
				SchemaVersion int            `json:"schema_version"`
				Attributes    map[string]any `json:"attributes"`
			}
		}
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, r := range st.Resources {
		if r.Type == "libvirt_cloudinit_disk" {
			continue // not a tree resource; its state is read as it is
		}
		for _, in := range r.Instances {
			if in.SchemaVersion != 0 {
				t.Fatalf("%s.%s: schema version %d", r.Type, r.Name, in.SchemaVersion)
			}
			out[r.Type+"."+r.Name] = in.Attributes
		}
	}
	return out
}

// TestUpgradeStateFromDmacvicar: every resource of the state dmacvicar/libvirt
// 0.9.7 wrote (shared/reference) upgrades without error, with its values.
func TestUpgradeStateFromDmacvicar(t *testing.T) {
	upgraded := map[string]map[string]any{}
	for addr, attrs := range dmacvicarStates(t) {
		upgraded[addr] = upgradeState(t, strings.SplitN(addr, ".", 2)[0], attrs)
	}
	checks := []struct {
		addr string
		path []any
		want any
	}{
		{"libvirt_domain.vm", []any{"id"}, "5fd82859-f5e6-46dc-89c3-05539029f473"}, // 0.9.7 kept no id
		{"libvirt_domain.vm", []any{"features", "acpi"}, true},
		{"libvirt_domain.vm", []any{"devices", "disks", 1, "read_only"}, true},
		{"libvirt_domain.vm", []any{"devices", "disks", 1, "device"}, "cdrom"},
		{"libvirt_domain.vm", []any{"devices", "graphics", 0, "vnc", "auto_port"}, true},
		{"libvirt_domain.vm", []any{"memory"}, float64(1024)},
		{"libvirt_domain.vm", []any{"memory_unit"}, "MiB"},
		{"libvirt_domain.vm", []any{"running"}, false},
		{"libvirt_network.net", []any{"ips", 0, "dhcp", "hosts", 0, "mac"}, "52:54:00:fd:40:10"},
		{"libvirt_network.net", []any{"autostart"}, true},
		{"libvirt_pool.pool", []any{"target", "path"}, "/var/lib/libvirt/dmfx-pool"},
		{"libvirt_volume.root", []any{"backing_store", "format", "type"}, "qcow2"},
		{"libvirt_volume.base", []any{"create", "content", "url"}, "/var/lib/libvirt/dmfx-src/base.qcow2"},
		{"libvirt_volume.seed", []any{"id"}, "/var/lib/libvirt/dmfx-pool/dmfx-seed.iso"},
	}
	for _, c := range checks {
		if v := at(upgraded[c.addr], c.path...); v != c.want {
			t.Errorf("%s %v = %#v, want %#v", c.addr, c.path, v, c.want)
		}
	}
}

// TestUpgradeStateFromDmacvicarRunningDomain: 0.9.7's domain `id` is
// libvirt's runtime domain number (`virsh domid`), a number in its state
// while the domain runs (the reference state, of a stopped domain, has
// none); the UUID is in `uuid`. Here the id is the UUID: the number must not
// become the id ("3" is not a UUID, and every read would fail).
func TestUpgradeStateFromDmacvicarRunningDomain(t *testing.T) {
	attrs := dmacvicarStates(t)["libvirt_domain.vm"]
	attrs["id"] = 3 // as 0.9.7 writes it for a running domain
	attrs["running"] = true
	got := upgradeState(t, "libvirt_domain", attrs)
	if got["id"] != "5fd82859-f5e6-46dc-89c3-05539029f473" {
		t.Errorf("id = %#v, want the UUID 5fd82859-f5e6-46dc-89c3-05539029f473", got["id"])
	}
	if got["uuid"] != "5fd82859-f5e6-46dc-89c3-05539029f473" || got["running"] != true {
		t.Errorf("uuid = %#v, running = %#v: the rest of the state must be kept", got["uuid"], got["running"])
	}
}

// TestUpgradeStateRNGBackend: an RNG backend of model random, written by
// this provider's versions 0 (0.1.x) and 1 as an object holding `device`,
// and by dmacvicar/libvirt 0.9.7 (version 0) as the device path, is the
// device path (`backend = { random = "/dev/urandom" }`).
func TestUpgradeStateRNGBackend(t *testing.T) {
	for _, c := range []struct {
		name    string
		version int64
		random  any
	}{
		{"provider 0.1.x", 0, map[string]any{"device": "/dev/urandom"}},
		{"schema version 1", 1, map[string]any{"device": "/dev/urandom"}},
		{"dmacvicar 0.9.7", 0, "/dev/urandom"},
	} {
		t.Run(c.name, func(t *testing.T) {
			old := map[string]any{
				"id": "742b4a76-5db9-4919-bdc2-4a0d431f07c2", "uuid": "742b4a76-5db9-4919-bdc2-4a0d431f07c2",
				"name": "vm", "type": "qemu",
				"devices": map[string]any{"rngs": []any{map[string]any{"model": "virtio", "backend": map[string]any{"random": c.random}}}},
			}
			got := upgradeStateFrom(t, "libvirt_domain", c.version, old)
			if v := at(got, "devices", "rngs", 0, "backend", "random"); v != "/dev/urandom" {
				t.Errorf("devices.rngs[0].backend.random = %#v, want \"/dev/urandom\"", v)
			}
			if v := at(got, "devices", "rngs", 0, "model"); v != "virtio" {
				t.Errorf("devices.rngs[0].model = %#v, want \"virtio\"", v)
			}
		})
	}
}

// TestUpgradeStateRenamedAndReshaped: every attribute whose name or shape
// changed in schema version 2 (to dmacvicar/libvirt 0.9.7's) is read from
// the states that have the old form, provider 0.1.x (version 0) and
// version 1, and kept from 0.9.7's state (version 0, already in the new
// form): acronym plurals (io_thread_ids -> io_thread_i_ds, id_map gids/uids
// -> gi_ds/ui_ds, network dns srvs/txts -> sr_vs/tx_ts) and a disk's
// metadata cache size (max_size + max_size_unit -> max_size = { value, unit }).
func TestUpgradeStateRenamedAndReshaped(t *testing.T) {
	const uuid = "742b4a76-5db9-4919-bdc2-4a0d431f07c2"
	domain := func(ioThreads, idMap string, gids, uids string, driver map[string]any) map[string]any {
		return map[string]any{
			"id": uuid, "uuid": uuid, "name": "vm", "type": "qemu",
			ioThreads: map[string]any{"io_threads": []any{map[string]any{"id": 1}, map[string]any{"id": 2}}},
			idMap: map[string]any{
				gids: []any{map[string]any{"start": 0, "target": 1000, "count": 10}},
				uids: []any{map[string]any{"start": 0, "target": 2000, "count": 20}},
			},
			"devices": map[string]any{"disks": []any{map[string]any{"target": map[string]any{"dev": "vda"}, "driver": driver}}},
		}
	}
	flatCache := map[string]any{"metadata_cache": map[string]any{"max_size": 64, "max_size_unit": "MiB"}}
	objectCache := map[string]any{"metadata_cache": map[string]any{"max_size": map[string]any{"value": 64, "unit": "MiB"}}}
	domainStates := []struct {
		name    string
		version int64
		attrs   map[string]any
	}{
		{"provider 0.1.x", 0, domain("io_thread_ids", "id_map", "gids", "uids", flatCache)},
		{"schema version 1", 1, domain("io_thread_ids", "id_map", "gids", "uids", flatCache)},
		{"dmacvicar 0.9.7", 0, domain("io_thread_i_ds", "id_map", "gi_ds", "ui_ds", objectCache)},
	}
	for _, c := range domainStates {
		t.Run("domain from "+c.name, func(t *testing.T) {
			got := upgradeStateFrom(t, "libvirt_domain", c.version, c.attrs)
			for _, w := range []struct {
				path []any
				want any
			}{
				{[]any{"io_thread_i_ds", "io_threads", 1, "id"}, float64(2)},
				{[]any{"id_map", "gi_ds", 0, "target"}, float64(1000)},
				{[]any{"id_map", "ui_ds", 0, "count"}, float64(20)},
				{[]any{"devices", "disks", 0, "driver", "metadata_cache", "max_size", "value"}, float64(64)},
				{[]any{"devices", "disks", 0, "driver", "metadata_cache", "max_size", "unit"}, "MiB"},
				{[]any{"id"}, uuid},
			} {
				if v := at(got, w.path...); v != w.want {
					t.Errorf("%v = %#v, want %#v", w.path, v, w.want)
				}
			}
		})
	}

	network := func(srvs, txts string) map[string]any {
		return map[string]any{
			"id": uuid, "uuid": uuid, "name": "net",
			"dns": map[string]any{
				srvs: []any{map[string]any{"service": "ldap", "protocol": "tcp", "target": "ldap.lab", "port": 389}},
				txts: []any{map[string]any{"name": "lab", "value": "hello"}},
			},
		}
	}
	for _, c := range []struct {
		name    string
		version int64
		attrs   map[string]any
	}{
		{"provider 0.1.x", 0, network("srvs", "txts")},
		{"schema version 1", 1, network("srvs", "txts")},
		{"dmacvicar 0.9.7", 0, network("sr_vs", "tx_ts")},
	} {
		t.Run("network from "+c.name, func(t *testing.T) {
			got := upgradeStateFrom(t, "libvirt_network", c.version, c.attrs)
			if v := at(got, "dns", "sr_vs", 0, "port"); v != float64(389) {
				t.Errorf("dns.sr_vs[0].port = %#v, want 389", v)
			}
			if v := at(got, "dns", "tx_ts", 0, "value"); v != "hello" {
				t.Errorf("dns.tx_ts[0].value = %#v, want \"hello\"", v)
			}
		})
	}
}
