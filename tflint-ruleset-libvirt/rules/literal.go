package rules

import (
	"math/big"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// literalKind is the kind of value an expression is written as: object,
// tuple, string, number, bool or null; "" when only evaluation could tell
// (references, function calls, for expressions).
func literalKind(expr hclsyntax.Expression) string {
	switch e := expr.(type) {
	case *hclsyntax.ObjectConsExpr:
		return "object"
	case *hclsyntax.TupleConsExpr:
		return "tuple"
	case *hclsyntax.TemplateExpr:
		return "string"
	case *hclsyntax.LiteralValueExpr:
		switch {
		case e.Val.IsNull():
			return "null"
		case e.Val.Type() == cty.String:
			return "string"
		case e.Val.Type() == cty.Number:
			return "number"
		case e.Val.Type() == cty.Bool:
			return "bool"
		}
	case *hclsyntax.UnaryOpExpr:
		if literalKind(e.Val) == "number" {
			return "number"
		}
	case *hclsyntax.ParenthesesExpr:
		return literalKind(e.Expression)
	}
	return ""
}

// literalString returns the text of a string written without
// interpolation.
func literalString(expr hclsyntax.Expression) (string, bool) {
	switch e := expr.(type) {
	case *hclsyntax.TemplateExpr:
		if !e.IsStringLiteral() {
			return "", false
		}
		v, diags := e.Value(nil)
		if diags.HasErrors() || v.Type() != cty.String || v.IsNull() || !v.IsKnown() {
			return "", false
		}
		return v.AsString(), true
	case *hclsyntax.LiteralValueExpr:
		if e.Val.Type() == cty.String && !e.Val.IsNull() {
			return e.Val.AsString(), true
		}
	}
	return "", false
}

// literalNumber returns the value of a number written as a constant.
func literalNumber(expr hclsyntax.Expression) (*big.Float, bool) {
	if literalKind(expr) != "number" {
		return nil, false
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() || v.Type() != cty.Number || v.IsNull() || !v.IsKnown() {
		return nil, false
	}
	return v.AsBigFloat(), true
}

// leafAccepts reports whether OpenTofu converts a literal of kind got to
// the leaf type kind (a string "yes" does not become a bool; "true" does).
func leafAccepts(kind, got string, expr hclsyntax.Expression) bool {
	if got == "" || got == "null" || kind == "any" {
		return true
	}
	switch {
	case kind == "bool":
		switch got {
		case "bool":
			return true
		case "string":
			s, literal := literalString(expr)
			return !literal || s == "true" || s == "false"
		}
		return false
	case kind == "string":
		return got == "string" || got == "number" || got == "bool"
	case kind == "number":
		switch got {
		case "number":
			return true
		case "string":
			s, literal := literalString(expr)
			if !literal {
				return true
			}
			_, ok := new(big.Float).SetString(strings.TrimSpace(s))
			return ok
		}
		return false
	case strings.HasPrefix(kind, "list(") || strings.HasPrefix(kind, "set("):
		return got == "tuple"
	case strings.HasPrefix(kind, "map(") || kind == "object":
		return got == "object"
	}
	return true
}
