// Package storage streams image content into libvirt volumes: it opens
// http(s) URLs, file:// URLs and local paths as a stream, recognises qcow2
// images from their first bytes (and their virtual size from the header)
// without buffering the image, uploads through libvirt's volume upload stream
// with flat memory whatever the size, and serialises the storage operations
// libvirt cannot run concurrently in one pool (per-pool locks).
package storage
