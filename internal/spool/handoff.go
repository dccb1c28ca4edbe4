package spool

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// A run cannot wait for a collector past its flush timeout, and an export
// it sent and could not wait for is in doubt: sent again later, a
// collector that took it late has it twice; not sent again, one that lost
// it has it never. So a run whose collector is not known to answer in
// time does not send its last spans itself: it hands them over, through
// the spool, to the background delivery, which outlives the run, sends
// each part once and waits for the answer (see docs/wrap.md). The spool
// remembers, by destination, that its collector answered promptly (a run
// may then send itself), and why a delivery last failed (for the run
// that handed over to say).
const (
	promptSuffix = ".prompt" // DEST.prompt: the collector answered a delivery promptly
	failedSuffix = ".failed" // DEST.failed: why the last delivery to it failed
)

// promptFor is how long a prompt answer is trusted: past it, a run hands
// over again, and the delivery learns anew.
const promptFor = 24 * time.Hour

// Handed is what a run handed over to the background delivery.
type Handed struct {
	Parts []HandedPart
	// Rest are the spans the spool could not take (a session larger
	// than the bound): the run sends them itself.
	Rest []sdktrace.ReadOnlySpan
	At   time.Time
}

// HandedPart is a part handed over: its file, its session, its spans.
type HandedPart struct {
	name  string
	Trace trace.TraceID
	Spans int
}

// HandOver writes spans to the spool for the background delivery to
// send, as Keep does; it returns what it wrote and the spans it could
// not take.
func (d *Dir) HandOver(to Destination, spans []sdktrace.ReadOnlySpan) (Handed, Kept, error) {
	h := Handed{At: d.now()}
	k, err := d.keep(to, spans, false) // one too large is sent by the run, not dropped
	h.Parts = k.parts
	for _, s := range spans {
		if fate, ok := k.Traces[s.SpanContext().TraceID()]; !ok || fate == FateTooLarge {
			h.Rest = append(h.Rest, s) // too large, or not written
		}
	}
	return h, k, err
}

// Left is what of h the background delivery has not yet delivered (or
// dropped as malformed): the parts still in the spool.
func (d *Dir) Left(h Handed) []HandedPart {
	var left []HandedPart
	for _, p := range h.Parts {
		if _, err := os.Stat(filepath.Join(d.Path, p.name)); err == nil {
			left = append(left, p)
		}
	}
	return left
}

// AnsweredPromptly says whether to's collector answered a delivery promptly, lately.
func (d *Dir) AnsweredPromptly(to Destination) bool {
	id, _ := d.id(to, false)
	if id == "" {
		return false
	}
	info, err := os.Stat(filepath.Join(d.Path, id+promptSuffix))
	return err == nil && d.now().Sub(info.ModTime()) < promptFor
}

// ForgetPromptAnswer forgets that to's collector answered promptly: an export to it
// went unanswered.
func (d *Dir) ForgetPromptAnswer(to Destination) {
	if id, _ := d.id(to, false); id != "" {
		_ = os.Remove(filepath.Join(d.Path, id+promptSuffix))
	}
}

// Failure is why the last delivery to to failed, when it failed after
// since; "" otherwise.
func (d *Dir) Failure(to Destination, since time.Time) string {
	id, _ := d.id(to, false)
	if id == "" {
		return ""
	}
	path := filepath.Join(d.Path, id+failedSuffix)
	info, err := os.Stat(path)
	if err != nil || info.ModTime().Before(since) {
		return ""
	}
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

// noteAnswer writes down what a delivery's send to the destination id
// said: a prompt answer, or why it failed.
func (d *Dir) noteAnswer(id string, took, prompt time.Duration, err error, reason func(error) string) {
	failed := filepath.Join(d.Path, id+failedSuffix)
	if err != nil {
		if reason == nil {
			reason = func(e error) string { return e.Error() }
		}
		_ = writeOwn(failed, []byte(reason(err)+"\n"))
		return
	}
	_ = os.Remove(failed)
	if prompt > 0 && took <= prompt {
		_ = writeOwn(filepath.Join(d.Path, id+promptSuffix), nil) // its time is when
	}
}
