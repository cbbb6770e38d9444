package libvirtops

import "github.com/virtxml/terraform-provider-libvirt/internal/storage"

// storageLocks serialises the storage operations libvirt cannot run
// concurrently within one pool; keyed by connection URI and pool name.
var storageLocks storage.PoolLocks

// PoolLocks are the pool locks every storage operation of this process takes.
func PoolLocks() *storage.PoolLocks { return &storageLocks }

// PoolLockKey names the pool called pool on the connection uri.
func PoolLockKey(uri, pool string) string { return uri + "\x00" + pool }
