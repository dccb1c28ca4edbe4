package spool

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Parts kept by cursor-otel before destinations were canonical carry the
// digest of the settings as written: they are delivered to the same
// settings still, never made to wait by the upgrade.
func TestPartsOfTheEarlierDigestAreDelivered(t *testing.T) {
	d := Open(t.TempDir(), 0)
	earlier := &Earlier{Address: "http://127.0.0.1:4317 (grpc)", Secret: "http://127.0.0.1:4317\x00authorization=Bearer%20tenant-a\x00\x00\x00"}
	if _, err := d.Keep(here, session(1, 2)); err != nil {
		t.Fatal(err)
	}
	// As an earlier cursor-otel named it: the digest of the raw settings.
	key, _ := d.key(false)
	parts, _ := d.list()
	old := strings.Replace(parts[0].name, parts[0].dest, digest(key, 10, earlier.Address, earlier.Secret), 1)
	if err := os.Rename(filepath.Join(d.Path, parts[0].name), filepath.Join(d.Path, old)); err != nil {
		t.Fatal(err)
	}
	now := here
	now.Earlier = earlier
	if !d.HasKept(now) {
		t.Error("not pending for the same settings after the upgrade")
	}
	var got sent
	exp := got.export(nil)
	exp.To = now
	if r, err := d.Deliver(context.Background(), exp, false); err != nil || r.Sessions != 1 || len(r.Waiting) != 0 {
		t.Fatalf("delivery %+v, %v; want the session kept before the upgrade delivered", r, err)
	}
	// Other settings' earlier digest is still another destination.
	if _, err := d.Keep(here, session(2, 1)); err != nil {
		t.Fatal(err)
	}
	other := here
	other.Headers = map[string]string{"authorization": "Bearer tenant-b"}
	other.Earlier = &Earlier{Address: earlier.Address, Secret: "http://127.0.0.1:4317\x00authorization=Bearer%20tenant-b\x00\x00\x00"}
	if d.HasKept(other) {
		t.Error("pending for another tenant")
	}
}

// What is written down of a destination holds no credential: header
// names and keyed digests of their values; and what an earlier
// cursor-otel wrote (the endpoint as written, a key in its query) is
// rewritten without it.
func TestNoCredentialWrittenDown(t *testing.T) {
	d := Open(t.TempDir(), 0)
	secretive := Destination{Address: "https://collector.example:443/v1/traces", Protocol: "http/protobuf",
		Headers: map[string]string{"authorization": "Bearer s3cr3t-token", "x-tenant": "team-s3cr3t"}, Certificate: "subject CN=s3cr3t"}
	if _, err := d.Keep(secretive, session(1, 1)); err != nil {
		t.Fatal(err)
	}
	// An earlier cursor-otel's description, and its part.
	if err := os.WriteFile(filepath.Join(d.Path, "0123456789abcdef0123"+destSuffix), []byte("http://user:s3cr3t@127.0.0.1:4318/v1/traces?api_key=s3cr3t#s3cr3t (http/protobuf)"), 0o600); err != nil {
		t.Fatal(err)
	}
	parts, _ := d.list()
	old := strings.Replace(parts[0].name, parts[0].dest, "0123456789abcdef0123", 1)
	old = strings.Replace(old, parts[0].trace, strings.Repeat("ab", 16), 1)
	b, _ := os.ReadFile(filepath.Join(d.Path, parts[0].name))
	if err := os.WriteFile(filepath.Join(d.Path, old), b, 0o600); err != nil {
		t.Fatal(err)
	}
	var got sent
	r, err := d.Deliver(context.Background(), got.export(nil), false)
	if err != nil || len(r.Waiting) != 2 {
		t.Fatalf("delivery %+v, %v; want two destinations waiting", r, err)
	}
	addresses := []string{r.Waiting[0].Address, r.Waiting[1].Address}
	if want := []string{"http://127.0.0.1:4318/v1/traces (http/protobuf)", "https://collector.example:443/v1/traces (http/protobuf)"}; !slices.Equal(addresses, want) {
		t.Errorf("waiting for %q, want %q", addresses, want)
	}
	// Delivered, the earlier description is still there a while: without
	// its credentials too.
	other := secretive
	other.Earlier = &Earlier{Address: "x", Secret: "y"}
	if err := os.Rename(filepath.Join(d.Path, old), filepath.Join(d.Path, strings.Replace(old, "0123456789abcdef0123", digest(mustKey(t, d), 10, "x", "y"), 1))); err != nil {
		t.Fatal(err)
	}
	exp := got.export(nil)
	exp.To = other
	if r, err := d.Deliver(context.Background(), exp, false); err != nil || r.Sessions != 2 {
		t.Fatalf("delivery %+v, %v; want both sessions delivered", r, err)
	}
	files, _ := os.ReadDir(d.Path)
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(d.Path, f.Name()))
		if strings.Contains(string(b), "s3cr3t") {
			t.Errorf("%s holds a credential in clear: %q", f.Name(), b)
		}
	}
}

func mustKey(t *testing.T, d *Dir) []byte {
	t.Helper()
	key, err := d.key(false)
	if err != nil || key == nil {
		t.Fatalf("no key: %v", err)
	}
	return key
}

// flush says what differs from today's destination: the header names
// whose values differ, are not set, or are new; the client certificate.
func TestWhatDiffers(t *testing.T) {
	kept := Destination{Address: "http://127.0.0.1:4317", Protocol: "grpc",
		Headers: map[string]string{"authorization": "Bearer a", "x-tenant": "t", "x-same": "1"}, Certificate: "subject CN=a"}
	for _, c := range []struct {
		name string
		now  Destination
		want []string
	}{
		{"another token", Destination{Address: kept.Address, Protocol: "grpc", Certificate: kept.Certificate,
			Headers: map[string]string{"authorization": "Bearer b", "x-tenant": "t", "x-same": "1"}},
			[]string{"other values of authorization"}},
		{"headers gone and new", Destination{Address: kept.Address, Protocol: "grpc", Certificate: kept.Certificate,
			Headers: map[string]string{"x-same": "1", "x-api-key": "k"}},
			[]string{"authorization, x-tenant (not set today)", "no x-api-key (set today)"}},
		{"another certificate", Destination{Address: kept.Address, Protocol: "grpc", Headers: kept.Headers, Certificate: "subject CN=b"},
			[]string{"another client certificate"}},
		{"no certificate today", Destination{Address: kept.Address, Protocol: "grpc", Headers: kept.Headers},
			[]string{"a client certificate (none set today)"}},
		{"another address only", Destination{Address: "http://localhost:4317", Protocol: "grpc", Headers: kept.Headers, Certificate: kept.Certificate},
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Open(t.TempDir(), 0)
			if _, err := d.Keep(kept, session(1, 1)); err != nil {
				t.Fatal(err)
			}
			var got sent
			exp := got.export(nil)
			exp.To = c.now
			r, err := d.Deliver(context.Background(), exp, false)
			if err != nil || got.calls != 0 || len(r.Waiting) != 1 {
				t.Fatalf("delivery %+v, %v; want the session waiting", r, err)
			}
			if w := r.Waiting[0]; w.Address != "http://127.0.0.1:4317 (grpc)" || !slices.Equal(w.Differs, c.want) {
				t.Errorf("waiting for %s with %q, want http://127.0.0.1:4317 (grpc) with %q", w.Address, w.Differs, c.want)
			}
		})
	}
}
