// Package hook is cursor-otel's hook mode: the command a hooks.json entry
// runs for each event of an interactive or editor session. Each event is a
// process of its own, so the hook answers at once, keeps what it must
// remember in its conversation's journal, and leaves exporting to the
// background delivery it starts: the agent never waits on a collector.
package hook

import (
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/conversation"
	"github.com/cursor-otel/cursor-otel/internal/envlist"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/parse"
)

// maxEvent bounds what is read of one event (a file's content, a
// command's output can be large); the answer does not depend on it.
const maxEvent = 16 << 20

// Config is one hook process.
type Config struct {
	Settings settings.Settings
	Problems error // wrong settings: the hook answers and records nothing
	Environ  []string
	Stdin    io.Reader
	Stdout   io.Writer
	StateDir string           // where conversations live
	Deliver  func(dir string) // starts the background delivery; nil starts none
	Kept     func() bool      // says whether earlier runs kept sessions to deliver
	Now      func() time.Time
}

// Run handles one event: answers it as if no hook were installed, adds
// it to its conversation's journal, and starts the background delivery
// when the event may close a turn (the delivery builds it, a grace
// later). It is silent, and its status is always 0: a hook's failure
// shows in the user's transcript.
func Run(c Config) int {
	data, _ := io.ReadAll(io.LimitReader(c.Stdin, maxEvent))
	data = parse.TrimBOM(data) // some Cursor versions put one before the payload
	_, _ = io.WriteString(c.Stdout, answer(data))
	if c.Problems != nil || envlist.Get(c.Environ, conversation.StreamTraced) != "" {
		return 0
	}
	ev, err := parse.DecodeHook(data)
	if err != nil || ev.ConversationID == "" {
		return 0
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	dir := c.StateDir
	if dir == "" {
		dir = conversation.DefaultDir(c.Environ)
	}
	s := c.Settings
	getenv := func(name string) string { return envlist.Get(c.Environ, name) }
	// Where these settings send: the turn's spans are kept for it, and
	// delivered there alone.
	dest, err := destinationID(SpoolDir(s, dir), getenv)
	if err != nil {
		return 0
	}
	at := now()
	// Written down redacted, as the spool keeps spans: nothing waits on
	// disk in clear for its turn to be built.
	who := s.MetricsUser.Of(ev.UserEmail) // hashed (or none) before the text is redacted
	ev = redacted(withoutContent(ev, s.CaptureContent), s.Redactor(c.Environ))
	entry := journalEntry{HookEntry: parse.HookEntry{At: at, Dest: dest, Event: ev}, Reports: reportsOf(s), Capture: &s.CaptureContent}
	if who != (settings.Person{}) {
		entry.Person = &who
	}
	if os.Geteuid() == 0 {
		repairOwner(dir) // a root run (sudo -E) gives back what an older one took
	}
	if err := appendEntry(dir, entry); err != nil && (!repairOwner(dir) || appendEntry(dir, entry) != nil) {
		return 0
	}
	if c.Deliver != nil && (closesTurn(ev.Name) || idleCheckDue(dir, at) || c.Kept != nil && c.Kept()) {
		c.Deliver(dir)
	}
	return 0
}

// closesTurn says an event may close a turn: the delivery is started
// for it, to build the turn once its grace has passed.
func closesTurn(event string) bool {
	return event == parse.HookStop || event == parse.HookPrompt || event == parse.HookSessionEnd
}

// idleCheckEvery is how often a hook run starts the delivery to close
// the turns nothing has followed for spanmap.HookIdle.
const idleCheckEvery = time.Minute

// idleCheckDue says the delivery has not been started for idle turns in
// idleCheckEvery, and marks it started.
func idleCheckDue(dir string, now time.Time) bool {
	mark := filepath.Join(dir, "idle-check")
	if fi, err := os.Stat(mark); err == nil && now.Sub(fi.ModTime()) < idleCheckEvery && !fi.ModTime().After(now) {
		return false
	}
	return touch(mark, now) == nil
}

// withoutContent is ev as the journal keeps it: without capture, no
// prompt, reply, thought, tool arguments or tool output is written down
// (a thought's digest stays, which tells its second copy, and a call's
// arguments stay when its key is made of them: no tool_use_id).
func withoutContent(ev parse.HookEvent, capture bool) parse.HookEvent {
	if capture {
		return ev
	}
	if ev.Tool != nil && ev.Tool.ID != "" && ev.Tool.Args != "" {
		call := *ev.Tool
		call.Args = ""
		ev.Tool = &call
	}
	if ev.Text != "" && ev.Name == parse.HookThought {
		ev.Text = parse.TextDigest(ev.Text)
	} else {
		ev.Text = ""
	}
	ev.Prompt, ev.Result = "", ""
	return ev
}

// answer is what the hook says back: nothing that changes the agent's
// decision. No permission is given or refused (an "allow" would skip the
// user's approval), a prompt goes on, a stop is a stop.
func answer(data []byte) string {
	if parse.HookEventName(data) == parse.HookPrompt {
		return `{"continue":true}` + "\n"
	}
	return "{}\n"
}
