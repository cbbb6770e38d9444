// Command terraform-provider-libvirt serves the virtxml/libvirt provider over
// plugin protocol 6.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/virtxml/terraform-provider-libvirt/internal/provider"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run with support for debuggers such as delve; prints TF_REATTACH_PROVIDERS")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.opentofu.org/virtxml/libvirt",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
