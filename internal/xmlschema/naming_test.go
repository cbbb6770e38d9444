package xmlschema

import "testing"

func TestSnakeName(t *testing.T) {
	cases := map[string]string{
		"VirtIO":        "virt_io",
		"AutoPort":      "auto_port",
		"IPs":           "ips",
		"IOThreadIDs":   "io_thread_ids",
		"SRVs":          "srvs",
		"TXTs":          "txts",
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
