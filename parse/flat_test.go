package parse

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"
)

// decodeBoth decodes line with the flat scanner and with the full parse,
// each by a fresh decoder; taken says the scanner took it.
func decodeBoth(line []byte, noContent bool) (flat, full Event, taken bool) {
	fast := lineDecoder{noContent: noContent}
	slow := lineDecoder{noContent: noContent}
	trimmed := bytes.TrimLeft(line, " \t\r\ufeff")
	full = slow.full(line, trimmed, 7)
	if th, ok := fast.flatThinking(trimmed, 7); ok {
		return th, full, true
	}
	return nil, full, false
}

// The scanner takes the thinking lines cursor-agent writes, in either key
// order, and gives up on the rest; where it takes a line, the event is the
// full parse's, with and without content.
func TestFlatThinkingAgreesWithTheFullParse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		line  string
		taken bool // with content; without it, see takenNoContent
		// takenNoContent differs from taken only for escaped text.
		takenNoContent bool
	}{
		{"cursor-agent's order", `{"type":"thinking","subtype":"delta","text":" the","session_id":"d430","timestamp_ms":1770823841542}`, true, true},
		{"sorted keys", `{"session_id":"s","subtype":"delta","text":"x","timestamp_ms":1790000001200,"type":"thinking"}`, true, true},
		{"completed, no text", `{"type":"thinking","subtype":"completed","session_id":"s","timestamp_ms":5}`, true, true},
		{"model call id", `{"type":"thinking","subtype":"delta","text":"x","model_call_id":"m1","session_id":"s"}`, true, true},
		{"white space everywhere", " {\t\"type\" : \"thinking\" ,\r\"text\":\"a\" , \"timestamp_ms\" : 12 }\r ", true, true},
		{"no subtype", `{"type":"thinking","text":"a"}`, true, true},
		{"empty text", `{"type":"thinking","text":""}`, true, true},
		{"escaped quote and backslash in text", `{"type":"thinking","text":"say \"hi\" \\","session_id":"s"}`, false, true},
		{"unicode escape in text", `{"type":"thinking","text":"\u00e9\ud83d\ude00"}`, false, true},
		{"invalid UTF-8 in text", "{\"type\":\"thinking\",\"text\":\"a\xffb\"}", true, true},
		{"invalid UTF-8 in session id", "{\"type\":\"thinking\",\"session_id\":\"s\xfe\"}", true, true},
		{"new subtype", `{"type":"thinking","subtype":"summary","text":"a"}`, true, true},
		{"escaped session id", `{"type":"thinking","session_id":"s\u0031"}`, false, false},
		{"escaped type", `{"type":"thinkin\u0067","text":"a"}`, false, false},
		{"escaped key", `{"typ\u0065":"thinking","text":"a"}`, false, false},
		{"another type", `{"type":"assistant","text":"a"}`, false, false},
		{"type last, another type", `{"text":"a","type":"assistant"}`, false, false},
		{"no type", `{"subtype":"delta","text":"a"}`, false, false},
		{"type twice", `{"type":"thinking","type":"user"}`, false, false},
		{"text twice", `{"type":"thinking","text":"a","text":"b"}`, true, true},
		{"unknown key", `{"type":"thinking","text":"a","extra":"b"}`, false, false},
		{"nested content", `{"type":"thinking","content":[{"type":"text","text":"a"}]}`, false, false},
		{"payload", `{"type":"thinking","payload":{"session_id":"s"}}`, false, false},
		{"float timestamp", `{"type":"thinking","timestamp_ms":1.5e3}`, false, false},
		{"string timestamp", `{"type":"thinking","timestamp_ms":"1500"}`, false, false},
		{"negative timestamp", `{"type":"thinking","timestamp_ms":-1}`, false, false},
		{"leading zero", `{"type":"thinking","timestamp_ms":0123}`, false, false},
		{"zero timestamp", `{"type":"thinking","timestamp_ms":0}`, false, false},
		{"19 digits", `{"type":"thinking","timestamp_ms":1234567890123456789}`, false, false},
		{"number text", `{"type":"thinking","text":5}`, false, false},
		{"null subtype", `{"type":"thinking","subtype":null}`, false, false},
		{"trailing garbage", `{"type":"thinking","text":"a"}x`, false, false},
		{"two objects", `{"type":"thinking"}{"type":"thinking"}`, false, false},
		{"unterminated string", `{"type":"thinking","text":"a`, false, false},
		{"missing brace", `{"type":"thinking","text":"a"`, false, false},
		{"trailing comma", `{"type":"thinking","text":"a",}`, false, false},
		{"missing colon", `{"type":"thinking","text" "a"}`, false, false},
		{"empty object", `{}`, false, false},
	} {
		for _, noContent := range []bool{false, true} {
			want := tc.taken
			if noContent {
				want = tc.takenNoContent
			}
			flat, full, taken := decodeBoth([]byte(tc.line), noContent)
			if taken != want {
				t.Errorf("%s (without content: %v): scanner took it: %v, want %v", tc.name, noContent, taken, want)
			}
			if taken && !reflect.DeepEqual(flat, full) {
				t.Errorf("%s (without content: %v):\nscanner   %#v\nfull parse %#v", tc.name, noContent, flat, full)
			}
		}
	}
}

