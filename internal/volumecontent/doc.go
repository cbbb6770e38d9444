// Package volumecontent is what goes into a libvirt_volume and what its
// state records of it: the create block (a copy of another volume, or
// content from a URL or a file, into any pool, rbd ones through a staging
// volume), its schema and plan checks, comparing an adopted volume with its
// content, verifying at refresh that a volume still holds what was written,
// and the records of it (content_digest, content_upstream, content_source,
// the digest in private state). internal/provider's volume resource calls
// it at each step (volume.go lists the entry points, create.go the
// create); the transfers themselves are internal/storage's, the libvirt
// calls internal/libvirtops's.
package volumecontent
