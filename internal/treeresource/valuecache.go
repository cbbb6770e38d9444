package treeresource

import (
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// valueCache remembers decoded values by their exact msgpack bytes, for one
// object type. During a plan tofu sends the same object several times: the
// state a read returned comes back as the prior state of the plan, and an
// unchanged resource's proposed state is that same state. Decoding is the
// provider's largest cost on the large document types, because
// tftypes.NewValue checks every child's type against the schema at every
// level; a hit skips it. Values are immutable, so sharing them is safe.
type valueCache struct {
	mu     sync.Mutex
	values map[string]tftypes.Value
}

// valueCacheSize bounds the cache; when full it starts over. A trivial domain
// decodes to about 100 KB. Within a plan, a value comes back within one
// resource instance's upgrade-read-plan sequence, and a configuration between
// the validate walk and the plan walk.
const valueCacheSize = 256

func (c *valueCache) get(b []byte) (tftypes.Value, bool) {
	c.mu.Lock()
	v, ok := c.values[string(b)]
	c.mu.Unlock()
	return v, ok
}

func (c *valueCache) put(b []byte, v tftypes.Value) {
	if len(b) == 0 {
		return
	}
	c.mu.Lock()
	if c.values == nil || len(c.values) >= valueCacheSize {
		c.values = make(map[string]tftypes.Value, 64)
	}
	c.values[string(b)] = v
	c.mu.Unlock()
}

// decode unmarshals a request value of type typ, from the cache when these
// exact bytes were seen before.
func (c *valueCache) decode(dv *tfprotov6.DynamicValue, typ tftypes.Type) (tftypes.Value, error) {
	if dv == nil {
		return tftypes.NewValue(typ, nil), nil
	}
	if len(dv.MsgPack) == 0 {
		return dv.Unmarshal(typ)
	}
	if v, ok := c.get(dv.MsgPack); ok {
		return v, nil
	}
	v, err := dv.Unmarshal(typ)
	if err == nil {
		c.put(dv.MsgPack, v)
	}
	return v, err
}

// encode marshals a response value and remembers it, so that the same bytes
// coming back in a later request decode from the cache.
func (c *valueCache) encode(typ tftypes.Type, v tftypes.Value) (tfprotov6.DynamicValue, error) {
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err == nil {
		c.put(dv.MsgPack, v)
	}
	return dv, err
}

// Decode decodes a request value of tree resource type typeName through the
// type's cache of decoded values, so that a layer in front of this server
// (internal/hostroute reads the host) and this server decode the same bytes
// once. cached is false for a type this server does not plan.
func (s *Server) Decode(typeName string, dv *tfprotov6.DynamicValue) (v tftypes.Value, cached bool, err error) {
	t, ok := s.types[typeName]
	if !ok {
		return tftypes.Value{}, false, nil
	}
	v, err = t.values.decode(dv, t.objType)
	return v, true, err
}

// ForgetValues empties the decoded-value caches of all tree resources
// (benchmarks use it to measure decoding with a cold cache).
func (s *Server) ForgetValues() {
	for _, t := range s.types {
		t.values.mu.Lock()
		t.values.values = nil
		t.values.mu.Unlock()
	}
}

// RememberValue decodes dv as a value of typeName and keeps it, as the
// response of a ReadResource leaves it (benchmarks of a refreshing plan).
func (s *Server) RememberValue(typeName string, dv *tfprotov6.DynamicValue) error {
	t, ok := s.types[typeName]
	if !ok {
		return fmt.Errorf("%s is not a tree resource", typeName)
	}
	v, err := dv.Unmarshal(t.objType)
	if err != nil {
		return err
	}
	t.values.put(dv.MsgPack, v)
	return nil
}
