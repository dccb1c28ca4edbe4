package parse

import "cmp"

// Merge combines what a tool call's start and its completion said of it:
// the start's arguments and names, the completion's results (its signal,
// exit status and counts where it gives them); whatever one left unsaid,
// the other's.
func (started ToolCall) Merge(done ToolCall) ToolCall {
	c := started
	c.Name = cmp.Or(started.Name, done.Name)
	c.Source = cmp.Or(started.Source, done.Source)
	c.MCPTool = cmp.Or(started.MCPTool, done.MCPTool)
	c.MCPServer = cmp.Or(started.MCPServer, done.MCPServer)
	if len(c.Args) == 0 {
		c.Args = done.Args
	}
	if done.Subagent != nil && c.Name == done.Name {
		// A subagent belongs to a task; a completion naming another tool
		// than its start does not make the started call one.
		sub := *done.Subagent
		if s := started.Subagent; s != nil {
			sub.ID, sub.Type = cmp.Or(s.ID, sub.ID), cmp.Or(s.Type, sub.Type)
			sub.Model, sub.Description = cmp.Or(s.Model, sub.Model), cmp.Or(s.Description, sub.Description)
		}
		c.Subagent = &sub
	}
	f, d := &c.Facts, done.Facts
	f.Command = cmp.Or(f.Command, d.Command)
	f.WorkingDir = cmp.Or(f.WorkingDir, d.WorkingDir)
	f.Path = cmp.Or(f.Path, d.Path)
	f.Pattern = cmp.Or(f.Pattern, d.Pattern)
	f.URL = cmp.Or(f.URL, d.URL)
	f.Query = cmp.Or(f.Query, d.Query)
	f.Signal = cmp.Or(d.Signal, f.Signal)
	for _, p := range []struct{ dst, src **int64 }{
		{&f.ExitCode, &d.ExitCode}, {&f.Lines, &d.Lines}, {&f.LinesAdded, &d.LinesAdded},
		{&f.LinesRemoved, &d.LinesRemoved}, {&f.Bytes, &d.Bytes}, {&f.OutputBytes, &d.OutputBytes},
		{&f.Files, &d.Files}, {&f.ExecutionMs, &d.ExecutionMs}, {&f.LocalExecMs, &d.LocalExecMs},
		{&f.HardTimeout, &d.HardTimeout},
	} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
	return c
}

// Merge is what subagentStart said (start), with what subagentStop adds:
// the stop's counts, and what the start left unsaid.
func (start SubagentFacts) Merge(stop SubagentFacts) SubagentFacts {
	start.Model = cmp.Or(start.Model, stop.Model)
	start.ParentConversationID = cmp.Or(start.ParentConversationID, stop.ParentConversationID)
	if start.ParallelWorker == nil {
		start.ParallelWorker = stop.ParallelWorker
	}
	start.MessageCount, start.ToolCallCount, start.LoopCount = stop.MessageCount, stop.ToolCallCount, stop.LoopCount
	return start
}
