package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// cpSpan is a span as Jaeger UI's critical path sees it: times in
// microseconds, children in the order the UI sorts them (by start).
type cpSpan struct {
	id, parent string
	start, end int64
	children   []string
}

// cpSection is one section of the critical path.
type cpSection struct {
	id         string
	start, end int64
}

// criticalPath is Jaeger UI's critical path, ported line by line from
// jaeger-ui (Apache-2.0) at c321fb32 (2026-08-18),
// packages/jaeger-ui/src/components/TracePage/CriticalPath: index.ts,
// utils/findLastFinishingChildSpan.ts, utils/sanitizeOverFlowingChildren.ts.
// What the UI highlights is what it returns.
func criticalPath(spans []cpSpan, root string) []cpSection {
	byID := map[string]*cpSpan{}
	var order []string // the UI's Map keeps insertion order: depth first from the root
	var walk func(id string)
	all := map[string]cpSpan{}
	for _, s := range spans {
		all[s.id] = s
	}
	children := map[string][]cpSpan{}
	for _, s := range spans {
		children[s.parent] = append(children[s.parent], s)
	}
	walk = func(id string) {
		s := all[id]
		kids := children[id]
		slices.SortStableFunc(kids, func(a, b cpSpan) int { return int(a.start - b.start) })
		s.children = nil
		for _, k := range kids {
			s.children = append(s.children, k.id)
		}
		byID[id] = &s
		order = append(order, id)
		for _, k := range kids {
			walk(k.id)
		}
	}
	walk(root)

	// sanitizeOverFlowingChildren
	for _, id := range order {
		s, ok := byID[id]
		if !ok || s.parent == "" {
			continue
		}
		p, ok := byID[s.parent]
		if !ok {
			delete(byID, id)
			continue
		}
		drop := func() {
			delete(byID, id)
			p.children = slices.DeleteFunc(p.children, func(c string) bool { return c == id })
		}
		switch {
		case s.start >= p.start && s.start >= p.end:
			drop()
		case s.start >= p.start && s.end > p.end:
			s.end = p.end
		case s.start >= p.start:
		case s.end <= p.start:
			drop()
		case s.end <= p.end:
			s.start = p.start
		default:
			s.start, s.end = p.start, p.end
		}
	}

	// findLastFinishingChildSpan: strictly before the returning child's start.
	lastFinishing := func(s *cpSpan, returning int64) *cpSpan {
		var last *cpSpan
		maxEnd := int64(-1)
		for _, c := range s.children {
			child, ok := byID[c]
			if !ok {
				continue
			}
			if returning != 0 && child.end >= returning {
				continue
			}
			if child.end > maxEnd {
				maxEnd, last = child.end, child
			}
		}
		return last
	}
	var path []cpSection
	var compute func(id string, returning int64)
	compute = func(id string, returning int64) {
		s, ok := byID[id]
		if !ok {
			return
		}
		end := s.end
		if returning != 0 {
			end = returning
		}
		if lfc := lastFinishing(s, returning); lfc != nil {
			if lfc.end != end {
				path = append(path, cpSection{id, lfc.end, end})
			}
			compute(lfc.id, 0)
			return
		}
		if s.start != end {
			path = append(path, cpSection{id, s.start, end})
		}
		if s.parent != "" {
			compute(s.parent, s.start)
		}
	}
	compute(root, 0)
	return path
}

// The port gives what Jaeger's own tests expect (test1 and test2 of
// jaeger-ui's CriticalPath/testCases).
func TestCriticalPathPortMatchesJaeger(t *testing.T) {
	for _, tt := range []struct {
		spans []cpSpan
		want  []cpSection
	}{
		{[]cpSpan{{id: "E", parent: "C", start: 50, end: 60}, {id: "C", start: 1, end: 101}, {id: "D", parent: "C", start: 20, end: 40}},
			[]cpSection{{"C", 60, 101}, {"E", 50, 60}, {"C", 40, 50}, {"D", 20, 40}, {"C", 1, 20}}},
		{[]cpSpan{{id: "X", start: 1, end: 101}, {id: "A", parent: "X", start: 10, end: 50}, {id: "C", parent: "X", start: 20, end: 60}},
			[]cpSection{{"X", 60, 101}, {"C", 20, 60}, {"X", 1, 20}}},
	} {
		root := tt.spans[slices.IndexFunc(tt.spans, func(s cpSpan) bool { return s.parent == "" })].id
		if got := criticalPath(tt.spans, root); !slices.Equal(got, tt.want) {
			t.Errorf("critical path %v, want %v", got, tt.want)
		}
	}
}

// In Jaeger UI, the critical path of each example runs through every model
// call in turn and, where tools ran in parallel, the one that ended last
// (grep after read, the 14.9 s go test among three): each model call
// starts a microsecond after the previous one ends, and Jaeger only takes
// a child that ends strictly before. The final answer, which ends where
// the session does, is not on it: Jaeger drops a child that starts at its
// parent's end.
func TestCriticalPathInJaeger(t *testing.T) {
	recv := otlptest.StartGRPC(t)
	paths, _ := filepath.Glob("examples/*.ndjson")
	if r := runBinary(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint}, nil, append([]string{"replay", "--quiet"}, paths...)...); r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stderr)
	}
	traces := map[string][]golden.Span{}
	for _, s := range golden.FromOTLP(recv.Spans()) {
		traces[s.TraceID] = append(traces[s.TraceID], s)
	}
	want := map[string]string{ // session id: the spans on the path, in time order, by name and subject
		"7f3c9a1e-5b2d-4c8e-9f10-2a6b3c4d5e6f": "chat|shell go test ./pkg/queue|chat|grep pkg/queue|chat|edit pkg/queue/queue.go|chat|shell go test ./pkg/queue",
		"2d9e8f7a-6b5c-4d3e-8f21-0a1b2c3d4e5f": "chat|shell go test ./...|chat",
	}
	for _, spans := range traces {
		var root golden.Span
		var cps []cpSpan
		names := map[string]string{}
		for _, s := range spans {
			if s.ParentID == "" {
				root = s
			}
			cps = append(cps, cpSpan{id: s.SpanID, parent: s.ParentID, start: s.Start.UnixMicro(), end: s.End.UnixMicro()})
			name := strings.TrimPrefix(strings.TrimPrefix(s.Name, "chat "), "execute_tool ")
			if strings.HasPrefix(s.Name, "chat") {
				name = "chat"
			}
			names[s.SpanID] = strings.TrimSpace(name + " " + value(s, "cursor.tool.command") + value(s, "cursor.tool.path"))
		}
		expected, ok := want[value(root, "gen_ai.conversation.id")]
		if !ok {
			continue
		}
		path := criticalPath(cps, root.SpanID)
		slices.Reverse(path) // the UI walks from the end
		var on []string
		for _, sec := range path {
			if sec.id != root.SpanID && (len(on) == 0 || on[len(on)-1] != names[sec.id]) {
				on = append(on, names[sec.id])
			}
		}
		if got := strings.Join(on, "|"); got != expected {
			t.Errorf("%s: critical path\n %s\nwant\n %s", value(root, "gen_ai.conversation.id"), got, expected)
		}
	}
}
