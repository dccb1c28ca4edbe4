package spanmap

import (
	"context"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/parse"
)

// A conversation of N turns and its sessionEnd is N traces, each rooted
// in a turn, whether the end came before its last turn was built (the
// turn carries it) or after (no span: it is said for the reports).
func TestHookSessionEndIsNoTurn(t *testing.T) {
	const turns = 3
	var script []journalEvent
	for n := range turns {
		gen := "g" + string(rune('1'+n))
		at := time.Duration(n) * time.Minute
		script = append(script,
			journalEvent{at, hookLine("beforeSubmitPrompt", gen, "")},
			journalEvent{at + time.Second, toolLine("preToolUse", gen, "t"+gen, "ls")},
			journalEvent{at + 2*time.Second, toolLine("postToolUse", gen, "t"+gen, "ls")},
			journalEvent{at + 3*time.Second, hookLine("stop", gen, `"status":"completed"`)})
	}
	lastStop := time.Duration(turns-1)*time.Minute + 3*time.Second
	end := func(after time.Duration) journalEvent {
		return journalEvent{lastStop + after, hookLine("sessionEnd", "", `"reason":"user_close","duration_ms":600000`)}
	}
	for _, tt := range []struct {
		name   string
		after  time.Duration // the sessionEnd, after the last stop
		rounds []time.Duration
		folded bool // the last turn carries the end
	}{
		{"before the last turn was built", 500 * time.Millisecond, []time.Duration{lastStop + time.Hour}, true},
		{"while the last turn waits for its grace", time.Second, []time.Duration{lastStop + time.Second, lastStop + time.Hour}, true},
		{"after the last turn was built", time.Hour, []time.Duration{lastStop + HookGrace + time.Second, lastStop + 2*time.Hour}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			coming := entriesOf(t, append(append([]journalEvent{}, script...), end(tt.after)))
			h := NewHooks(context.Background(), nil, Options{})
			var st HookState
			var records []spanRecord
			var ends []HookSessionEnd
			var entries []parse.HookEntry
			used := map[int]bool{}
			for _, at := range tt.rounds {
				// The journal keeps what a build did not use, and what
				// hooks have written since.
				var left []parse.HookEntry
				for i, e := range entries {
					if !used[i] {
						left = append(left, e)
					}
				}
				for len(coming) > 0 && !coming[0].At.After(buildT0.Add(at)) {
					left, coming = append(left, coming[0]), coming[1:]
				}
				entries, used = left, map[int]bool{}
				reload(t, &st)
				b := h.Build(&st, entries, buildT0.Add(at))
				records, ends = append(records, b.records()...), append(ends, b.Ends...)
				for _, i := range b.Used {
					used[i] = true
				}
			}
			if f := checkBuilt(t, records); f.traces != turns {
				t.Errorf("%d traces, want %d: one a turn", f.traces, turns)
			}
			var withEnd int
			for _, r := range records {
				if r.Parent.IsValid() {
					continue
				}
				if r.Name != RootName || Value(r.Attrs, TurnNumber).AsInt64() == 0 {
					t.Errorf("root %s (%v) is no turn", r.Name, r.Attrs)
				}
				if Value(r.Attrs, SessionEndReason).AsString() != "" {
					withEnd++
					if Value(r.Attrs, TurnNumber).AsInt64() != turns || Value(r.Attrs, SessionDuration).AsInt64() != 600000 ||
						Value(r.Attrs, SessionTurns).AsInt64() != turns || Value(r.Attrs, TurnEnd).AsString() != TurnEndStop {
						t.Errorf("the end is on %v", r.Attrs)
					}
				}
			}
			switch {
			case tt.folded && (withEnd != 1 || len(ends) != 0):
				t.Errorf("%d turns carry the end, %d ends said apart; want the last turn to carry it", withEnd, len(ends))
			case !tt.folded && (withEnd != 0 || len(ends) != 1):
				t.Errorf("%d turns carry the end, %d ends said apart; want it said apart once", withEnd, len(ends))
			case !tt.folded && (ends[0].Reason != "user_close" || ends[0].Duration != 10*time.Minute || ends[0].Turns != turns ||
				ends[0].ConversationID != "c" || ends[0].LastTrace == ""):
				t.Errorf("the end said: %+v", ends[0])
			}
		})
	}
}

// A sessionEnd told twice (before and after its last turn was built) is
// said once: on the turn.
func TestHookSessionEndToldTwice(t *testing.T) {
	entries := entriesOf(t, []journalEvent{
		{0, hookLine("beforeSubmitPrompt", "g1", "")},
		{time.Second, hookLine("stop", "g1", `"status":"completed"`)},
		{1500 * time.Millisecond, hookLine("sessionEnd", "", `"reason":"completed"`)},
	})
	h := NewHooks(context.Background(), nil, Options{})
	var st HookState
	b := h.Build(&st, entries, buildT0.Add(time.Minute))
	reload(t, &st)
	again := h.Build(&st, entriesOf(t, []journalEvent{{2 * time.Minute, hookLine("sessionEnd", "", `"reason":"completed"`)}}), buildT0.Add(time.Hour))
	if f := checkBuilt(t, b.records()); f.traces != 1 || len(b.Ends) != 0 || len(again.records()) != 0 || len(again.Ends) != 0 {
		t.Errorf("%d traces, %d ends apart; then %d records, %d ends; want the turn carrying the end, then nothing", f.traces, len(b.Ends), len(again.records()), len(again.Ends))
	}
}
