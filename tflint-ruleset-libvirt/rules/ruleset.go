package rules

import (
	"fmt"
	"strings"

	"github.com/terraform-linters/tflint-plugin-sdk/tflint"
)

// guideURL is the guide that explains each rule (the anchors are the rule names).
const guideURL = "https://github.com/virtxml/terraform-provider-libvirt/blob/main/docs/guides/linting-configurations.md"

// All returns the ruleset's rules.
func All() []tflint.Rule {
	return []tflint.Rule{
		&UnknownAttributeRule{},
		&ValueShapeRule{},
		&MemoryUnitRule{},
		&SizeUnitRule{},
	}
}

// validNames lists an object's attributes for a key close to none of them.
func validNames(o *object) string {
	names := o.node.Names()
	if len(names) > 12 {
		return fmt.Sprintf("%s has %d attributes (see the resource's documentation), e.g. %s.",
			pathOrType(o), len(names), strings.Join(names[:12], ", "))
	}
	return fmt.Sprintf("Valid here: %s.", strings.Join(names, ", "))
}

func pathOrType(o *object) string {
	if o.path == "" {
		return o.typeName
	}
	return "`" + o.path + "`"
}
