// Package hostroute routes each resource's calls to its libvirt host
// (docs/adr/0002-several-hosts.md): the provider's hosts and their
// connections (Set), the host a request is about (Ref, read from the
// resource's value), and the protocol server in front of the tree-resource
// core that names the host in each request's context (Server).
package hostroute
