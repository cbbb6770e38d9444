package provider

import "github.com/hashicorp/terraform-plugin-framework/resource/schema"

// The schemas of the tree resources, for tests that call their methods directly.
func domainSchema() schema.Schema {
	return NewDomainResource().(*domainResource).SchemaDefinition()
}

func networkSchema() schema.Schema {
	return NewNetworkResource().(*networkResource).SchemaDefinition()
}
