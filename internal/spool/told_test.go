package spool

import (
	"context"
	"testing"
)

// A run is told of sessions waiting for another destination when their
// count grows, once; not again while it stays; again when it grows after
// falling.
func TestNewlyWaitingIsToldOnce(t *testing.T) {
	d := Open(t.TempDir(), 0)
	other := Destination{Address: "http://elsewhere:4317", Protocol: "grpc"}
	if n := d.NewlyWaiting(here); n != 0 {
		t.Errorf("empty spool: %d told", n)
	}
	keep := func(to Destination, id byte) {
		if _, err := d.Keep(to, session(id, 1)); err != nil {
			t.Fatal(err)
		}
	}
	keep(other, 1)
	keep(here, 2) // the run's own: not waiting for another
	for i, want := range []int{1, 0, 0} {
		if n := d.NewlyWaiting(here); n != want {
			t.Errorf("look %d: %d told, want %d", i, n, want)
		}
	}
	if n := d.NewlyWaiting(other); n != 1 {
		t.Errorf("for the other destination: %d told, want its own count of 1", n)
	}
	keep(other, 3)
	if n := d.NewlyWaiting(here); n != 2 {
		t.Errorf("after one more: %d told, want 2", n)
	}
	var got sent
	exp := got.export(nil)
	exp.To = here
	if _, err := d.Deliver(context.Background(), exp, true); err != nil {
		t.Fatal(err)
	}
	if n := d.NewlyWaiting(here); n != 0 {
		t.Errorf("after a redirect: %d told", n)
	}
	keep(other, 4)
	if n := d.NewlyWaiting(here); n != 1 {
		t.Errorf("grown again: %d told, want 1", n)
	}
}
