package parse

import (
	"testing"
	"time"
)

func TestBetterModel(t *testing.T) {
	cases := []struct {
		known string
		said  []string
		want  string
	}{
		{"", []string{"", "gpt-5"}, "gpt-5"},
		{"default", []string{"claude-4"}, "claude-4"},
		{"", []string{"default"}, "default"},
		{"claude-4", []string{"gpt-5"}, "claude-4"}, // the model that ran is kept
		{"default", []string{"default", ""}, "default"},
	}
	for _, c := range cases {
		if got := BetterModel(c.known, c.said...); got != c.want {
			t.Errorf("BetterModel(%q, %q) = %q, want %q", c.known, c.said, got, c.want)
		}
	}
}

func TestShellKey(t *testing.T) {
	shell := &ToolCall{Name: "shell", Facts: Facts{Command: "go test"}}
	after := HookEvent{Name: HookAfterShell, Tool: shell, Duration: 1500 * time.Millisecond}
	post := HookEvent{Name: HookPostToolUse, Tool: shell, Duration: 1500 * time.Millisecond}
	if after.ShellKey() == "" || after.ShellKey() != post.ShellKey() {
		t.Errorf("one shell call told twice has keys %q and %q, want one", after.ShellKey(), post.ShellKey())
	}
	for _, ev := range []HookEvent{
		{Name: HookPreToolUse, Tool: shell},
		{Name: HookPostToolUse, Tool: &ToolCall{Name: "read", Facts: Facts{Command: "go test"}}},
		{Name: HookPostToolUse, Tool: &ToolCall{Name: "shell"}},
	} {
		if k := ev.ShellKey(); k != "" {
			t.Errorf("%s of %s has shell key %q, want none", ev.Name, ev.Tool.Name, k)
		}
	}
}

func TestTextDigest(t *testing.T) {
	d := TextDigest("a thought")
	switch {
	case !IsTextDigest(d) || IsTextDigest("a thought"):
		t.Errorf("IsTextDigest tells %q from its text wrongly", d)
	case d == TextDigest("another thought"):
		t.Error("two texts have one digest")
	case TextDigest(d) != d:
		t.Errorf("a digest's digest is %q, want itself %q", TextDigest(d), d)
	}
}
