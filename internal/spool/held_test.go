package spool

import (
	"errors"
	"testing"
)

// Held lists what is kept by destination (sessions, bytes, when), Find
// names one by its short ID, its address as shown or its address alone
// when no other shares it, and Discard drops that one's sessions only.
func TestHeldFindDiscard(t *testing.T) {
	d := Open(t.TempDir(), 0)
	plain := Destination{Address: "http://elsewhere:4317", Protocol: "grpc"}
	keyed := Destination{Address: "http://elsewhere:4317", Protocol: "grpc", Headers: map[string]string{"authorization": "s3cret"}}
	for i, to := range []Destination{here, plain, plain, keyed} {
		if _, err := d.Keep(to, session(byte(i+1), 2)); err != nil {
			t.Fatal(err)
		}
	}
	held, err := d.Held(&here)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) != 3 {
		t.Fatalf("%d destinations, want 3: %+v", len(held), held)
	}
	byAddr := map[string]Held{}
	for _, h := range held {
		if h.Bytes <= 0 || h.Oldest.IsZero() || h.Newest.Before(h.Oldest) || len(h.Short()) != ShortID {
			t.Errorf("%+v: want a size, the times kept and a short ID", h)
		}
		switch {
		case h.Today:
			byAddr["today"] = h
		case len(h.Differs) == 1 && h.Differs[0] == "other values of authorization":
			byAddr["keyed"] = h
		default:
			byAddr["plain"] = h
		}
	}
	if h := byAddr["today"]; h.Address != "http://127.0.0.1:4317 (grpc)" || h.Sessions != 1 {
		t.Errorf("today's: %+v", h)
	}
	if h := byAddr["keyed"]; h.Sessions != 1 || h.Address != "http://elsewhere:4317 (grpc)" {
		t.Errorf("the keyed one: %+v", h)
	}
	if h := byAddr["plain"]; h.Sessions != 2 || h.Address != "http://elsewhere:4317 (grpc)" {
		t.Errorf("the plain one: %+v", h)
	}
	if _, err := Find(held, "http://elsewhere:4317"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("an address two destinations share: %v, want ErrAmbiguous", err)
	}
	if _, err := Find(held, "http://nowhere:4317"); !errors.Is(err, ErrNoDestination) {
		t.Errorf("an address kept for nothing: %v, want ErrNoDestination", err)
	}
	h, err := Find(held, byAddr["plain"].Short())
	if err != nil || h.Sessions != 2 {
		t.Fatalf("by short ID: %+v, %v", h, err)
	}
	if n, err := d.Discard(h.ID); n != 2 || err != nil {
		t.Errorf("discarded %d (%v), want 2", n, err)
	}
	after, _ := d.Held(&here)
	if len(after) != 2 {
		t.Errorf("after the discard: %+v, want the other two", after)
	}
	if h, err := Find(after, "http://elsewhere:4317"); err != nil || h.ID != byAddr["keyed"].ID {
		t.Errorf("the address alone, now one destination's: %+v, %v", h, err)
	}
}
