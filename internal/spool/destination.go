package spool

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/atomicfile"
)

// Destination is where kept spans were going, in the canonical form the
// exporter's request takes (the caller resolves the settings to it): a
// session kept for one destination is delivered only to it. Another
// address, protocol, header value or client certificate is another
// destination; the same collector written another way is the same one.
type Destination struct {
	// Address is the endpoint as the exporter resolves it, with no
	// credential in any part: scheme://host:port[/path], in lower case.
	Address  string
	Protocol string // grpc or http/protobuf
	// Headers sent, by lower-case name; values in memory only: only their
	// keyed digests are written down.
	Headers map[string]string
	// Certificate is the client certificate's identity, "" for none; only
	// its keyed digest is written down.
	Certificate string
	// Earlier is what cursor-otel before canonical destinations digested
	// for these settings: parts kept under it are this destination's too.
	Earlier *Earlier
}

// Earlier is a destination as earlier cursor-otel versions digested it:
// the address shown, and the endpoint as written and the header and
// client certificate variables, raw.
type Earlier struct {
	Address, Secret string
}

// Shown is the destination as a person is shown it: "http://host:4317 (grpc)".
func (to Destination) Shown() string {
	return to.Address + " (" + to.Protocol + ")"
}

// keyFile holds the spool's own random key for the destinations'
// digests, so that a digest of a low-entropy header cannot be matched
// against a guess anywhere but on this machine, by this user.
const (
	keyFile     = "destination.key"
	destSuffix  = ".destination"
	unknownDest = "" // parts kept before destinations were written down
)

// canonical is what a destination's digest is made of: one encoding of
// each destination, whatever order its headers came in.
func (to Destination) canonical() []byte {
	b, _ := json.Marshal(struct {
		V        int               `json:"v"`
		Address  string            `json:"a"`
		Protocol string            `json:"p"`
		Headers  map[string]string `json:"h"`
		Cert     string            `json:"c"`
	}{2, to.Address, to.Protocol, to.Headers, to.Certificate})
	return b
}

// digest is a keyed digest of the parts, each length-prefixed.
func digest(key []byte, size int, parts ...string) string {
	mac := hmac.New(sha256.New, key)
	for i, p := range parts {
		if i > 0 {
			mac.Write([]byte{0})
		}
		mac.Write([]byte(p))
	}
	return hex.EncodeToString(mac.Sum(nil)[:size])
}

// id is the destination's keyed digest, as part names carry it; "" when
// the key cannot be had (create: make one when there is none).
func (d *Dir) id(to Destination, create bool) (string, error) {
	key, err := d.key(create)
	if err != nil || key == nil {
		return "", err
	}
	return digest(key, 10, string(to.canonical())), nil
}

// ids are every digest parts kept for to may carry: today's, and the one
// cursor-otel gave the same settings before destinations were canonical.
// None when there is no key yet (nothing was kept with a destination).
func (d *Dir) ids(to Destination) map[string]bool {
	key, _ := d.key(false)
	return idsWith(key, to)
}

// idsWith is ids, with the spool's key read (nil: none).
func idsWith(key []byte, to Destination) map[string]bool {
	if key == nil {
		return nil
	}
	out := map[string]bool{digest(key, 10, string(to.canonical())): true}
	if e := to.Earlier; e != nil {
		out[digest(key, 10, e.Address, e.Secret)] = true
	}
	return out
}

// ID is the destination's keyed digest, making the spool's key first if
// there is none, and writing down what flush says of it: what a record
// kept outside the parts (the hooks') carries to say where it goes.
func (d *Dir) ID(to Destination) (string, error) {
	if err := MkdirAll(d.Path); err != nil {
		return "", fmt.Errorf("spool: %w", err)
	}
	id, err := d.id(to, true)
	if err == nil {
		err = d.remember(id, to)
	}
	return id, err
}

// IDs are the digests records kept for to may carry (see ids).
func (d *Dir) IDs(to Destination) map[string]bool { return d.ids(to) }

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
	if create && (err == nil || !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission)) {
		// Damaged (cut short, a directory in its place): set aside, and a
		// new key made. What was kept under the old one waits, unmatched.
		if os.Rename(path, path+".damaged-"+strconv.FormatInt(time.Now().UnixNano(), 10)) == nil {
			err = fs.ErrNotExist
		}
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
	atomicfile.GiveToDirOwner(f.Name()) // a root run's key is the user's: the user's runs name destinations alike
	if err := os.Link(f.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("spool key: %w", err)
	}
	if b, err = os.ReadFile(path); err != nil || len(b) != 32 {
		return nil, fmt.Errorf("spool key %s: unreadable", path)
	}
	return b, nil
}

// described is what is written down of a destination, for flush to say
// where waiting sessions were going and what differs from today's: the
// address and protocol, the header names, and keyed digests of the header
// values and of the client certificate. Never a credential in clear.
type described struct {
	Address     string            `json:"address"`
	Protocol    string            `json:"protocol"`
	Headers     map[string]string `json:"headers,omitempty"`
	Certificate string            `json:"certificate,omitempty"`
	// earlier: written by an earlier cursor-otel, as the address alone.
	earlier bool
}

// describe is to as it is written down, with the spool's key.
func describe(key []byte, to Destination) described {
	out := described{Address: to.Address, Protocol: to.Protocol}
	for name, value := range to.Headers {
		if out.Headers == nil {
			out.Headers = map[string]string{}
		}
		out.Headers[name] = digest(key, 8, "header", name, value)
	}
	if to.Certificate != "" {
		out.Certificate = digest(key, 8, "certificate", to.Certificate)
	}
	return out
}

