// Package acp is cursor-otel's ACP mode: an editor's Agent Client Protocol
// session with cursor-agent (`cursor-agent acp`), passed through untouched
// both ways, each prompt turn traced. Its rules are the contract's
// "Editors through ACP": the agent gets exactly its arguments, every byte
// crosses as soon as it arrives, and the tracing reads copies off the hot
// path.
package acp

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/agent"
	"github.com/cursor-otel/cursor-otel/internal/conversation"
	"github.com/cursor-otel/cursor-otel/internal/harness"
	"github.com/cursor-otel/cursor-otel/internal/metrics"
	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/internal/safe"
	"github.com/cursor-otel/cursor-otel/internal/settings"
	"github.com/cursor-otel/cursor-otel/parse"
	"github.com/cursor-otel/cursor-otel/spanmap"
	"github.com/cursor-otel/cursor-otel/tracer"
	"go.opentelemetry.io/otel/trace"
)

// Config is one ACP session's process.
type Config struct {
	Settings settings.Settings
	Path     string   // the agent found
	Args     []string // the agent's arguments, exactly as given
	Env      []string // the agent's environment
	Environ  []string // cursor-otel's own, for its settings
	APIKey   string   // an --api-key value, redacted
	Stdin    *os.File
	Stdout   *os.File
	Stderr   *os.File
	// DeliverKept starts delivering what earlier runs kept; nil starts nothing.
	DeliverKept func()
	// Deliverer starts the background delivery each turn is handed over
	// to when the collector is not known to answer in time
	// (tracer.Config.Deliverer). Nil hands nothing over.
	Deliverer func()
}

// statusCannotRun: the agent was found and could not be started.
const statusCannotRun = 126

// Run runs the agent for the editor and returns the agent's exit status.
func Run(ctx context.Context, c Config) int {
	tuneGC(c.Environ)
	q := newTapQueue()
	proc, err := agent.Start(agent.Spec{Path: c.Path, Args: c.Args, Env: c.Env,
		Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, CopyStdin: true, Tap: q.push, Tapped: q.kick})
	if err != nil {
		fmt.Fprintln(c.Stderr, oneline.Join(fmt.Sprintf("start %s: %v", c.Path, err)))
		return statusCannotRun
	}
	s := c.Settings
	// Each turn's report (--summary, --summary-json) and metrics, as a
	// wrapped run's session has them: computed when the turn's root ends.
	// Turns go in batches (see batcher), each journaled as it ends: a
	// session killed between two batches leaves its turns to the next
	// run's delivery.
	h := harness.Start(ctx, harness.Setup{Settings: s, Environ: c.Environ, Secrets: []string{c.APIKey}, Deliverer: c.Deliverer,
		Surface: metrics.SurfaceACP, Configure: func(cfg *tracer.Config) { cfg.Journal = true }})
	redactor, prov, notes := h.Redactor, h.Provider, h.Notes()
	// A turn's export still unanswered when the session ends would be in
	// doubt: with a collector not known to answer in time, each turn goes
	// through the background delivery, which waits for the answer.
	prov.HandOverEachTrace()
	if c.DeliverKept != nil {
		c.DeliverKept()
	}
	parent, _ := tracer.ParentFromEnv(ctx, h.Getenv)
	opts := h.Recording()
	// A session's last turn is kept where a wrapped run's is (the hooks'
	// state directory): the next agent process that loads the session,
	// or a wrapped run resuming the chat, links to it.
	turns := newLaterTurns(conversation.Store{Dir: conversation.DefaultDir(c.Environ)})
	opts.Turns = turns
	model := spanmap.NewACP(parent, prov.Tracer(), opts)
	// The turns that ended are exported in a batch once the session is
	// idle, or every so often (see batcher), on a goroutine of their own:
	// neither the forwarding nor the reader waits on it.
	b := newBatcher(q.lastPush, func() {
		turns.write()
		_ = prov.ExportBatch(ctx)
	})
	model.TurnEnded = b.turnEnded
	batched := make(chan struct{})
	go func() {
		defer close(batched)
		b.run()
	}()

	var broken error
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		if err := safe.Run(func() { follow(q, model) }); err != nil {
			broken = err
			for _, ok := q.pop(); ok; _, ok = q.pop() {
			} // release what is queued
		}
	}()

	exit := proc.Wait()
	q.close() // the editor's input after the agent's exit reaches no one
	<-followed
	untraced := q.Untraced()
	why := fmt.Sprintf("the agent exited (status %d) before the turn's answer", exit.Code)
	if exit.Signal != nil {
		why = fmt.Sprintf("the agent was killed by %v before the turn's answer", exit.Signal)
	}
	closeAttrs := spanmap.ACPEndAttrs(exit.Code, redactor.Redact(exit.StderrTail), untraced)
	if err := safe.Run(func() { model.Close(exit.At, why, closeAttrs...) }); err != nil && broken == nil {
		broken = err
	}
	// From the agent's exit the flush timeout runs: a turn's flush under
	// way gives up with it, and what is left is kept.
	prov.EndingAt(exit.At)
	b.stop()
	<-batched
	turns.end()
	report, err := h.Close(ctx)
	if err != nil {
		notes = append(notes, err.Error())
	}
	if broken != nil {
		notes = append(notes, fmt.Sprintf("%v; the trace is incomplete", broken))
	}
	if untraced > 0 {
		notes = append(notes, fmt.Sprintf("tracing fell behind the session; %s of it not traced", oneline.Size(untraced)))
	}
	notes = append(notes, report.Warning())
	if line := oneline.Join(notes...); line != "" && !s.Quiet {
		fmt.Fprintln(c.Stderr, redactor.Redact(line))
	}
	return exit.Code
}

