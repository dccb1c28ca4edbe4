package spanmap

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cursor-otel/cursor-otel/parse"
)

// A new source is only a reader: it turns its own input into parse.Event
// values and hands them to the one turn builder (NewStream, Record,
// Finish), as the stream reader does. It knows nothing of spans: opening
// the turn, model calls, tools, waits, closing what was left open,
// totals, cost, thinking and emitting are the builder's. This file proves
// it with a toy format and the onetree conversation (onetree_test.go).

// toyConversation is testdata/onetree told in the toy format, one turn a
// paragraph (each a run of its own, as the stream's two recordings are).
// A line is "<seconds> <verb> <words…>": seconds after toyEpoch, or "-"
// for a line the agent gave no time. The verbs:
//
//	open <session> <model> <cwd>       a turn starts
//	prompt <text>                      what the person asked
//	think <text> / thought             thinking, and its end
//	say <call> <text>                  the model call <call> speaks
//	start <call> <id> shell <dir> <command…>
//	start <call> <id> <tool> <path>    a tool call starts (read, edit)
//	end <call> <id> <outcome> [k=n…]   it ends: exit, out, lines, bytes, added, removed
//	ask <call> <id> <path>             the person is asked to allow <path>
//	answer <call> <id> <outcome>       and answers
//	done <in> <out> <cache-read> <cache-write>   the turn's usage
const toyConversation = `
- open conv-one claude-4.6-sonnet /work/app
- prompt The queue tests fail, fix them
0.100 think Run the tests first.
0.400 thought
0.500 say m1-0 Running the tests.
0.510 start m1-0 t-test shell /work/app go test ./...
2.811 end m1-0 t-test error exit=1 out=19
2.900 start m1-0 t-read read /work/app/queue.go
2.916 end m1-0 t-read success lines=40 bytes=812
3.500 say m1-0 Drain stops one item early; the fix is in queue.go.
- done 1200 300 5000 0

- open conv-one claude-4.6-sonnet /work/app
- prompt Apply it
60.500 say m2-0 Editing queue.go.
60.510 start m2-0 t-edit edit /work/app/queue.go
60.520 ask m2-0 4 /work/app/queue.go
64.520 answer m2-0 4 approved
64.601 end m2-0 t-edit success added=1 removed=1
64.700 start m2-0 t-rerun shell /work/app go test ./pkg/queue
- done 800 200 3000 0
`

// toyEpoch is the toy's time zero: the stream recordings' first second.
var toyEpoch = time.UnixMilli(1790000000000)

// readToy is the toy source's reader: each line of one run becomes a
// parse.Event, recorded by the builder; the run's end finishes it.
func readToy(b *Stream, run string) error {
	session := ""
	for n, line := range strings.Split(strings.TrimSpace(run), "\n") {
		ev, err := toyEvent(strings.Fields(line), &session)
		if err != nil {
			return fmt.Errorf("line %d: %v: %q", n+1, err, line)
		}
		h := ev.Head()
		h.Line, h.SessionID = n+1, session
		b.Record(ev, time.Time{}) // a replay: read at no time of its own, as the stream's
	}
	b.Finish(End{})
	return nil
}

