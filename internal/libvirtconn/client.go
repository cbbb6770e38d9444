package libvirtconn

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/digitalocean/go-libvirt"
	"github.com/digitalocean/go-libvirt/socket/dialers"
)

// Client is the shared, lazily opened connection of one configured provider.
// It is safe for concurrent use by all resources.
type Client struct {
	uri string

	mu   sync.Mutex
	virt *libvirt.Libvirt
}

// Warning is a condition the user should see on every run (for example host
// key checking turned off).
type Warning struct {
	Summary string
	Detail  string
}

// New validates uri and returns a Client for it; nothing is dialed until first use.
func New(uri string) (*Client, error) {
	return &Client{uri: uri}, nil
}

// Warnings lists the conditions of this URI the user must be told about.
func (c *Client) Warnings() []Warning { return nil }

// URI is the libvirt URI the client connects to.
func (c *Client) URI() string { return c.uri }

// Libvirt returns the open connection, dialing it on first use and again when
// the previous one broke.
func (c *Client) Libvirt(ctx context.Context) (*libvirt.Libvirt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.virt != nil && c.virt.IsConnected() {
		return c.virt, nil
	}
	l := libvirt.NewWithDialer(dialers.NewLocal())
	if err := l.ConnectToURI(libvirt.ConnectURI(c.uri)); err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", c.uri, err)
	}
	c.virt = l
	return l, nil
}

// Do runs op on the connection. When op fails because the connection broke
// (libvirtd restarted), it reconnects and runs op once more.
func (c *Client) Do(ctx context.Context, op func(*libvirt.Libvirt) error) error {
	l, err := c.Libvirt(ctx)
	if err != nil {
		return err
	}
	err = op(l)
	if err != nil && !l.IsConnected() {
		if l, err2 := c.Libvirt(ctx); err2 == nil {
			return op(l)
		}
	}
	return err
}

// ErrNotFound is matched (errors.Is) by every libvirt error that says the
// object does not exist: Read removes such an object from state, Delete
// ignores it.
var ErrNotFound = errors.New("libvirt object not found")

// IsNotFound reports whether err says the libvirt object does not exist.
func IsNotFound(err error) bool {
	if errors.Is(err, ErrNotFound) {
		return true
	}
	var le libvirt.Error
	if errors.As(err, &le) {
		switch libvirt.ErrorNumber(le.Code) {
		case libvirt.ErrNoDomain, libvirt.ErrNoNetwork, libvirt.ErrNoStoragePool, libvirt.ErrNoStorageVol:
			return true
		}
	}
	return false
}
