package xmlschema

import "testing"

func TestSnakeName(t *testing.T) {
	cases := map[string]string{
		"VirtIO":   "virt_io",
		"AutoPort": "auto_port",
		"IPs":      "ips",
		// dmacvicar/libvirt 0.9's names: an acronym plural splits before
		// its last capital, unless the acronym is one of pluralAcronyms
		"IOThreadIDs":   "io_thread_i_ds",
		"SRVs":          "sr_vs",
		"TXTs":          "tx_ts",
		"GIDs":          "gi_ds",
		"UIDs":          "ui_ds",
		"CPUs":          "cpus",
		"MaxCPUs":       "max_cpus",
		"RNGs":          "rngs",
		"TPMs":          "tpms",
		"IOMMUs":        "iommus",
		"IOMMUFD":       "iommufd",
		"PFs":           "pfs",
		"IPv6":          "ipv6",
		"UNIX":          "unix",
		"CPUSet":        "cpu_set",
		"MAC":           "mac",
		"Type":          "type",
		"OnPoweroff":    "on_poweroff",
		"VCPUs":         "vcpus",
		"VCPU":          "vcpu",
		"Hostnames":     "hostnames",
		"IOThreads":     "io_threads",
		"PortGroup":     "port_group",
		"MaximumMemory": "maximum_memory",
		"HostDev":       "host_dev",
		"Port0":         "port0",
		// libvirt's words: a single capital at the start joins the next word
		"VHostUser":            "vhost_user",
		"DBus":                 "dbus",
		"VSock":                "vsock",
		"PStore":               "pstore",
		"MCast":                "mcast",
		"VLan":                 "vlan",
		"STimer":               "stimer",
		"BHyveCommandline":     "bhyve_commandline",
		"SubsysMDev":           "subsys_m_dev", // not at the start: split
		"OpenVSwitch":          "open_v_switch",
		"E820Host":             "e820host", // digits do not split
		"Accel3D":              "accel3d",
		"VEPA8021QBG":          "vepa8021qbg",
		"VNTag8011QBH":         "vn_tag8011qbh",
		"QEMUVDAgent":          "qemu_vd_agent", // known words
		"VMWareDataCenterPath": "vmware_data_center_path",
		"FSetID":               "fset_id",
	}
	for in, want := range cases {
		if got := snakeName(in); got != want {
			t.Errorf("snakeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestV1SnakeName: schema version 1 kept every acronym plural whole; the
// upgrader reads version 1 states under these names.
func TestV1SnakeName(t *testing.T) {
	cases := map[string]string{
		"IOThreadIDs": "io_thread_ids",
		"SRVs":        "srvs",
		"TXTs":        "txts",
		"GIDs":        "gids",
		"UIDs":        "uids",
		"VCPUs":       "vcpus",
		"VHostUser":   "vhost_user",
		"QEMUVDAgent": "qemu_vd_agent",
	}
	for in, want := range cases {
		if got := v1SnakeName(in); got != want {
			t.Errorf("v1SnakeName(%q) = %q, want %q", in, got, want)
		}
	}
}
