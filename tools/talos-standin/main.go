// Command talos-standin serves the published schema of the siderolabs/talos
// provider v0.11.0 over plugin protocol 6 and nothing else. It exists only so
// that `tofu validate` and `tofu test` with mock_provider can check the
// talos-cluster module offline, where the real provider cannot be installed:
// every operation that would need real data (plan, apply, read, import)
// returns an error diagnostic saying so.
package main

import (
	_ "embed"
	"log"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// providerAddress is the address the schema JSON is keyed by; the same binary
// is installed under registry.terraform.io too, since the schema does not
// depend on the host name.
const providerAddress = "registry.opentofu.org/siderolabs/talos"

//go:embed schema.json
var schemaJSON []byte

func main() {
	schemas, err := convertSchemaJSON(schemaJSON, providerAddress)
	if err != nil {
		log.Fatalf("talos-standin: %v", err)
	}
	if err := tf6server.Serve(providerAddress, func() tfprotov6.ProviderServer { return newServer(schemas) }); err != nil {
		log.Fatalf("talos-standin: %v", err)
	}
}
