package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// TestDefaultsStated: every attribute with a default says so in its
// description, so the documentation tells what an unset attribute means.
func TestDefaultsStated(t *testing.T) {
	ctx := context.Background()
	for _, f := range (&libvirtProvider{}).Resources(ctx) {
		r := f()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "libvirt"}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		for name, a := range sr.Schema.Attributes {
			hasDefault := false
			switch a := a.(type) {
			case schema.BoolAttribute:
				hasDefault = a.Default != nil
				for _, m := range a.PlanModifiers { // KeepOrDefaultBool: a default on create
					if strings.Contains(m.Description(ctx), "when the resource is created") {
						hasDefault = true
					}
				}
			case schema.StringAttribute:
				hasDefault = a.Default != nil
			case schema.Int64Attribute:
				hasDefault = a.Default != nil
			}
			if hasDefault && !strings.Contains(strings.ToLower(a.GetDescription()), "default") {
				t.Errorf("%s.%s has a default its description does not state: %q", md.TypeName, name, a.GetDescription())
			}
		}
	}
}
