package oneline

import "testing"

func TestJoin(t *testing.T) {
	for _, tt := range []struct {
		notes []string
		want  string
	}{
		{nil, ""},
		{[]string{"", " "}, ""},
		{[]string{"read stream.ndjson: line 3 \x1b]0;owned\x07\nnext"}, `cursor-otel: read stream.ndjson: line 3 \x1b]0;owned\x07\nnext`},
		{[]string{"cursor-otel: no collector reached at localhost:4317 (connection refused); 3 of 3 spans not exported"},
			"cursor-otel: no collector reached at localhost:4317 (connection refused); 3 of 3 spans not exported"},
		{[]string{"tracing fell behind the agent's output; 12.0 MB of it not traced", "", "cursor-otel: export to http://c:4317 failed: flush timed out; 5 of 9 spans not exported"},
			"cursor-otel: tracing fell behind the agent's output; 12.0 MB of it not traced; export to http://c:4317 failed: flush timed out; 5 of 9 spans not exported"},
	} {
		if got := Join(tt.notes...); got != tt.want {
			t.Errorf("Join(%q) = %q, want %q", tt.notes, got, tt.want)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{12: "12 bytes", 1500: "1.5 kB", 128_700_000: "128.7 MB", 2_500_000_000: "2.5 GB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 sessions"}, {1, "1 session"}, {2, "2 sessions"}} {
		if got := Count(tt.n, "session"); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
