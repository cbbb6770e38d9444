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
	}
	for in, want := range cases {
		if got := snakeName(in); got != want {
			t.Errorf("snakeName(%q) = %q, want %q", in, got, want)
		}
	}
}
