package rules

import (
	"fmt"

	"github.com/terraform-linters/tflint-plugin-sdk/tflint"
)

// UnknownAttributeRule reports every key written inside a libvirt resource
// or data source that its schema lacks: OpenTofu and Terraform convert a
// nested object to the schema's type and drop such keys without a word, so
// the provider never sees them.
type UnknownAttributeRule struct {
	tflint.DefaultRule
}

func (r *UnknownAttributeRule) Name() string              { return "libvirt_unknown_attribute" }
func (r *UnknownAttributeRule) Enabled() bool             { return true }
func (r *UnknownAttributeRule) Severity() tflint.Severity { return tflint.ERROR }
func (r *UnknownAttributeRule) Link() string              { return guideURL + "#libvirt_unknown_attribute" }

func (r *UnknownAttributeRule) Check(runner tflint.Runner) error {
	return walk(runner, visitor{object: func(o *object) error {
		for _, f := range o.fields {
			path := o.fieldPath(f.name)
			if child := o.node.Children[f.name]; child != nil {
				if f.block != nil {
					if err := runner.EmitIssue(r, fmt.Sprintf("`%s` is an attribute of %s, not a block: write `%s = %s`.",
						path, o.typeName, f.name, objectSkeleton(child)), f.keyRange); err != nil {
						return err
					}
				}
				continue
			}
			msg := fmt.Sprintf("`%s` is not an attribute of %s: OpenTofu and Terraform drop it without a word.", path, o.typeName)
			if former, ok := formerShapeAt(o.typeName, path); ok && !former.shape {
				msg += fmt.Sprintf(" This is the form of %s; write %s instead.", former.era, former.instead)
			} else if near := closestName(o.node, f.name); near != "" {
				msg += fmt.Sprintf(" Did you mean `%s`?", near)
			} else {
				msg += " " + validNames(o)
			}
			if err := runner.EmitIssue(r, msg, f.keyRange); err != nil {
				return err
			}
		}
		return nil
	}})
}
