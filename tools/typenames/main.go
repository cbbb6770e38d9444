// Command typenames prints the resource or data source type names the
// provider's source registers (libvirtProvider.Resources and DataSources,
// and the lookup data sources of the tree protocol layer), as its protocol
// server announces them in GetMetadata; scripts/test-install.sh compares
// them with what an installed build serves.
package main

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/virtxml/terraform-provider-libvirt/internal/provider"
)

func main() {
	if len(os.Args) != 2 || (os.Args[1] != "resources" && os.Args[1] != "data-sources") {
		fmt.Fprintln(os.Stderr, "usage: typenames resources|data-sources")
		os.Exit(2)
	}
	md, err := provider.ProtocolServer("typenames")().GetMetadata(context.Background(), &tfprotov6.GetMetadataRequest{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "typenames:", err)
		os.Exit(1)
	}
	var names []string
	if os.Args[1] == "resources" {
		for _, r := range md.Resources {
			names = append(names, r.TypeName)
		}
	} else {
		for _, d := range md.DataSources {
			names = append(names, d.TypeName)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Println(n)
	}
}
