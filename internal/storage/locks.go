package storage

import "sync"

// PoolLocks serialises storage operations per pool. libvirt refuses some
// operations while another runs in the same pool (a pool refresh while a
// volume is being built, concurrent refreshes), and refreshes clear the
// pool's volume list for a moment; operations on different pools run freely.
type PoolLocks struct {
	mu    sync.Mutex
	pools map[string]*sync.Mutex
}

// Lock locks the pool named key (callers include the connection in the key
// when one provider process talks to several hosts) and returns the unlock.
func (p *PoolLocks) Lock(key string) (unlock func()) {
	p.mu.Lock()
	if p.pools == nil {
		p.pools = map[string]*sync.Mutex{}
	}
	m, ok := p.pools[key]
	if !ok {
		m = &sync.Mutex{}
		p.pools[key] = m
	}
	p.mu.Unlock()
	m.Lock()
	return m.Unlock
}
