package libvirtops

import (
	"errors"
	"testing"
)

// The message CI saw when qemu-img gave up timing a LUKS volume's key
// derivation (TestAccSecret_luksVolume, 2026-12-01).
const qemuImgCPUUsage = `internal error: Child process (/usr/bin/qemu-img create -f luks --object secret,id=v_encrypt0,file=/run/libvirt/storage/p.v.secret.X -o key-secret=v_encrypt0 /var/tmp/p/v 16384K) unexpected exit status 1: qemu-img: /var/tmp/p/v: Unable to get accurate CPU usage`

func TestRetryBuild(t *testing.T) {
	transient := errors.New(qemuImgCPUUsage)
	lasting := errors.New("internal error: Child process (/usr/bin/qemu-img create) unexpected exit status 1: Could not open: Permission denied")
	cases := []struct {
		name      string
		failures  []error // what the attempts return, in turn; then success
		gone      bool
		wantCalls int
		wantErr   error
	}{
		{"succeeds at once", nil, true, 1, nil},
		{"transient once, then built", []error{transient}, true, 2, nil},
		{"transient every time: gives up after three", []error{transient, transient, transient, transient}, true, 3, transient},
		{"lasting failure: not retried", []error{lasting}, true, 1, lasting},
		{"transient but the volume is still there: not retried", []error{transient}, false, 1, transient},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			err := retryBuild(func() error {
				calls++
				if calls <= len(c.failures) {
					return c.failures[calls-1]
				}
				return nil
			}, func() bool { return c.gone })
			if calls != c.wantCalls {
				t.Errorf("create called %d times, want %d", calls, c.wantCalls)
			}
			if !errors.Is(err, c.wantErr) {
				t.Errorf("error %v, want %v", err, c.wantErr)
			}
		})
	}
}