// Ids repeated line after line are one string, whichever way a line was
// read.
func TestFlatThinkingKeepsIdsOnce(t *testing.T) {
	var l lineDecoder
	lines := []string{
		`{"type":"thinking","subtype":"delta","text":"a","session_id":"s-1","model_call_id":"m-1"}`,
		`{"type":"assistant","session_id":"s-1","model_call_id":"m-1","message":{"content":[]}}`,
		`{"type":"thinking","subtype":"delta","text":"b","session_id":"s-1","model_call_id":"m-1"}`,
	}
	var heads []*Header
	for i, line := range lines {
		heads = append(heads, l.decode([]byte(line), i+1).Head())
	}
	for _, h := range heads[1:] {
		if h.SessionID != "s-1" || h.ModelCallID != "m-1" ||
			unsafeData(h.SessionID) != unsafeData(heads[0].SessionID) || unsafeData(h.ModelCallID) != unsafeData(heads[0].ModelCallID) {
			t.Errorf("line %d: ids %q %q not the first line's strings", h.Line, h.SessionID, h.ModelCallID)
		}
	}
}

// unsafeData is where a string's bytes are: two strings that share them
// are one copy.
func unsafeData(s string) *byte { return unsafe.StringData(s) }

// Every thinking line of the real recordings is read by the scanner
// (with content, those whose text has an escape are left to the full
// parse): were it to give up on them, replay would lose much of its speed
// unseen.
func TestFlatThinkingTakesRealThinkingLines(t *testing.T) {
	paths, _ := filepath.Glob("../../shared/fixtures/real/*.ndjson")
	if len(paths) == 0 {
		t.Skip("../shared/fixtures/real not present")
	}
	var thinking, escaped, taken, takenNoContent int
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(b) {
			line = bytes.TrimRight(line, "\r\n")
			if !bytes.Contains(line, []byte(`"type":"thinking"`)) {
				continue
			}
			thinking++
			if bytes.IndexByte(line, '\\') >= 0 {
				escaped++
			}
			for _, noContent := range []bool{false, true} {
				flat, full, ok := decodeBoth(line, noContent)
				switch {
				case ok && !reflect.DeepEqual(flat, full):
					t.Errorf("%s: scanner %#v, full parse %#v", filepath.Base(path), flat, full)
				case ok && noContent:
					takenNoContent++
				case ok:
					taken++
				}
			}
		}
	}
	if thinking == 0 || takenNoContent != thinking || taken != thinking-escaped {
		t.Errorf("scanner took %d of %d thinking lines without content, %d with it (%d have escapes)", takenNoContent, thinking, taken, escaped)
	}
}

