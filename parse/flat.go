package parse

import (
	"encoding/binary"
	"math/bits"
	"time"
)

// Thinking deltas are most of a stream's lines (296 of the 334 lines of
// the real recordings), and each is one flat object of a few strings and
// a number. Such a line is read by the scanner here, in about a quarter of
// the full parse's time a line (perf, span-dense replay: 10.6% of samples
// for 85% of the lines, against 7.9% for the other 15%). It gives up on
// anything it is not sure of — another type, a key it does not know, an
// escape where a value is kept, a nested value, a number that is not
// plain digits — and the full parse reads the line instead, so the two
// always agree (FuzzFlatThinking).

// flatThinking decodes line as a *Thinking when it is a flat thinking
// object the scanner is sure of; ok is false otherwise.
func (l *lineDecoder) flatThinking(line []byte, num int) (ev *Thinking, ok bool) {
	if th, ok := l.deltaLine(line, num); ok {
		return th, true
	}
	s := flatScanner{b: line}
	if !s.byte('{') {
		return nil, false
	}
	var typ, subtype, session, modelCall, txt []byte
	var ts int64
	var hasTS, hasSession, hasModelCall, hasSubtype bool
	for more := true; more; {
		key, escaped, ok := s.str()
		if !ok || escaped || !s.byte(':') {
			return nil, false
		}
		if string(key) == "timestamp_ms" {
			if ts, ok = s.digits(); !ok {
				return nil, false
			}
			hasTS = true
			if more, ok = s.next(); !ok {
				return nil, false
			}
			continue
		}
		v, escaped, ok := s.str()
		if !ok {
			return nil, false
		}
		switch string(key) {
		case "type":
			typ = v
			if escaped || string(v) != "thinking" {
				return nil, false
			}
		case "subtype":
			subtype, hasSubtype = v, true
		case "session_id":
			session, hasSession = v, true
		case "model_call_id":
			modelCall, hasModelCall = v, true
		case "text":
			// Without content the text is not kept: its escapes need not
			// be read, only skipped.
			txt = v
			escaped = escaped && !l.noContent
		default:
			return nil, false
		}
		if escaped {
			return nil, false
		}
		if more, ok = s.next(); !ok {
			return nil, false
		}
	}
	if !s.end() || typ == nil {
		return nil, false
	}
	h := Header{Line: num, Type: "thinking"}
	if hasSubtype {
		h.Subtype = knownBytes(subtype)
	}
	if hasSession {
		h.SessionID = l.ids.sessionBytes(session)
	}
	if hasModelCall {
		h.ModelCallID = l.ids.modelCallBytes(modelCall)
	}
	if hasTS && ts > 0 {
		h.Time = time.UnixMilli(ts)
	}
	th := l.newThinking(h)
	if !l.noContent && txt != nil {
		th.Text = text(txt)
	}
	return th, true
}

// flatScanner reads a JSON object of strings and plain integers, no more.
type flatScanner struct {
	b []byte
	i int
}

// ws skips white space as JSON (and the full parser) has it.
func (s *flatScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// byte reads c after any white space.
func (s *flatScanner) byte(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string after any white space and returns its bytes between
// the quotes, as written; escaped says they hold a backslash. A backslash
// escapes the byte after it, so the string ends at the first quote after
// an even run of backslashes, as the full parser finds it. It looks at
// eight bytes a step (quoteOrBackslash): the strings are short (a thinking
// delta's text is 28 bytes in the bench's mix, an id 36), too short for
// bytes.IndexByte's set-up to pay, long enough for a byte loop to cost.
func (s *flatScanner) str() (v []byte, escaped, ok bool) {
	if !s.byte('"') {
		return nil, false, false
	}
	i := s.i
	for {
		for i+8 <= len(s.b) {
			m := quoteOrBackslash(binary.LittleEndian.Uint64(s.b[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		for i < len(s.b) && s.b[i] != '"' && s.b[i] != '\\' {
			i++
		}
		if i >= len(s.b) {
			return nil, false, false
		}
		if s.b[i] == '"' {
			v, s.i = s.b[s.i:i], i+1
			return v, escaped, true
		}
		escaped = true
		i += 2 // the backslash and the byte it escapes
	}
}

// quoteOrBackslash has the high bit set of each byte of w that is a quote
// or a backslash, and maybe of bytes after the first: the lowest set bit
// is the first such byte (a borrow runs only upwards).
func quoteOrBackslash(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b := w^(ones*'"'), w^(ones*'\\')
	return ((q-ones)&^q | (b-ones)&^b) & highs
}

// digits reads a positive integer of at most 18 digits, without a leading
// zero, after any white space; anything else is for the full parser.
func (s *flatScanner) digits() (int64, bool) {
	s.ws()
	start := s.i
	var n int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + int64(s.b[s.i]-'0')
		s.i++
	}
	if d := s.i - start; d == 0 || d > 18 || s.b[start] == '0' {
		return 0, false
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ' ', '\t', '\n', '\r':
		default:
			return 0, false // a fraction, an exponent, or not a number
		}
	}
	return n, true
}

// next reads what follows a value: a comma (more is true) or the
// object's closing brace.
func (s *flatScanner) next() (more, ok bool) {
	if s.byte(',') {
		return true, true
	}
	return false, s.byte('}')
}

// end says nothing but white space is left.
func (s *flatScanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// The layout cursor-agent writes a thinking delta in, key for key: such a
// line is matched against it, not scanned key by key (half the time).
const (
	deltaHead    = `{"type":"thinking","subtype":"delta","text":"`
	deltaSession = `,"session_id":"`
	deltaTime    = `,"timestamp_ms":`
)

// deltaLine decodes line as flatThinking does when it is a thinking delta
// written exactly as deltaHead, deltaSession and deltaTime lay out, with no
// escape in its session id (nor in its text, with content); ok is false
// for any other line, for flatThinking's scanner to read.
func (l *lineDecoder) deltaLine(line []byte, num int) (ev *Thinking, ok bool) {
	h, txt, ok := l.deltaHeader(line, num)
	if !ok {
		return nil, false
	}
	th := l.newThinking(h)
	if !l.noContent {
		th.Text = text(txt)
	}
	return th, true
}

// deltaHeader reads a line deltaLine reads, without making its event: its
// header and its text as written.
func (l *lineDecoder) deltaHeader(line []byte, num int) (h Header, txt []byte, ok bool) {
	if len(line) < len(deltaHead) || string(line[:len(deltaHead)]) != deltaHead {
		return Header{}, nil, false
	}
	s := flatScanner{b: line, i: len(deltaHead) - 1} // at the text's quote
	txt, escaped, ok := s.str()
	if !ok || escaped && !l.noContent || !s.literal(deltaSession) {
		return Header{}, nil, false
	}
	s.i-- // back to the id's quote
	session, escaped, ok := s.str()
	if !ok || escaped || !s.literal(deltaTime) {
		return Header{}, nil, false
	}
	ts, ok := s.digits()
	if !ok || !s.byte('}') || !s.end() {
		return Header{}, nil, false
	}
	h = Header{Line: num, Type: "thinking", Subtype: "delta", SessionID: l.ids.sessionBytes(session)}
	if ts > 0 {
		h.Time = time.UnixMilli(ts)
	}
	return h, txt, true
}

// literal reads lit, byte for byte, where the scanner is.
func (s *flatScanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}
