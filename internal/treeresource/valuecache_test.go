package treeresource

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestValueCache(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name": tftypes.String,
		"tags": tftypes.List{ElementType: tftypes.String},
	}}
	val := func(name string) tftypes.Value {
		return tftypes.NewValue(typ, map[string]tftypes.Value{
			"name": tftypes.NewValue(tftypes.String, name),
			"tags": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, "x")}),
		})
	}
	var c valueCache

	// what encode returns decodes to the same value, from the cache
	dv, err := c.encode(typ, val("a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(dv.MsgPack); !ok {
		t.Fatal("encode did not remember its bytes")
	}
	got, err := c.decode(&dv, typ)
	if err != nil || !got.Equal(val("a")) {
		t.Fatalf("decode from the cache: %v, %v", got, err)
	}

	// other bytes are decoded, not confused with cached ones
	other, err := tfprotov6.NewDynamicValue(typ, val("b"))
	if err != nil {
		t.Fatal(err)
	}
	got, err = c.decode(&other, typ)
	if err != nil || !got.Equal(val("b")) {
		t.Fatalf("decode of new bytes: %v, %v", got, err)
	}

	// a missing value is null; bad bytes are an error and are not cached
	if got, err := c.decode(nil, typ); err != nil || !got.IsNull() {
		t.Fatalf("nil value: %v, %v", got, err)
	}
	bad := tfprotov6.DynamicValue{MsgPack: []byte{0xc1}}
	if _, err := c.decode(&bad, typ); err == nil {
		t.Fatal("invalid msgpack decoded without error")
	}
	if _, ok := c.get(bad.MsgPack); ok {
		t.Fatal("invalid bytes were cached")
	}

	// the cache stays bounded
	for i := 0; i < 3*valueCacheSize; i++ {
		c.put([]byte(fmt.Sprint(i)), val("n"))
	}
	if n := len(c.values); n > valueCacheSize {
		t.Fatalf("cache holds %d values, more than %d", n, valueCacheSize)
	}
}
