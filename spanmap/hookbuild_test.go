package spanmap

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/parse"
)

// journalEvent is a hook event of a scripted conversation: its JSON, and
// when its hook process wrote it.
type journalEvent struct {
	at   time.Duration // after the conversation's start
	line string
}

var buildT0 = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

func hookLine(event, gen, rest string) string {
	line := fmt.Sprintf(`{"hook_event_name":%q,"conversation_id":"c","generation_id":%q,"model":"m"`, event, gen)
	if rest != "" {
		line += "," + rest
	}
	return line + "}"
}

func toolLine(event, gen, id, command string) string {
	rest := fmt.Sprintf(`"tool_name":"Shell","tool_input":{"command":%q},"tool_use_id":%q`, command, id)
	if event != "preToolUse" {
		rest += `,"duration":5,"tool_output":"{\"exitCode\":0}"`
	}
	if event == "postToolUseFailure" {
		rest += `,"failure_type":"error"`
	}
	return hookLine(event, gen, rest)
}

// entriesOf decodes a script into journal entries.
func entriesOf(t testing.TB, script []journalEvent) []parse.HookEntry {
	t.Helper()
	var out []parse.HookEntry
	for _, e := range script {
		ev, err := parse.DecodeHook([]byte(e.line))
		if err != nil {
			t.Fatalf("%s: %v", e.line, err)
		}
		out = append(out, parse.HookEntry{At: buildT0.Add(e.at), Dest: "d", Event: ev})
	}
	return out
}

// buildUntilDone builds the journal as the delivery does, in rounds at
// the given times (the state read back between them, the entries used
// taken out), and returns every record.
func buildUntilDone(t testing.TB, h *Hooks, entries []parse.HookEntry, rounds ...time.Time) []spanRecord {
	t.Helper()
	var st HookState
	var records []spanRecord
	for _, now := range rounds {
		reload(t, &st)
		b := h.Build(&st, entries, now)
		records = append(records, b.records()...)
		entries = unused(t, entries, b.Used)
	}
	return records
}

// unused are the entries a build did not use: what the journal keeps.
func unused(t testing.TB, entries []parse.HookEntry, used []int) []parse.HookEntry {
	t.Helper()
	taken := map[int]bool{}
	for _, i := range used {
		if taken[i] {
			t.Fatalf("entry %d used twice in one build", i)
		}
		taken[i] = true
	}
	var left []parse.HookEntry
	for i, e := range entries {
		if !taken[i] {
			left = append(left, e)
		}
	}
	return left
}

// turnFacts checks what a person would notice of built turns, and
// counts them: no span twice, one root a trace, every parent in its
// trace, every span within its parent.
type turnFacts struct {
	traces, tools, failed, incomplete, outside int
}

func checkBuilt(t testing.TB, records []spanRecord) turnFacts {
	t.Helper()
	var f turnFacts
	made := map[trace.SpanID]spanRecord{}
	roots := map[trace.TraceID]int{}
	for _, r := range records {
		if was, ok := made[r.SpanID]; ok {
			t.Fatalf("span %s made twice: %s, then %s", r.SpanID, was.Name, r.Name)
		}
		made[r.SpanID] = r
		if !r.Parent.IsValid() {
			roots[r.TraceID]++
		}
		if r.End.Before(r.Start) {
			t.Fatalf("%s ends %v before it starts", r.Name, r.Start.Sub(r.End))
		}
	}
	for _, r := range records {
		if n := roots[r.TraceID]; n != 1 {
			t.Fatalf("%s's trace has %d roots", r.Name, n)
		}
		if r.Parent.IsValid() {
			p, ok := made[r.Parent]
			if !ok || p.TraceID != r.TraceID {
				t.Fatalf("%s's parent %s is not in its trace", r.Name, r.Parent)
			}
			if r.Start.Before(p.Start) || r.End.After(p.End) {
				f.outside++
			}
		}
		if strings.HasPrefix(r.Name, "execute_tool") {
			f.tools++
			switch Value(r.Attrs, ToolOutcome).AsString() {
			case OutcomeIncomplete:
				f.incomplete++
			case OutcomeError:
				f.failed++
			}
		}
	}
	f.traces = len(roots)
	return f
}

