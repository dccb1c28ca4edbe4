package parse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolCallMerge(t *testing.T) {
	one, two := int64(1), int64(2)
	cases := []struct {
		name          string
		started, done ToolCall
		want          ToolCall
	}{
		{"the start's names and arguments win",
			ToolCall{ID: "c", Name: "shell", Args: `{"command":"ls"}`},
			ToolCall{ID: "c", Name: "edit", Source: "Shell", Args: `{}`},
			ToolCall{ID: "c", Name: "shell", Source: "Shell", Args: `{"command":"ls"}`}},
		{"the completion's results fill what the start left unsaid",
			ToolCall{Name: "shell", Facts: Facts{Command: "ls", ExitCode: &one}},
			ToolCall{Name: "shell", Facts: Facts{Command: "rm", ExitCode: &two, Signal: "SIGINT", Lines: &one}},
			ToolCall{Name: "shell", Facts: Facts{Command: "ls", ExitCode: &two, Signal: "SIGINT", Lines: &one}}},
		{"a subagent belongs to the task that started it",
			ToolCall{Name: "task", Subagent: &Subagent{Type: "explore"}},
			ToolCall{Name: "task", Subagent: &Subagent{ID: "a1", Type: "general", Model: "m"}},
			ToolCall{Name: "task", Subagent: &Subagent{ID: "a1", Type: "explore", Model: "m"}}},
		{"a completion naming another tool makes no subagent",
			ToolCall{Name: "read"},
			ToolCall{Name: "task", Subagent: &Subagent{ID: "a1"}},
			ToolCall{Name: "read"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, c.started.Merge(c.done)); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSubagentFactsMerge(t *testing.T) {
	yes, n := true, int64(7)
	start := SubagentFacts{ToolCallID: "t1", Model: "fast", MessageCount: &n}
	stop := SubagentFacts{Model: "slow", ParentConversationID: "p", ParallelWorker: &yes, ToolCallCount: &n}
	want := SubagentFacts{ToolCallID: "t1", Model: "fast", ParentConversationID: "p", ParallelWorker: &yes, ToolCallCount: &n}
	if diff := cmp.Diff(want, start.Merge(stop)); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
}
