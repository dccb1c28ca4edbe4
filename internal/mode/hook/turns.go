package hook

import (
	"encoding/json"
	"os"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/spanmap"
)

// Turns are the last turns of the conversations traced on this machine,
// kept in the hooks' state directory beside each conversation's state: a
// wrapped run that resumes a conversation (cursor-agent --resume) links
// to its last turn, whether the editor's hooks or another wrapped run
// traced it, and is the turn the next one links to.
type Turns struct {
	Dir string
	Now func() time.Time // nil: time.Now
}

// Last is the root of the conversation's last turn.
func (t Turns) Last(conversation string) (trace.SpanContext, bool) {
	// No lock: a state is written whole (renamed into place), and this
	// makes nothing, not even a lock file, in a directory it may not own.
	path := conversationFile(t.Dir, conversationName(conversation))
	var st spanmap.HookState
	if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &st) != nil || st.Root == nil {
		return trace.SpanContext{}, false
	}
	tid, terr := trace.TraceIDFromHex(st.Root.TraceID)
	sid, serr := trace.SpanIDFromHex(st.Root.SpanID)
	if terr != nil || serr != nil {
		return trace.SpanContext{}, false
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true}), true
}

// SetLast makes root the conversation's last turn.
func (t Turns) SetLast(conversation string, root trace.SpanContext) {
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	if anotherUsers(t.Dir) {
		return // a root run in the user's home links, but leaves the user's state alone
	}
	unlock, err := lockBuild(t.Dir)
	if err != nil {
		return
	}
	defer unlock()
	name := conversationName(conversation)
	cp, _ := loadCheckpoint(t.Dir, name)
	if cp.ConversationID == "" {
		cp.ConversationID = conversation
	}
	cp.Last = later(cp.Last, now())
	cp.Root = &spanmap.HookRoot{TraceID: root.TraceID().String(), SpanID: root.SpanID().String()}
	_ = saveCheckpoint(t.Dir, name, &cp)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