// The orders in which Cursor's hook processes may deliver a turn's
// events: whatever the order, each turn is one trace with its root,
// each tool one span, every completed tool a success, every span within
// its parent.
func TestBuildWhateverTheOrder(t *testing.T) {
	parallel := func(n int, before, stop, after func(i int) time.Duration, failure bool) []journalEvent {
		s := []journalEvent{{0, hookLine("beforeSubmitPrompt", "g1", "")}}
		for i := range n {
			id, cmd := fmt.Sprintf("t%d", i), fmt.Sprintf("go test ./pkg%d", i)
			end := "postToolUse"
			if failure {
				end = "postToolUseFailure"
			}
			s = append(s, journalEvent{before(i), toolLine("preToolUse", "g1", id, cmd)}, journalEvent{after(i), toolLine(end, "g1", id, cmd)})
		}
		status := "completed"
		if failure {
			status = "aborted"
		}
		return append(s, journalEvent{stop(0), hookLine("stop", "g1", `"status":"`+status+`"`)})
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	cases := []struct {
		name   string
		script []journalEvent
		want   turnFacts
	}{
		{"after-hooks 20 tool ends before their before-hooks",
			parallel(20, func(i int) time.Duration { return ms(500 + i) }, func(int) time.Duration { return ms(900) }, func(i int) time.Duration { return ms(10 + i) }, false),
			turnFacts{traces: 1, tools: 20}},
		{"20 before-hooks, the stop, then 20 after-hooks",
			parallel(20, func(i int) time.Duration { return ms(10 + i) }, func(int) time.Duration { return ms(100) }, func(i int) time.Duration { return ms(200 + i) }, false),
			turnFacts{traces: 1, tools: 20}},
		{"a user cancelling 20 parallel calls: the stop aborted, then 20 failures",
			parallel(20, func(i int) time.Duration { return ms(10 + i) }, func(int) time.Duration { return ms(100) }, func(i int) time.Duration { return ms(200 + i) }, true),
			turnFacts{traces: 1, tools: 20, failed: 20}},
		{"an event of generation 2 before turn 1's stop", []journalEvent{
			{0, hookLine("beforeSubmitPrompt", "g1", "")},
			{ms(10), toolLine("preToolUse", "g1", "a", "ls")},
			{ms(20), toolLine("postToolUse", "g1", "a", "ls")},
			{ms(30), hookLine("beforeSubmitPrompt", "g2", "")},
			{ms(40), toolLine("preToolUse", "g2", "b", "ls")},
			{ms(50), hookLine("stop", "g1", `"status":"completed"`)},
			{ms(60), toolLine("postToolUse", "g2", "b", "ls")},
			{ms(70), hookLine("stop", "g2", `"status":"completed"`)},
		}, turnFacts{traces: 2, tools: 2}},
		{"the same command twice in one turn", []journalEvent{
			{0, hookLine("beforeSubmitPrompt", "g1", "")},
			{ms(10), toolLine("preToolUse", "g1", "a", "go test ./...")},
			{ms(20), toolLine("postToolUse", "g1", "a", "go test ./...")},
			{ms(30), toolLine("preToolUse", "g1", "b", "go test ./...")},
			{ms(40), toolLine("postToolUse", "g1", "b", "go test ./...")},
			{ms(50), hookLine("stop", "g1", `"status":"completed"`)},
		}, turnFacts{traces: 1, tools: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := NewHooks(context.Background(), nil, Options{})
			entries := entriesOf(t, c.script)
			// Built as the delivery does: once a while after the stop.
			records := buildUntilDone(t, h, entries, buildT0.Add(time.Second), buildT0.Add(time.Minute))
			if got := checkBuilt(t, records); got != c.want {
				t.Errorf("got %+v; want %+v", got, c.want)
			}
		})
	}
}

// A turn is built once its grace has passed after its stop, not before:
// an after-hook still finishing then is in it.
func TestBuildWaitsForTheGrace(t *testing.T) {
	h := NewHooks(context.Background(), nil, Options{})
	entries := entriesOf(t, []journalEvent{
		{0, hookLine("beforeSubmitPrompt", "g1", "")},
		{time.Millisecond, toolLine("preToolUse", "g1", "a", "ls")},
		{10 * time.Millisecond, hookLine("stop", "g1", `"status":"completed"`)},
	})
	var st HookState
	b := h.Build(&st, entries, buildT0.Add(HookGrace/2))
	if len(b.records()) != 0 || len(b.Used) != 0 {
		t.Fatalf("built %d spans within the grace; want none", len(b.records()))
	}
	if want := buildT0.Add(10*time.Millisecond + HookGrace); !b.Again.Equal(want) {
		t.Errorf("again at %v; want %v, the grace's end", b.Again, want)
	}
	entries = append(entries, entriesOf(t, []journalEvent{{HookGrace / 2, toolLine("postToolUse", "g1", "a", "ls")}})...)
	b = h.Build(&st, entries, buildT0.Add(time.Minute))
	f := checkBuilt(t, b.records())
	if f != (turnFacts{traces: 1, tools: 1}) || len(b.Used) != 4 {
		t.Errorf("got %+v using %d entries; want the turn whole, its tool a success, every entry used", f, len(b.Used))
	}
	// Late: after its turn was built, an event is used and makes nothing.
	late := entriesOf(t, []journalEvent{{2 * time.Minute, toolLine("postToolUse", "g1", "z", "ls")}})
	if b = h.Build(&st, late, buildT0.Add(time.Hour)); len(b.records()) != 0 || b.Late != 1 || len(b.Used) != 1 {
		t.Errorf("a late event made %d spans, late %d, used %d; want none, 1, 1", len(b.records()), b.Late, len(b.Used))
	}
}

// Any order of arrival, built at any moments: each turn whole, once.
func FuzzHookJournal(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(4), uint8(50))
	f.Add(uint64(7), uint8(1), uint8(20), uint8(200))
	f.Add(uint64(42), uint8(5), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, seed uint64, turns, tools, jitter uint8) {
		turns, tools = turns%6+1, tools%24
		rng := rand.New(rand.NewPCG(seed, 0))
		var script []journalEvent
		at := time.Duration(0)
		// Each turn's events, written by processes that start a little
		// apart and may overtake one another by up to jitter ms.
		shake := func(d time.Duration) time.Duration {
			if jitter == 0 {
				return d
			}
			return max(0, d+time.Duration(rng.IntN(int(jitter)))*time.Millisecond)
		}
		for n := range int(turns) {
			gen := fmt.Sprintf("g%d", n)
			script = append(script, journalEvent{shake(at), hookLine("beforeSubmitPrompt", gen, "")})
			for i := range int(tools) {
				id := fmt.Sprintf("t%d-%d", n, i)
				cmd := fmt.Sprintf("make %d", rng.IntN(3)) // the same command, often
				script = append(script, journalEvent{shake(at + time.Millisecond), toolLine("preToolUse", gen, id, cmd)},
					journalEvent{shake(at + 5*time.Millisecond), toolLine("postToolUse", gen, id, cmd)})
			}
			script = append(script, journalEvent{shake(at + 10*time.Millisecond), hookLine("stop", gen, `"status":"completed"`)})
			at += 20 * time.Millisecond
		}
		entries := entriesOf(t, script)
		rng.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
		var rounds []time.Time
		for r := time.Duration(0); r < time.Second; r += time.Duration(rng.IntN(400)) * time.Millisecond {
			rounds = append(rounds, buildT0.Add(r))
		}
		rounds = append(rounds, buildT0.Add(time.Minute))
		records := buildUntilDone(t, NewHooks(context.Background(), nil, Options{}), entries, rounds...)
		got := checkBuilt(t, records)
		want := turnFacts{traces: int(turns), tools: int(turns) * int(tools)}
		if got != want {
			t.Fatalf("got %+v; want %+v", got, want)
		}
		for _, r := range records {
			if r.Name == RootName && r.Status == codes.Error {
				t.Fatalf("a turn's root is %s: %s", r.Status, r.Message)
			}
		}
	})
}
