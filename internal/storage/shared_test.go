package storage

import (
	"context"
	"testing"
	"time"
)

func TestSharesLeaderWaitsForCopies(t *testing.T) {
	r := &Shares{m: map[string]*share{}}
	lead := r.Join("qemu:///a", "u")
	follow := r.Join("qemu:///a", "u")
	other := r.Join("qemu:///b", "u")
	if !lead.Leader() || follow.Leader() || !other.Leader() {
		t.Fatalf("leaders: %v %v %v (one per host)", lead.Leader(), follow.Leader(), other.Leader())
	}
	got := make(chan string, 1)
	go func() {
		v, _, ok := follow.Wait(context.Background())
		if !ok {
			v = "failed"
		}
		got <- v
	}()
	lead.Publish("/pool/first", &Source{})
	if v := <-got; v != "/pool/first" {
		t.Fatalf("follower got %q", v)
	}
	released := make(chan struct{})
	go func() { lead.Release(); close(released) }()
	select {
	case <-released:
		t.Fatal("the leader returned while a follower was still copying its volume")
	case <-time.After(50 * time.Millisecond):
	}
	follow.Release()
	<-released
	// after the leader returned, the next volume transfers again
	if late := r.Join("qemu:///a", "u"); !late.Leader() {
		t.Error("a volume joining after the leader returned must lead a transfer of its own")
	}
	other.Release() // a leader that never published: failed
}

func TestSharesLeaderFailure(t *testing.T) {
	r := &Shares{m: map[string]*share{}}
	lead := r.Join("h", "u")
	follow := r.Join("h", "u")
	lead.Release()
	if _, _, ok := follow.Wait(context.Background()); ok {
		t.Fatal("a follower of a failed leader must transfer the content itself")
	}
	follow.Release()
}
