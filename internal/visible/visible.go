// Package visible keeps text from a recording from acting on a terminal:
// control characters (an escape sequence that clears the screen or
// retitles the window, a bell, a carriage return that hides what came
// before it) are shown as the escapes a Go string would use.
package visible

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text returns s with each control character but tab and line feed
// written as \xNN, and C1 controls (U+0080–U+009F) and the Unicode
// bidirectional overrides as \uNNNN; invalid UTF-8 reads U+FFFD. Text with
// none is returned as it is.
func Text(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r < 0x20 && r != '\t' && r != '\n', r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
		case acting(r):
			b.WriteString(strings.TrimPrefix(strconv.QuoteRuneToASCII(r), "'")[:6])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Line is Text on one line: line feeds and tabs are written as \n and \t
// too.
func Line(s string) string {
	s = Text(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(s)
}

// clean says s is valid UTF-8 with nothing to write otherwise: the common
// case, checked without allocating.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			for _, r := range s[i:] {
				if r == utf8.RuneError || acting(r) || r < 0x20 && r != '\t' && r != '\n' || r == 0x7f {
					return false
				}
			}
			return utf8.ValidString(s[i:])
		}
	}
	return true
}

// acting says r is a C1 control or a bidirectional override or isolate,
// which reorders what a reader sees (a command shown other than it runs).
func acting(r rune) bool {
	return 0x80 <= r && r <= 0x9f || 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}
