// Command terraform-provider-libvirt serves the virtxml/libvirt provider over
// plugin protocol 6.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/virtxml/terraform-provider-libvirt/internal/provider"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run with support for debuggers such as delve; prints TF_REATTACH_PROVIDERS")
	flag.Parse()

	if path := os.Getenv("TFPLV_CPUPROFILE"); path != "" {
		// profiling for benchmarks: one file per provider process
		if f, err := os.Create(fmt.Sprintf("%s.%d", path, os.Getpid())); err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	// provider.ProtocolServer is the framework's server (what
	// providerserver.Serve would serve) with the plan fast path in front.
	err := tf6server.Serve("registry.opentofu.org/virtxml/libvirt", provider.ProtocolServer(version), opts...)
	if err != nil {
		pprof.StopCPUProfile()
		log.Fatal(err)
	}
}
