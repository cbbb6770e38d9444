// Command typenames prints the resource and data source type names that the
// provider's source registers (libvirtProvider.Resources and DataSources),
// one per line: `typenames resources` or `typenames data-sources`.
// scripts/test-install.sh compares them with what the released binary serves.
package main

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/virtxml/terraform-provider-libvirt/internal/provider"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: typenames resources|data-sources")
		os.Exit(2)
	}
	ctx := context.Background()
	p := provider.New("typenames")()
	var names []string
	switch os.Args[1] {
	case "resources":
		for _, f := range p.Resources(ctx) {
			var md resource.MetadataResponse
			f().Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "libvirt"}, &md)
			names = append(names, md.TypeName)
		}
	case "data-sources":
		for _, f := range p.DataSources(ctx) {
			var md datasource.MetadataResponse
			f().Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "libvirt"}, &md)
			names = append(names, md.TypeName)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: typenames resources|data-sources")
		os.Exit(2)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Println(n)
	}
}
