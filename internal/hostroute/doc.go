// Package hostroute routes each resource's calls to its libvirt host
// (docs/adr/0002-several-hosts.md): the provider's hosts and their
// connections (Set), the host a request is about (Ref, read from the
// resource's value), the host attribute every resource has (Attr,
// Attributes) and the mark of a resource that moves between hosts instead of
// being replaced (Movable), and the protocol server in front of the
// tree-resource core that names the host in each request's context (Server).
// The core knows none of this: it asks the provider data for the client of
// a request's context (treeresource.Clients).
package hostroute
