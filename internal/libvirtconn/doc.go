// Package libvirtconn opens and keeps the connection from the provider to one
// libvirtd: it parses libvirt URIs (driver[+transport]://[user@][host][:port]/path?params),
// dials the transport they name (local unix socket, SSH with verified host keys,
// TCP, TLS), re-dials once when the connection broke, and turns libvirt errors
// into typed errors (*Error, ErrNotFound).
//
// The user-facing description of every URI form is docs-src/provider-uri.md.
package libvirtconn
