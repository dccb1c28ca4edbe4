package visible

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"go test ./...", "go test ./..."},
		{"two\nlines\tand a tab", "two\nlines\tand a tab"},
		{"printf '\x1b[2J\x1b[H'", `printf '\x1b[2J\x1b[H'`},
		{"\x1b]0;owned\x07title", `\x1b]0;owned\x07title`},
		{"progress 10%\rdone", `progress 10%\x0ddone`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"rm -rf \u202e/ txt.exe", `rm -rf \u202e/ txt.exe`},
		{"ünïcödé ✓", "ünïcödé ✓"},
		{"bad \xff utf-8", "bad \ufffd utf-8"},
	} {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Line("a\nb\tc\x1b"); got != `a\nb\tc\x1b` {
		t.Errorf("Line = %q", got)
	}
}

// Whatever the input, nothing that acts on a terminal comes out.
func FuzzText(f *testing.F) {
	f.Add("\x1b[2J")
	f.Add("ok \u202e \xc2\x9b")
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		for _, r := range out {
			if r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || acting(r) {
				t.Fatalf("Text(%q) = %q keeps %U", s, out, r)
			}
		}
		if !strings.Contains(s, "\\") && clean(s) && out != s {
			t.Fatalf("clean text changed")
		}
	})
}

func BenchmarkText(b *testing.B) {
	s := strings.Repeat("go test ./... -run TestX  ünïcödé\n", 64)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s)
	}
}