// follow reads both directions, in the order they crossed, into the
// model, line by line. Lines that are not JSON-RPC are skipped.
func follow(q *tapQueue, model *spanmap.ACP) {
	var lines [2]lineSplitter
	d := parse.NewACPDecoder()
	for {
		c, ok := q.pop()
		if !ok {
			return
		}
		if c.gap {
			model.Untraced(q.Untraced())
		}
		lines[dir(c.fromEditor)].feed(c, func(line []byte) {
			if m, ok := d.Decode(c.fromEditor, line); ok {
				model.Observe(m, c.at)
			}
		})
	}
}

// laterTurns holds each session's last turn in memory, for the state
// directory (conversation.Store) to be written after the turn, with its export,
// rather than as its prompt crosses: a lock, a file read and a file
// renamed into place, which took 40% of cursor-otel's CPU in a session of
// prompts back to back. It is written at most once every
// mostBeforeWrite, and at the end: another agent process that loads the
// session (an editor restarting the agent) finds its last turn.
type laterTurns struct {
	dir       conversation.Store
	mu        sync.Mutex
	lastRoots map[string]trace.SpanContext
	wrote     time.Time   // when the state was last written
	timer     *time.Timer // a write to come, armed by a write put off

	writing sync.Mutex // one write at a time, in order
}

func newLaterTurns(dir conversation.Store) *laterTurns {
	return &laterTurns{dir: dir, lastRoots: map[string]trace.SpanContext{}}
}

func (l *laterTurns) Last(conversation string) (trace.SpanContext, bool) {
	l.mu.Lock()
	sc, ok := l.lastRoots[conversation]
	l.mu.Unlock()
	if ok {
		return sc, true
	}
	return l.dir.Last(conversation)
}

func (l *laterTurns) SetLast(conversation string, root trace.SpanContext) {
	l.mu.Lock()
	l.lastRoots[conversation] = root
	l.mu.Unlock()
}

// mostBeforeWrite is the least time between two writes of the turns.
const mostBeforeWrite = time.Second

// write writes down the turns set since the last write, or, within
// mostBeforeWrite of it, has a timer do so then.
func (l *laterTurns) write() {
	l.mu.Lock()
	if wait := mostBeforeWrite - time.Since(l.wrote); wait > 0 && len(l.lastRoots) > 0 {
		if l.timer == nil {
			l.timer = time.AfterFunc(wait, func() {
				l.mu.Lock()
				l.timer = nil
				l.mu.Unlock()
				l.writeNow()
			})
		}
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	l.writeNow()
}

// end writes what is left, at once.
func (l *laterTurns) end() {
	l.mu.Lock()
	if l.timer != nil && l.timer.Stop() {
		l.timer = nil
	}
	l.mu.Unlock()
	l.writeNow()
}

func (l *laterTurns) writeNow() {
	l.writing.Lock()
	defer l.writing.Unlock()
	l.mu.Lock()
	unwritten := l.lastRoots
	l.lastRoots = map[string]trace.SpanContext{}
	if len(unwritten) > 0 {
		l.wrote = time.Now()
	}
	l.mu.Unlock()
	for conversation, root := range unwritten {
		l.dir.SetLast(conversation, root)
	}
}