// remember writes down what id is, for flush to say where waiting
// sessions were going.
func (d *Dir) remember(id string, to Destination) error {
	key, err := d.key(false)
	if err != nil || key == nil {
		return err
	}
	b, err := json.Marshal(describe(key, to))
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	path := filepath.Join(d.Path, id+destSuffix)
	if was, err := os.ReadFile(path); err == nil && string(was) == string(b) {
		return nil
	}
	return d.writeSmall(path, b)
}

// writeSmall writes a small file of the spool's whole (the user's, when
// a root run writes it).
func (d *Dir) writeSmall(path string, b []byte) error {
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// described reads what id was written down as; ok is false when it was
// not (or no longer is).
func (d *Dir) described(id string) (out described, ok bool) {
	b, err := os.ReadFile(filepath.Join(d.Path, id+destSuffix))
	if err != nil || len(b) == 0 {
		return out, false
	}
	if json.Unmarshal(b, &out) == nil && out.Address != "" {
		return out, true
	}
	// An earlier cursor-otel wrote the address alone, as the endpoint
	// was written, with the protocol: "http://host:4317/?k=v (grpc)".
	text := strings.TrimSpace(string(b))
	out = described{earlier: true, Address: text}
	if i := strings.LastIndex(text, " ("); i > 0 && strings.HasSuffix(text, ")") {
		out.Address, out.Protocol = text[:i], text[i+2:len(text)-1]
	}
	out.Address = withoutCredentials(out.Address)
	return out, true
}

// withoutCredentials is an address with no user, password, query or
// fragment: the parts of a URL a credential can be written in.
func withoutCredentials(address string) string {
	if i := strings.IndexAny(address, "?#"); i >= 0 {
		address = address[:i]
	}
	if scheme, rest, ok := strings.Cut(address, "://"); ok {
		host, path, _ := strings.Cut(rest, "/")
		if at := strings.LastIndex(host, "@"); at >= 0 {
			host = host[at+1:]
		}
		address = scheme + "://" + host
		if path != "" {
			address += "/" + path
		}
	}
	return address
}

// scrub rewrites what earlier cursor-otel versions wrote down of a
// destination (the endpoint as written, a key in its query included)
// without its credentials.
func (d *Dir) scrub(id string) {
	path := filepath.Join(d.Path, id+destSuffix)
	b, err := os.ReadFile(path)
	if err != nil || json.Valid(b) {
		return
	}
	if desc, ok := d.described(id); ok {
		shown := desc.Address
		if desc.Protocol != "" {
			shown += " (" + desc.Protocol + ")"
		}
		if shown != strings.TrimSpace(string(b)) {
			_ = d.writeSmall(path, []byte(shown))
		}
	}
}

// address is what id was written down as, for a person.
func (d *Dir) address(id string) string {
	if id == unknownDest {
		return "a collector an earlier cursor-otel did not write down"
	}
	desc, ok := d.described(id)
	switch {
	case !ok:
		return "a collector no longer written down"
	case desc.Protocol == "":
		return desc.Address
	}
	return desc.Address + " (" + desc.Protocol + ")"
}

// differs says, in words, what differs between the destination id and
// to, today's: the headers (by name), the client certificate. The
// address and protocol are said apart.
func (d *Dir) differs(id string, to Destination) []string {
	desc, ok := d.described(id)
	key, _ := d.key(false)
	if id == unknownDest || !ok || key == nil {
		return nil
	}
	if desc.earlier {
		return []string{"headers or a client certificate an earlier cursor-otel did not write down"}
	}
	now := describe(key, to)
	var out []string
	var other, unset, missing []string
	for _, name := range slices.Sorted(maps.Keys(desc.Headers)) {
		v, set := now.Headers[name]
		switch {
		case !set:
			unset = append(unset, name)
		case v != desc.Headers[name]:
			other = append(other, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(now.Headers)) {
		if _, was := desc.Headers[name]; !was {
			missing = append(missing, name)
		}
	}
	if len(other) > 0 {
		out = append(out, "other values of "+strings.Join(other, ", "))
	}
	if len(unset) > 0 {
		out = append(out, strings.Join(unset, ", ")+" (not set today)")
	}
	if len(missing) > 0 {
		out = append(out, "no "+strings.Join(missing, ", ")+" (set today)")
	}
	switch {
	case desc.Certificate != "" && now.Certificate == "":
		out = append(out, "a client certificate (none set today)")
	case desc.Certificate == "" && now.Certificate != "":
		out = append(out, "no client certificate (one set today)")
	case desc.Certificate != now.Certificate:
		out = append(out, "another client certificate")
	}
	return out
}

// Waiting is how many sessions wait for another destination than the
// one delivered to.
type Waiting struct {
	Address  string // where they were going, as shown: "http://host:4317 (grpc)"
	Sessions int
	// Differs says what else differs from today's destination, in words
	// that follow "with" ("other values of authorization"); none when only
	// the address or protocol does, or what differs was not written down.
	Differs []string
}

// Describe is the destination id, as records kept outside the parts
// carry it, waiting for another than to: where it was going and what
// differs (see Waiting).
func (d *Dir) Describe(id string, to Destination) Waiting {
	return Waiting{Address: d.address(id), Differs: d.differs(id, to)}
}
