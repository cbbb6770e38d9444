package main

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The structs below mirror the JSON that `tofu providers schema -json` prints,
// which is the shape of the embedded reference file.

type jsonSchemas struct {
	FormatVersion   string                        `json:"format_version"`
	ProviderSchemas map[string]jsonProviderSchema `json:"provider_schemas"`
}

type jsonProviderSchema struct {
	Provider          *jsonSchema            `json:"provider"`
	ResourceSchemas   map[string]*jsonSchema `json:"resource_schemas"`
	DataSourceSchemas map[string]*jsonSchema `json:"data_source_schemas"`
}

type jsonSchema struct {
	Version int64      `json:"version"`
	Block   *jsonBlock `json:"block"`
}

type jsonBlock struct {
	Attributes      map[string]*jsonAttribute `json:"attributes"`
	BlockTypes      map[string]*jsonBlockType `json:"block_types"`
	Description     string                    `json:"description"`
	DescriptionKind string                    `json:"description_kind"`
	Deprecated      bool                      `json:"deprecated"`
}

type jsonAttribute struct {
	Type            json.RawMessage `json:"type"`
	NestedType      *jsonNestedType `json:"nested_type"`
	Description     string          `json:"description"`
	DescriptionKind string          `json:"description_kind"`
	Deprecated      bool            `json:"deprecated"`
	Required        bool            `json:"required"`
	Optional        bool            `json:"optional"`
	Computed        bool            `json:"computed"`
	Sensitive       bool            `json:"sensitive"`
	WriteOnly       bool            `json:"write_only"`
}

type jsonNestedType struct {
	Attributes  map[string]*jsonAttribute `json:"attributes"`
	NestingMode string                    `json:"nesting_mode"`
}

type jsonBlockType struct {
	NestingMode string     `json:"nesting_mode"`
	Block       *jsonBlock `json:"block"`
	MinItems    int64      `json:"min_items"`
	MaxItems    int64      `json:"max_items"`
}

// providerSchemas is the converted form of one provider's JSON schema.
type providerSchemas struct {
	Provider    *tfprotov6.Schema
	Resources   map[string]*tfprotov6.Schema
	DataSources map[string]*tfprotov6.Schema
}

// convertSchemaJSON turns the JSON printed by `providers schema -json` for the
// provider at address into protocol-6 schemas.
func convertSchemaJSON(raw []byte, address string) (*providerSchemas, error) {
	var doc jsonSchemas
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decoding schema JSON: %w", err)
	}
	ps, ok := doc.ProviderSchemas[address]
	if !ok {
		return nil, fmt.Errorf("schema JSON has no provider %q", address)
	}
	out := &providerSchemas{
		Resources:   make(map[string]*tfprotov6.Schema, len(ps.ResourceSchemas)),
		DataSources: make(map[string]*tfprotov6.Schema, len(ps.DataSourceSchemas)),
	}
	var err error
	if ps.Provider != nil {
		if out.Provider, err = convertSchema(ps.Provider); err != nil {
			return nil, fmt.Errorf("provider: %w", err)
		}
	} else {
		out.Provider = &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{}}
	}
	for name, s := range ps.ResourceSchemas {
		if out.Resources[name], err = convertSchema(s); err != nil {
			return nil, fmt.Errorf("resource %s: %w", name, err)
		}
	}
	for name, s := range ps.DataSourceSchemas {
		if out.DataSources[name], err = convertSchema(s); err != nil {
			return nil, fmt.Errorf("data source %s: %w", name, err)
		}
	}
	return out, nil
}

func convertSchema(s *jsonSchema) (*tfprotov6.Schema, error) {
	if s.Block == nil {
		return nil, fmt.Errorf("schema has no block")
	}
	b, err := convertBlock(s.Block)
	if err != nil {
		return nil, err
	}
	b.Version = s.Version
	return &tfprotov6.Schema{Version: s.Version, Block: b}, nil
}

func convertBlock(b *jsonBlock) (*tfprotov6.SchemaBlock, error) {
	out := &tfprotov6.SchemaBlock{
		Description:     b.Description,
		DescriptionKind: convertDescriptionKind(b.DescriptionKind),
		Deprecated:      b.Deprecated,
	}
	attrs, err := convertAttributes(b.Attributes)
	if err != nil {
		return nil, err
	}
	out.Attributes = attrs
	for _, name := range sortedKeys(b.BlockTypes) {
		bt := b.BlockTypes[name]
		nested, err := convertBlock(bt.Block)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", name, err)
		}
		mode, err := convertBlockNesting(bt.NestingMode)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", name, err)
		}
		out.BlockTypes = append(out.BlockTypes, &tfprotov6.SchemaNestedBlock{
			TypeName: name, Block: nested, Nesting: mode, MinItems: bt.MinItems, MaxItems: bt.MaxItems,
		})
	}
	return out, nil
}

