// Package golden renders exported span trees as stable text and compares
// them with files under testdata. The same rendering serves spans from the
// SDK's in-memory exporter and spans received over OTLP, so a trace that
// crossed the wire can be checked against the same file.
package golden

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"

	gocmp "github.com/google/go-cmp/cmp"
)

// Span is the part of an exported span the rendering shows.
type Span struct {
	TraceID, SpanID, ParentID string
	Name, Kind                string
	Start, End                time.Time
	Status, StatusMessage     string // Status is "", "Ok" or "Error"
	Attributes                []KV
	Events                    []Event
	Links                     []string // each "traceID/spanID"
}

// KV is one attribute, its value already rendered.
type KV struct{ Key, Value string }

// Event is one span event.
type Event struct {
	Name       string
	Time       time.Time
	Attributes []KV
}

// Render writes traces in order of their roots' start, each span under its
// parent with times as offsets from the root's start. IDs are left out:
// they differ on every run.
func Render(spans []Span) string {
	byID := map[string]bool{}
	children := map[string][]Span{}
	for _, s := range spans {
		byID[s.TraceID+"/"+s.SpanID] = true
	}
	var roots []Span
	for _, s := range spans {
		if s.ParentID == "" || !byID[s.TraceID+"/"+s.ParentID] {
			roots = append(roots, s)
			continue
		}
		key := s.TraceID + "/" + s.ParentID
		children[key] = append(children[key], s)
	}
	var traces []string
	for _, root := range roots {
		var b strings.Builder
		if root.ParentID != "" {
			b.WriteString("(parent span outside the trace)\n")
		}
		renderSpan(&b, root, root.Start, children, 0)
		b.WriteString(linkMark(root))
		traces = append(traces, b.String())
	}
	sorted := sortedTraces(roots, traces)
	// A link is shown as the trace it points to, by number: IDs differ
	// on every run.
	number := map[string]string{}
	for i, t := range sorted {
		for _, r := range roots {
			if strings.Contains(t, linkMark(r)) {
				number[r.TraceID+"/"+r.SpanID] = fmt.Sprintf("trace %d", i+1)
			}
		}
	}
	var out strings.Builder
	for i, t := range sorted {
		t = linkRef.ReplaceAllStringFunc(t, func(m string) string {
			if n, ok := number[m[1:len(m)-1]]; ok {
				return n
			}
			return "a span outside these traces"
		})
		fmt.Fprintf(&out, "trace %d\n%s", i+1, rootMark.ReplaceAllString(t, ""))
	}
	return out.String()
}

// Each root's text carries an invisible mark of its IDs, for links to it
// to be numbered once the traces are in order.
const markPrefix = "\x00root "

func linkMark(s Span) string { return markPrefix + s.TraceID + "/" + s.SpanID + "\x00" }

// rootMark is a root's mark.
var rootMark = regexp.MustCompile("\x00root [0-9a-f]+/[0-9a-f]+\x00")

// linkRef is a link's target in a rendered span, before numbering.
var linkRef = regexp.MustCompile("\x01[0-9a-f]+/[0-9a-f]+\x01")

// sortedTraces orders rendered traces by their roots' start, and by their
// text when two start together, so the order never depends on export order.
func sortedTraces(roots []Span, traces []string) []string {
	type pair struct {
		start time.Time
		text  string
	}
	pairs := make([]pair, len(traces))
	for i := range traces {
		pairs[i] = pair{roots[i].Start, traces[i]}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		return cmp.Or(a.start.Compare(b.start), strings.Compare(a.text, b.text))
	})
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = p.text
	}
	return out
}

func renderSpan(b *strings.Builder, s Span, origin time.Time, children map[string][]Span, depth int) {
	indent := strings.Repeat("    ", depth)
	fmt.Fprintf(b, "%s%s [%s] %s +%s", indent, s.Name, s.Kind, offset(s.Start, origin), s.End.Sub(s.Start))
	if s.Status != "" && s.Status != "Unset" {
		fmt.Fprintf(b, " %s", s.Status)
		if s.StatusMessage != "" {
			fmt.Fprintf(b, " %q", s.StatusMessage)
		}
	}
	b.WriteByte('\n')
	for _, kv := range sortedKVs(s.Attributes) {
		fmt.Fprintf(b, "%s  · %s=%s\n", indent, kv.Key, kv.Value)
	}
	for _, e := range s.Events {
		fmt.Fprintf(b, "%s  ! %s %s", indent, e.Name, offset(e.Time, origin))
		for _, kv := range sortedKVs(e.Attributes) {
			fmt.Fprintf(b, " %s=%s", kv.Key, kv.Value)
		}
		b.WriteByte('\n')
	}
	for _, l := range s.Links {
		fmt.Fprintf(b, "%s  ~ link to \x01%s\x01\n", indent, l)
	}
	kids := children[s.TraceID+"/"+s.SpanID]
	rendered := make([]string, len(kids))
	for i, k := range kids {
		var kb strings.Builder
		renderSpan(&kb, k, origin, children, depth+1)
		rendered[i] = kb.String()
	}
	idx := make([]int, len(kids))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		return cmp.Or(kids[i].Start.Compare(kids[j].Start), strings.Compare(rendered[i], rendered[j]))
	})
	for _, i := range idx {
		b.WriteString(rendered[i])
	}
}

func offset(t, origin time.Time) string {
	return "@" + t.Sub(origin).String()
}

func sortedKVs(kvs []KV) []KV {
	out := slices.Clone(kvs)
	slices.SortFunc(out, func(a, b KV) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Check compares got with the golden file at path, or writes the file when
// update is set.
func Check(t *testing.T, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if diff := gocmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got); rerun with -update if the change is right:\n%s", path, diff)
	}
}