// Wherever the scanner takes a line, the event is the full parse's.
func FuzzFlatThinking(f *testing.F) {
	seedCorpus(f, true)
	f.Add([]byte(`{"type":"thinking","subtype":"delta","text":"a\\\"b","session_id":"s","timestamp_ms":17}`))
	f.Add([]byte("{\"session_id\":\"s\xff\",\"subtype\":\"completed\",\"timestamp_ms\":9,\"type\":\"thinking\"}"))
	// cursor-agent's own layout (deltaLine), and near misses of it.
	f.Add([]byte(`{"type":"thinking","subtype":"delta","text":" need","session_id":"d43015b9-0707","timestamp_ms":1770823841605}`))
	f.Add([]byte(`{"type":"thinking","subtype":"delta","text":"**\n\nI","session_id":"d4","timestamp_ms":1770823841598 } `))
	f.Add([]byte(`{"type":"thinking","subtype":"delta","text":"a","session_id":"d\u0034","timestamp_ms":0}`))
	f.Add([]byte(`{"type":"thinking","subtype":"delta","text":"a","session_id":"d4","timestamp_ms":17,"x":1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, noContent := range []bool{false, true} {
			flat, full, taken := decodeBoth(line, noContent)
			if taken && !reflect.DeepEqual(flat, full) {
				t.Fatalf("without content: %v\nscanner   %#v\nfull parse %#v", noContent, flat, full)
			}
		}
	})
}

// str ends a string where a byte-at-a-time reading does, whatever the
// quotes, backslashes and high bytes and wherever they fall against its
// eight-byte steps: every string of up to 11 bytes from them and a letter.
func TestStrEndsWhereAByteLoopDoes(t *testing.T) {
	alphabet := []byte{'a', '"', '\\', 0xa2}
	byteLoop := func(b []byte) (end int, escaped bool) {
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '"':
				return i, escaped
			case '\\':
				escaped = true
				i++
			}
		}
		return -1, false
	}
	tried := 0
	for n := 0; n <= 11; n++ {
		body := make([]byte, n)
		for code := 0; code < 1<<(2*n); code++ {
			for i := range body {
				body[i] = alphabet[code>>(2*i)&3]
			}
			line := append(append([]byte{'"'}, body...), 'x', 'y')
			s := flatScanner{b: line}
			v, escaped, ok := s.str()
			end, wantEscaped := byteLoop(line[1:])
			if ok != (end >= 0) || ok && (len(v) != end || escaped != wantEscaped || s.i != end+2) {
				t.Fatalf("%q: str gave %q escaped %v ok %v next %d; a byte loop ends at %d, escaped %v", line, v, escaped, ok, s.i, end, wantEscaped)
			}
			tried++
		}
	}
	if tried != 5592405 {
		t.Fatalf("tried %d strings", tried)
	}
}

// cursor-agent's own layout of a thinking delta is matched whole
// (deltaLine), with and without content, and gives the full parse's event;
// a line off the layout is left to the scanner.
func TestDeltaLineMatchesCursorsLayout(t *testing.T) {
	for _, tc := range []struct {
		line        string
		matched     bool // with content
		matchedNone bool // without
	}{
		{`{"type":"thinking","subtype":"delta","text":" need","session_id":"d430","timestamp_ms":1770823841605}`, true, true},
		{`{"type":"thinking","subtype":"delta","text":"**\n\nI","session_id":"d430","timestamp_ms":1770823841598}  `, false, true},
		{`{"type":"thinking","subtype":"delta","text":"x","session_id":"d430","timestamp_ms":17,"model_call_id":"m"}`, false, false},
		{`{"type":"thinking","subtype":"delta","text":"x","timestamp_ms":17,"session_id":"d430"}`, false, false},
	} {
		for _, noContent := range []bool{false, true} {
			l := lineDecoder{noContent: noContent}
			got, ok := l.deltaLine([]byte(tc.line), 7)
			if want := tc.matched || noContent && tc.matchedNone; ok != want {
				t.Errorf("%s, without content %v: matched %v, want %v", tc.line, noContent, ok, want)
			}
			if _, full, _ := decodeBoth([]byte(tc.line), noContent); ok && !reflect.DeepEqual(Event(got), full) {
				t.Errorf("%s: %#v, the full parse %#v", tc.line, got, full)
			}
		}
	}
}
