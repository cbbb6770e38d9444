package treeresource

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Shorten is an optional hook: it removes from a fetched document what
// libvirt fills in by itself (addresses, implicit controllers, defaults),
// so that the configuration generated from a list result is what a person
// would write. Nothing is lost: the adoption engine keeps every value the
// configuration leaves out (KeepChosen).
type Shorten[T any] interface {
	Shorten(doc *T)
}

// Adoption returns the value a list result carries for configuration
// generation (`terraform query -generate-config-out`): the object as an
// import reads it, shortened (Shorten, then the engine's Model.Shorten), without the UUID (the identity
// carries it), and with the own attributes at their schema defaults left
// null. found is false when libvirt has no such object.
func (b *Base[T]) Adoption(ctx context.Context, t tftypes.Type, id string) (tftypes.Value, bool, error) {
	f, err := b.hooks.Fetch(ctx, b.client, id)
	if libvirtconn.IsNotFound(err) {
		return tftypes.Value{}, false, nil
	}
	if err != nil {
		return tftypes.Value{}, false, err
	}
	if pr, ok := b.hooks.(PruneImported[T]); ok {
		pr.PruneImported(f.Doc)
	}
	if sh, ok := b.hooks.(Shorten[T]); ok {
		sh.Shorten(f.Doc)
	}
	model := b.spec.Model
	doc := model.Shorten(model.Reconcile(nil, model.ToValues(f.Doc)))
	types := t.(tftypes.Object).AttributeTypes
	if _, ok := doc["uuid"]; ok {
		doc["uuid"] = tftypes.NewValue(types["uuid"], nil)
	}
	own := b.ownState(t, nil, f.Own)
	for name, v := range own {
		d, ok := b.defaults[name]
		if !ok {
			d, ok = keptDefault(b.spec.Own[name])
		}
		if ok && v.Equal(d) {
			own[name] = tftypes.NewValue(types[name], nil)
		}
	}
	return BuildObject(t, doc, own), true, nil
}

// keptDefault is the value a KeepOrDefaultBool switch (running, autostart)
// takes on a new object: unset on an adopted one it keeps the host's value,
// so the generated configuration needs it only where it differs.
func keptDefault(a schema.Attribute) (tftypes.Value, bool) {
	ba, ok := a.(schema.BoolAttribute)
	if !ok {
		return tftypes.Value{}, false
	}
	for _, m := range ba.PlanModifiers {
		if k, ok := m.(keepOrDefaultBool); ok {
			return tftypes.NewValue(tftypes.Bool, k.def), true
		}
	}
	return tftypes.Value{}, false
}
