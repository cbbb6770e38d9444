// Package libvirtconn opens and keeps the connection from the provider to one
// libvirtd: it parses libvirt URIs, dials the transport they name, re-dials once
// when the connection broke, and turns libvirt errors into typed errors.
package libvirtconn