// convertAttributes keeps attributes in name order so that the served schema
// is deterministic (the protocol does not care about order).
func convertAttributes(in map[string]*jsonAttribute) ([]*tfprotov6.SchemaAttribute, error) {
	out := make([]*tfprotov6.SchemaAttribute, 0, len(in))
	for _, name := range sortedKeys(in) {
		a := in[name]
		sa := &tfprotov6.SchemaAttribute{
			Name:            name,
			Description:     a.Description,
			DescriptionKind: convertDescriptionKind(a.DescriptionKind),
			Deprecated:      a.Deprecated,
			Required:        a.Required,
			Optional:        a.Optional,
			Computed:        a.Computed,
			Sensitive:       a.Sensitive,
			WriteOnly:       a.WriteOnly,
		}
		switch {
		case a.NestedType != nil && len(a.Type) > 0:
			return nil, fmt.Errorf("attribute %s has both type and nested_type", name)
		case a.NestedType != nil:
			mode, err := convertObjectNesting(a.NestedType.NestingMode)
			if err != nil {
				return nil, fmt.Errorf("attribute %s: %w", name, err)
			}
			nestedAttrs, err := convertAttributes(a.NestedType.Attributes)
			if err != nil {
				return nil, fmt.Errorf("attribute %s: %w", name, err)
			}
			sa.NestedType = &tfprotov6.SchemaObject{Attributes: nestedAttrs, Nesting: mode}
		case len(a.Type) > 0:
			t, err := parseJSONType(a.Type)
			if err != nil {
				return nil, fmt.Errorf("attribute %s: type: %w", name, err)
			}
			sa.Type = t
		default:
			return nil, fmt.Errorf("attribute %s has neither type nor nested_type", name)
		}
		out = append(out, sa)
	}
	return out, nil
}

func convertDescriptionKind(kind string) tfprotov6.StringKind {
	if kind == "markdown" {
		return tfprotov6.StringKindMarkdown
	}
	return tfprotov6.StringKindPlain
}

func convertObjectNesting(mode string) (tfprotov6.SchemaObjectNestingMode, error) {
	switch mode {
	case "single":
		return tfprotov6.SchemaObjectNestingModeSingle, nil
	case "list":
		return tfprotov6.SchemaObjectNestingModeList, nil
	case "set":
		return tfprotov6.SchemaObjectNestingModeSet, nil
	case "map":
		return tfprotov6.SchemaObjectNestingModeMap, nil
	}
	return tfprotov6.SchemaObjectNestingModeInvalid, fmt.Errorf("unknown nesting_mode %q (allowed: single, list, set, map)", mode)
}

func convertBlockNesting(mode string) (tfprotov6.SchemaNestedBlockNestingMode, error) {
	switch mode {
	case "single":
		return tfprotov6.SchemaNestedBlockNestingModeSingle, nil
	case "list":
		return tfprotov6.SchemaNestedBlockNestingModeList, nil
	case "set":
		return tfprotov6.SchemaNestedBlockNestingModeSet, nil
	case "map":
		return tfprotov6.SchemaNestedBlockNestingModeMap, nil
	case "group":
		return tfprotov6.SchemaNestedBlockNestingModeGroup, nil
	}
	return tfprotov6.SchemaNestedBlockNestingModeInvalid, fmt.Errorf("unknown block nesting_mode %q", mode)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// parseJSONType reads the cty JSON type syntax used in schema JSON: a
// primitive name, or ["list"|"set"|"map", T], ["object", {name: T}] or
// ["tuple", [T...]]. (tftypes has a parser, but it is marked internal.)
func parseJSONType(raw json.RawMessage) (tftypes.Type, error) {
	var primitive string
	if err := json.Unmarshal(raw, &primitive); err == nil {
		switch primitive {
		case "string":
			return tftypes.String, nil
		case "number":
			return tftypes.Number, nil
		case "bool":
			return tftypes.Bool, nil
		case "dynamic":
			return tftypes.DynamicPseudoType, nil
		}
		return nil, fmt.Errorf("unknown primitive type %q", primitive)
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) < 2 {
		return nil, fmt.Errorf("type %s is neither a primitive name nor a [kind, element] pair", raw)
	}
	var kind string
	if err := json.Unmarshal(parts[0], &kind); err != nil {
		return nil, fmt.Errorf("type %s: kind is not a string", raw)
	}
	switch kind {
	case "list", "set", "map":
		elem, err := parseJSONType(parts[1])
		if err != nil {
			return nil, err
		}
		switch kind {
		case "list":
			return tftypes.List{ElementType: elem}, nil
		case "set":
			return tftypes.Set{ElementType: elem}, nil
		default:
			return tftypes.Map{ElementType: elem}, nil
		}
	case "object":
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(parts[1], &fields); err != nil {
			return nil, fmt.Errorf("object type %s: %w", raw, err)
		}
		obj := tftypes.Object{AttributeTypes: make(map[string]tftypes.Type, len(fields))}
		for name, ft := range fields {
			t, err := parseJSONType(ft)
			if err != nil {
				return nil, fmt.Errorf("object attribute %s: %w", name, err)
			}
			obj.AttributeTypes[name] = t
		}
		if len(parts) > 2 {
			var optional []string
			if err := json.Unmarshal(parts[2], &optional); err != nil {
				return nil, fmt.Errorf("object type %s: optional attributes: %w", raw, err)
			}
			obj.OptionalAttributes = make(map[string]struct{}, len(optional))
			for _, name := range optional {
				obj.OptionalAttributes[name] = struct{}{}
			}
		}
		return obj, nil
	case "tuple":
		var elems []json.RawMessage
		if err := json.Unmarshal(parts[1], &elems); err != nil {
			return nil, fmt.Errorf("tuple type %s: %w", raw, err)
		}
		tuple := tftypes.Tuple{ElementTypes: make([]tftypes.Type, 0, len(elems))}
		for i, et := range elems {
			t, err := parseJSONType(et)
			if err != nil {
				return nil, fmt.Errorf("tuple element %d: %w", i, err)
			}
			tuple.ElementTypes = append(tuple.ElementTypes, t)
		}
		return tuple, nil
	}
	return nil, fmt.Errorf("unknown type kind %q", kind)
}
