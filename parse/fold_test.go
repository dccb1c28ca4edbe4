package parse

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Runs of deltas fold into their first and a *Deltas after it; anything
// that could be seen between two deltas ends a run.
func TestFoldedDeltas(t *testing.T) {
	delta := func(session string, ms int) string {
		return fmt.Sprintf(`{"type":"thinking","subtype":"delta","text":"x","session_id":%q,"timestamp_ms":%d}`, session, 1790000000000+ms)
	}
	other := func(session string, ms int, model string) string {
		return fmt.Sprintf(`{"type":"thinking","subtype":"delta","model_call_id":%q,"text":"x","session_id":%q,"timestamp_ms":%d}`, model, session, 1790000000000+ms)
	}
	for _, tt := range []struct {
		name  string
		lines []string
		gap   time.Duration
		want  string // each event: T (a delta), D<count>:<first>-<before>-<last> (folded), or its type
	}{
		{"a run", []string{delta("s", 0), delta("s", 10), delta("s", 20), delta("s", 30)}, 0, "T0 D3:10-20-30"},
		{"two", []string{delta("s", 0), delta("s", 10)}, 0, "T0 D1:10-0-10"},
		{"equal times", []string{delta("s", 5), delta("s", 5)}, 0, "T5 D1:5-5-5"},
		{"time going back", []string{delta("s", 0), delta("s", 20), delta("s", 10), delta("s", 30)}, 0, "T0 D1:20-0-20 T10 D1:30-10-30"},
		{"another session", []string{delta("s", 0), delta("t", 10), delta("t", 20)}, 0, "T0 T10 D1:20-10-20"},
		{"another model call", []string{other("s", 0, "m1"), other("s", 10, "m1"), other("s", 20, "m2")}, 0, "T0 D1:10-0-10 T20"},
		{"a gap a stall marks", []string{delta("s", 0), delta("s", 100), delta("s", 350), delta("s", 400)}, 200 * time.Millisecond, "T0 D1:100-0-100 T350 D1:400-350-400"},
		{"any gap", []string{delta("s", 0), delta("s", 100000)}, 0, "T0 D1:100000-0-100000"},
		{"no time", []string{delta("s", 0), `{"type":"thinking","subtype":"delta","text":"x","session_id":"s"}`, delta("s", 10)}, 0, "T0 T? T10"},
		{"phase ends", []string{delta("s", 0), `{"type":"thinking","subtype":"completed","session_id":"s","timestamp_ms":1790000000010}`, delta("s", 20)}, 0, "T0 T10 T20"},
		{"other lines between", []string{delta("s", 0), `{"type":"connection","subtype":"reconnecting"}`, delta("s", 10), "not json", delta("s", 20), delta("s", 30)}, 0, "T0 *parse.Connection T10 *parse.Invalid T20 D1:30-20-30"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, content := range []bool{false, true} {
				opts := []Option{WithFoldedDeltas(tt.gap)}
				if !content {
					opts = append(opts, WithoutContent())
				}
				var got []string
				for b := range DecodeAhead(context.Background(), strings.NewReader(strings.Join(tt.lines, "\n")+"\n"), opts...) {
					for _, ev := range b.Events {
						got = append(got, foldedName(ev))
					}
				}
				want := tt.want
				if content { // with text to keep, nothing folds
					want = strings.Join(unfoldedNames(tt.lines), " ")
				}
				if g := strings.Join(got, " "); g != want {
					t.Errorf("content %v: %s, want %s", content, g, want)
				}
			}
		})
	}
}

// foldedName is an event as TestFoldedDeltas writes it.
func foldedName(ev Event) string {
	ms := func(t time.Time) string {
		if t.IsZero() {
			return "?"
		}
		return fmt.Sprint(t.UnixMilli() - 1790000000000)
	}
	switch e := ev.(type) {
	case *Thinking:
		return "T" + ms(e.Time)
	case *Deltas:
		return fmt.Sprintf("D%d:%s-%s-%s", e.Count, ms(e.First), ms(e.Before), ms(e.Time))
	}
	return fmt.Sprintf("%T", ev)
}

// unfoldedNames are the events of lines one by one.
func unfoldedNames(lines []string) []string {
	var out []string
	for i, l := range lines {
		out = append(out, foldedName(Decode([]byte(l), i+1)))
	}
	return out
}