// toyEvent is the event one line says; an open line sets the session.
func toyEvent(f []string, session *string) (parse.Event, error) {
	if len(f) < 2 {
		return nil, fmt.Errorf("no verb")
	}
	var at time.Time
	if f[0] != "-" {
		s, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return nil, err
		}
		at = toyEpoch.Add(time.Duration(s*1000+0.5) * time.Millisecond)
	}
	verb, args := f[1], f[2:]
	rest := func(i int) string { return strings.Join(args[min(i, len(args)):], " ") }
	call := func() parse.Header { return parse.Header{ModelCallID: args[0], Time: at} }
	switch {
	case verb == "open" && len(args) == 3:
		*session = args[0]
		return &parse.Init{Model: args[1], Cwd: args[2]}, nil
	case verb == "prompt":
		return &parse.Prompt{Text: rest(0)}, nil
	case verb == "think" || verb == "thought":
		return &parse.Thinking{Header: parse.Header{Time: at}, Text: rest(0), Done: verb == "thought"}, nil
	case verb == "say" && len(args) >= 1:
		return &parse.Assistant{Header: call(), Text: rest(1)}, nil
	case verb == "start" && len(args) >= 4:
		c := parse.ToolCall{ID: args[1], Name: args[2]}
		if c.Name == "shell" {
			c.Facts.WorkingDir, c.Facts.Command = args[3], rest(4)
		} else {
			c.Facts.Path = args[3]
		}
		return &parse.ToolStarted{Header: call(), Call: c}, nil
	case verb == "end" && len(args) >= 3:
		e := &parse.ToolCompleted{Header: call(), Call: parse.ToolCall{ID: args[1]}}
		e.Result.Outcome, e.Result.Kind = parse.Outcome(args[2]), args[2]
		facts := map[string]**int64{"exit": &e.Call.Facts.ExitCode, "out": &e.Call.Facts.OutputBytes,
			"lines": &e.Call.Facts.Lines, "bytes": &e.Call.Facts.Bytes,
			"added": &e.Call.Facts.LinesAdded, "removed": &e.Call.Facts.LinesRemoved}
		for _, kv := range args[3:] {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.ParseInt(v, 10, 64)
			if facts[k] == nil || err != nil {
				return nil, fmt.Errorf("not a fact: %s", kv)
			}
			*facts[k] = &n
		}
		return e, nil
	case verb == "ask" && len(args) == 3:
		return &parse.Interaction{Header: call(), Kind: "ask", ID: args[1], Path: args[2]}, nil
	case verb == "answer" && len(args) == 3:
		return &parse.Interaction{Header: call(), Kind: "answer", ID: args[1], Response: true, Outcome: args[2]}, nil
	case verb == "done" && len(args) == 4:
		var n [4]int64
		for i, a := range args {
			var err error
			if n[i], err = strconv.ParseInt(a, 10, 64); err != nil {
				return nil, err
			}
		}
		return &parse.Result{Usage: &parse.Usage{InputTokens: n[0], OutputTokens: n[1],
			CacheReadTokens: n[2], CacheCreationTokens: n[3]}}, nil
	}
	return nil, fmt.Errorf("not a toy line")
}

// TestToySourceGivesTheOneTree holds the toy source to the stream's tree
// of the same conversation, fact by fact: every fact oneTreeFacts reads,
// none left out. The cost is among them: the conversation's is ACP's
// word, and neither the stream nor the toy reports one (parse.Result
// carries none), so both trees hold the builder's estimate from its price
// table. What the toy does not say (the stream's durations,
// request ids, permission mode, the raw tool arguments and results kept
// only with content capture) is in no fact oneTreeFacts reads.
func TestToySourceGivesTheOneTree(t *testing.T) {
	store := oneTreeStore(t) // the turns share a store, as runs on one machine do
	var spans tracetest.SpanStubs
	for _, run := range strings.Split(strings.TrimSpace(toyConversation), "\n\n") {
		b, exp := newTestRecorder(Options{Turns: store, Now: func() time.Time { return replayTime }})
		if err := readToy(b, run); err != nil {
			t.Fatal(err)
		}
		spans = append(spans, exp.GetSpans()...)
	}
	toy, stream := oneTreeFacts(t, spans), oneTreeFacts(t, oneTreeStream(t, "testdata/onetree/"))
	for _, fact := range slices.Sorted(maps.Keys(oneTreeWant)) {
		if _, ok := stream[fact]; !ok {
			t.Errorf("%s: the stream gives no such fact, so the toy is held to nothing there", fact)
		}
	}
	facts := slices.Sorted(maps.Keys(stream))
	for fact := range toy {
		if _, ok := stream[fact]; !ok {
			facts = append(facts, fact)
		}
	}
	for _, fact := range facts {
		g, gok := toy[fact]
		w, wok := stream[fact]
		switch {
		case !gok:
			t.Errorf("%s: the toy gives none, the stream %q", fact, w)
		case !wok:
			t.Errorf("%s: the toy gives %q, the stream none", fact, g)
		case g != w:
			t.Errorf("%s: the toy gives %q, the stream %q", fact, g, w)
		}
	}
	t.Logf("%d facts compared", len(stream))
}
