package spool

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Destination is where kept spans were going. A session kept for one
// destination is delivered only to it: another collector, or the same
// address with another tenant's credentials, is another destination.
type Destination struct {
	// Address is what a person is shown: the endpoint without
	// credentials, and the protocol.
	Address string
	// Secret is what else tells destinations apart (the endpoint as
	// written, the headers). Only a keyed digest of it is written down.
	Secret string
}

// keyFile holds the spool's own random key for the destinations'
// digests, so that a digest of a low-entropy header cannot be matched
// against a guess anywhere but on this machine, by this user.
const (
	keyFile     = "destination.key"
	destSuffix  = ".destination"
	unknownDest = "" // parts kept before destinations were written down
)

// id is the destination's keyed digest, as part names carry it; "" when
// the key cannot be had (create: make one when there is none).
func (d *Dir) id(to Destination, create bool) (string, error) {
	key, err := d.key(create)
	if err != nil || key == nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(to.Address))
	mac.Write([]byte{0})
	mac.Write([]byte(to.Secret))
	return hex.EncodeToString(mac.Sum(nil)[:10]), nil
}

// key reads the spool's key, making it first when create says so and
// there is none. Two processes making it at once agree on the first one
// linked into place.
func (d *Dir) key(create bool) ([]byte, error) {
	path := filepath.Join(d.Path, keyFile)
	b, err := os.ReadFile(path)
	if err == nil && len(b) == 32 {
		return b, nil
	}
	if create && errors.Is(err, fs.ErrPermission) && os.Remove(path) == nil {
		err = fs.ErrNotExist // another user's (a root run's): this one makes its own
	}
	if !create || err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	b = make([]byte, 32)
	_, _ = rand.Read(b)
	f, err := os.CreateTemp(d.Path, ".key-*")
	if err != nil {
		return nil, fmt.Errorf("spool key: %w", err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	defer os.Remove(f.Name())
	if err != nil {
		return nil, fmt.Errorf("spool key: %w", err)
	}
	if err := os.Link(f.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("spool key: %w", err)
	}
	if b, err = os.ReadFile(path); err != nil || len(b) != 32 {
		return nil, fmt.Errorf("spool key %s: unreadable", path)
	}
	return b, nil
}

// remember writes down the address behind id, for flush to say where
// waiting sessions were going.
func (d *Dir) remember(id string, to Destination) error {
	path := filepath.Join(d.Path, id+destSuffix)
	if b, err := os.ReadFile(path); err == nil && string(b) == to.Address {
		return nil
	}
	f, err := os.CreateTemp(d.Path, ".dest-*")
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	_, err = f.WriteString(to.Address)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// address is what id was written down as, for a person.
func (d *Dir) address(id string) string {
	if id == unknownDest {
		return "a collector an earlier cursor-otel did not write down"
	}
	b, err := os.ReadFile(filepath.Join(d.Path, id+destSuffix))
	if err != nil || len(b) == 0 {
		return "a collector no longer written down"
	}
	return strings.TrimSpace(string(b))
}

// Waiting is how many sessions wait for another destination than the
// one delivered to.
type Waiting struct {
	Address  string
	Sessions int
}
