package provider

import "github.com/virtxml/terraform-provider-libvirt/internal/storage"

// storageLocks serialises the storage operations libvirt cannot run
// concurrently within one pool; keyed by connection URI and pool name.
var storageLocks storage.PoolLocks

func poolLockKey(uri, pool string) string { return uri + "\x00" + pool }
