package agent

import (
	"slices"
	"testing"
)

// The prompt's words are found wherever the command line puts them, and
// nothing else is taken for one: option values, subcommands, "agent".
func TestPromptWords(t *testing.T) {
	tests := []struct {
		args []string
		want []int
	}{
		{[]string{"-p", "fix it"}, []int{1}},
		{[]string{"-p", "--model", "gpt-5", "fix", "the", "bug"}, []int{3, 4, 5}},
		{[]string{"agent", "-p", "--output-format=stream-json", "fix it"}, []int{3}},
		{[]string{"-p", "--api-key", "k", "--", "-starts with a dash"}, []int{4}},
		{[]string{"-pm", "gpt-5", "hello"}, []int{2}},
		{[]string{"--resume", "chat-1", "-p", "go on"}, []int{3}},
		{[]string{"mcp", "list"}, nil},
		{[]string{"-p"}, nil},
	}
	for _, tt := range tests {
		if got := Parse(tt.args).Prompt; !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q).Prompt = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// The conversation a command line resumes is read as cursor-agent reads
// it: the next word unless it is an option, or after "=".
func TestResume(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--resume", "chat-1", "-p", "go on"}, "chat-1"},
		{[]string{"-p", "--resume=chat-2", "go on"}, "chat-2"},
		{[]string{"--resume", "-p", "go on"}, ""},
		{[]string{"-p", "go on"}, ""},
	} {
		if got := Parse(tt.args).Resume; got != tt.want {
			t.Errorf("Parse(%q).Resume = %q, want %q", tt.args, got, tt.want)
		}
	}
}
