// Package treeresource is the core shared by the resources whose schema is a
// libvirt XML document tree (internal/xmlschema) plus a few attributes of
// their own: libvirt_domain, libvirt_network, libvirt_pool, libvirt_volume.
//
// It holds three things:
//
//   - The protocol layer (Server): five protocol 6 calls answered here
//     instead of by the framework's generic server, one file per call
//     (schema.go, validate.go, plan.go, read.go, upgrade.go), and the
//     resource identities (identity.go: derived from the state on read,
//     plan, apply and import; import by identity), which the framework does
//     not see. The list resources' calls pass through to the framework
//     (list.go). The document
//     tree has thousands of attributes and no validators, defaults or plan
//     modifiers of its own; the framework walks all of it, several times per
//     call. These calls walk only what has behaviour: the resource's own
//     attributes (validators, defaults and plan modifiers, nested ones
//     included) and the engine's rules for the tree. Everything else
//     (configuration, CRUD, import) goes to the framework. A differential
//     test sends the same requests to both servers and requires equal
//     results outside the tree.
//
//   - The resource base (Base): what every tree resource does the same way
//     (schema, Read, import, the one ending of create and update (Finish),
//     keeping the values libvirt chose, volatile values, replacement on
//     change), with named hooks (Hooks) for the parts that are the
//     resource's own: how it fetches and looks up its object (through
//     internal/libvirtops), its fix-ups, what it prunes on import and what
//     it leaves out of a generated configuration (adopt.go). The
//     package does not import go-libvirt: a *libvirtconn.Client is only
//     handed through to the hooks.
//
//   - The lookup data sources (DataSpec, datasource.go, datasource_read.go):
//     each tree resource read-only, for an object found by name, UUID or
//     key. Their schema is derived from the resource's protocol schema
//     (every attribute computed), and this layer answers their validate
//     and read calls; the framework never sees them.
package treeresource
