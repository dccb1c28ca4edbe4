package spanmap

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cursor-otel/cursor-otel/internal/conversation"
	"github.com/cursor-otel/cursor-otel/parse"
)

// One conversation, written three ways (testdata/onetree): two turns; in
// the first, thinking, a shell call that fails and a read; in the second,
// an edit the person is asked to allow and a shell call left unfinished;
// each turn's usage, and a cost. Each turn is a process of its own (a
// wrapped run and its --resume, a hook process per event, an agent
// restarted and its session loaded), the processes sharing the on-disk
// store of each conversation's last turn, as on a machine.

// The sources.
const (
	fromStream = "stream"
	fromHooks  = "hooks"
	fromACP    = "acp"
)

var oneTreeSources = []string{fromStream, fromHooks, fromACP}

// oneTreeWant is the tree the conversation is, fact by fact, whatever
// source told it.
var oneTreeWant = map[string]string{
	"turns": "2",
	// Each turn's root.
	"turn1 root":          "invoke_agent cursor-agent client Unset",
	"turn2 root":          "invoke_agent cursor-agent client Unset",
	"turn1 conversation":  "conv-one",
	"turn2 conversation":  "conv-one",
	"turn1 cwd":           "/work/app",
	"turn2 cwd":           "/work/app",
	"turn1 model":         "claude-4.6-sonnet",
	"turn2 model":         "claude-4.6-sonnet",
	"turn1 totals":        "in=6200 out=300 cache_read=5000 cache_write=0",
	"turn2 totals":        "in=3800 out=200 cache_read=3000 cache_write=0",
	"turn1 usage (trace)": "in=6200 out=300",
	"turn2 usage (trace)": "in=3800 out=200",
	"turn1 cost":          "0.1 EUR",
	"turn2 cost":          "0.15 EUR",
	"turn2 links to":      "turn1 root",
	"every span names":    "conv-one cursor-agent",
	// The model calls.
	"turn1 model calls":   "chat claude-4.6-sonnet",
	"turn2 model calls":   "chat claude-4.6-sonnet",
	"turn1 model call id": "m1-0",
	"turn1 thinking":      "1 on chat",
	// The tools: name kind, parent, status error.type outcome.
	"t-test":           "execute_tool shell internal; under chat; Error error.type=error outcome=error",
	"t-read":           "execute_tool read internal; under chat; Unset outcome=success",
	"t-edit":           "execute_tool edit internal; under chat; Unset outcome=success",
	"t-rerun":          "execute_tool shell internal; under chat; Error error.type=incomplete outcome=incomplete",
	"t-test exit code": "1",
	// Each tool's GenAI view without content capture: its metadata as
	// gen_ai.tool.call.arguments and .result (one view for every source).
	"t-test view":  `arguments={"command":"go test ./...","working_directory":"/work/app"} result={"exit_code":1,"outcome":"error","output_bytes":19}`,
	"t-read view":  `arguments={"path":"/work/app/queue.go"} result={"bytes":812,"lines":40,"outcome":"success"}`,
	"t-edit view":  `arguments={"path":"/work/app/queue.go"} result={"lines_added":1,"lines_removed":1,"outcome":"success"}`,
	"t-rerun view": `arguments={"command":"go test ./pkg/queue","working_directory":"/work/app"} result={"outcome":"incomplete"}`,
	// The wait on the person (the edit's permission).
	"turn2 waits": "request_permission client under execute_tool edit: approved",
}

// oneTreeLacks are the facts a source cannot give, and what it gives
// instead: the test holds each source to it, so that nothing is skipped
// silently. docs/trace.md's table of the sources says the same. A row
// whose why starts "differs:" is a fact the source gives in another form,
// a disagreement left (counted apart).
var oneTreeLacks = []struct {
	fact, source, gives, why string
}{
	{"turn1 cost", fromStream, "estimate USD", "the stream reports no cost: cursor-otel's estimate from its price table, in USD"},
	{"turn2 cost", fromStream, "estimate USD", "the stream reports no cost: cursor-otel's estimate from its price table, in USD"},
	{"turn1 cost", fromHooks, "estimate USD", "hooks report no cost: cursor-otel's estimate from its price table, in USD"},
	{"turn2 cost", fromHooks, "estimate USD", "hooks report no cost: cursor-otel's estimate from its price table, in USD"},
	{"turn1 model call id", fromHooks, "", "hooks name generations, not model calls"},
	{"turn1 model call id", fromACP, "", "ACP tells no model calls"},
	{"turn1 model calls", fromACP, "", "ACP tells no model calls"},
	{"turn2 model calls", fromACP, "", "ACP tells no model calls"},
	{"turn1 thinking", fromACP, "1 on invoke_agent", "ACP tells no model calls: thinking is the turn's"},
	{"t-test", fromACP, "execute_tool shell internal; under invoke_agent; Error error.type=error outcome=error", "ACP tells no model calls: tools are the turn's"},
	{"t-read", fromACP, "execute_tool read internal; under invoke_agent; Unset outcome=success", "ACP tells no model calls: tools are the turn's"},
	{"t-edit", fromACP, "execute_tool edit internal; under invoke_agent; Unset outcome=success", "ACP tells no model calls: tools are the turn's"},
	{"t-rerun", fromACP, "execute_tool shell internal; under invoke_agent; Error error.type=incomplete outcome=incomplete", "ACP tells no model calls: tools are the turn's"},
	{"t-test exit code", fromACP, "", "ACP's tool updates carry no exit status (rawOutput is each agent's own)"},
	{"t-read view", fromHooks, `arguments={"path":"/work/app/queue.go"} result={"outcome":"success"}`, "the hooks give a read's output, not the size the stream's read result states (cursor.tool.lines, cursor.tool.bytes)"},
	{"t-test view", fromACP, `arguments= result={"outcome":"error"}`, "ACP's tool updates name no command, exit status nor output size as metadata (rawInput and rawOutput are each agent's own, kept only with content capture)"},
	{"t-read view", fromACP, `arguments= result={"outcome":"success"}`, "ACP's tool updates give no file size, and their locations are not cursor.tool.path"},
	{"t-edit view", fromACP, `arguments= result={"outcome":"success"}`, "ACP's tool updates give no lines added or removed, and their locations are not cursor.tool.path"},
	{"t-rerun view", fromACP, `arguments= result={"outcome":"incomplete"}`, "ACP's tool updates name no command as metadata (rawInput is kept only with content capture)"},
	{"turn2 waits", fromHooks, "", "no hook tells of a permission asked of the person (Cursor's hooks ask cursor-otel, never tell what the person answered)"},
}

// TestOneConversationThreeSources holds the three sources to one tree.
func TestOneConversationThreeSources(t *testing.T) {
	const dir = "testdata/onetree/"
	got := map[string]map[string]string{
		fromStream: oneTreeFacts(t, oneTreeStream(t, dir)),
		fromHooks:  oneTreeFacts(t, oneTreeHooks(t, dir)),
		fromACP:    oneTreeFacts(t, oneTreeACP(t, dir)),
	}
	agree, lacks, differs, total := 0, 0, 0, 0
	for _, fact := range slices.Sorted(maps.Keys(oneTreeWant)) {
		for _, source := range oneTreeSources {
			want, why := oneTreeWant[fact], ""
			for _, l := range oneTreeLacks {
				if l.fact == fact && l.source == source {
					want, why = l.gives, " ("+l.why+")"
					if strings.HasPrefix(l.why, "differs:") {
						differs++
					} else {
						lacks++
					}
				}
			}
			total++
			if g := got[source][fact]; g != want {
				t.Errorf("%s, from the %s: %q, want %q%s", fact, source, g, want, why)
				continue
			}
			agree++
		}
	}
	t.Logf("%d of %d comparisons as the table says: %d the same tree, %d a lack the table names, %d a difference it names",
		agree, total, agree-lacks-differs, lacks, differs)
}

// A turn whose end never came (the agent killed in the second turn: the
// stream's result, the hooks' stop, ACP's answer to the prompt never
// came) is the same tree from each source: its root ERROR incomplete, as
// its tool left unfinished, by the one rule for work left open.
func TestTurnWithoutItsEndThreeSources(t *testing.T) {
	dir := t.TempDir() + "/"
	oneTreeCopy(t, dir, "stream-turn1.ndjson", "", "") // the first turn whole
	oneTreeCopy(t, dir, "acp-turn1.jsonl", "", "")
	oneTreeCopy(t, dir, "stream-turn2.ndjson", `"type":"result"`, "")
	oneTreeCopy(t, dir, "acp-turn2.jsonl", `"stopReason"`, "")
	// Hooks never hear of a killed agent: the turn is closed by what
	// comes next, here the conversation's next prompt.
	oneTreeCopy(t, dir, "hooks.ndjson", `"hook_event_name":"stop"`, `{"hook_event_name":"beforeSubmitPrompt","generation_id":"gen-3","conversation_id":"conv-one","prompt":"Again"}`)
	want := map[string]string{
		"turns":      "2",
		"turn1 root": "invoke_agent cursor-agent client Unset",
		"turn2 root": "invoke_agent cursor-agent client Error error.type=incomplete",
		"t-rerun":    oneTreeWant["t-rerun"],
	}
	for source, spans := range map[string]tracetest.SpanStubs{
		fromStream: oneTreeStream(t, dir), fromHooks: oneTreeHooks(t, dir), fromACP: oneTreeACP(t, dir),
	} {
		got := oneTreeFacts(t, spans)
		for _, fact := range slices.Sorted(maps.Keys(want)) {
			w := want[fact]
			for _, l := range oneTreeLacks {
				if l.fact == fact && l.source == source {
					w = l.gives
				}
			}
			if got[fact] != w {
				t.Errorf("%s, from the %s: %q, want %q", fact, source, got[fact], w)
			}
		}
	}
}

// A turn the person cancelled (Ctrl-C on a wrapped run: a SIGINT passed
// on and the agent's exit status 130; a hook stop that says aborted;
// ACP's session/cancel) is the same tree from each source: its tool left
// running incomplete, and neither it nor the root ERROR nor with an
// error.type, by the one rule for work left open.
func TestCancelledTurnThreeSources(t *testing.T) {
	dir := t.TempDir() + "/"
	oneTreeCopy(t, dir, "stream-turn1.ndjson", "", "")
	oneTreeCopy(t, dir, "acp-turn1.jsonl", "", "")
	oneTreeCopy(t, dir, "stream-turn2.ndjson", `"type":"result"`, "")
	oneTreeCopy(t, dir, "acp-turn2.jsonl", `"stopReason"`,
		`>{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"conv-one"}}`+"\n"+
			`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}`)
	b, err := os.ReadFile("testdata/onetree/hooks.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := &lines[len(lines)-1]
	if !strings.Contains(*last, `"hook_event_name":"stop"`) {
		t.Fatal("hooks.ndjson: the last line is not the turn's stop")
	}
	*last = strings.Replace(*last, `"status":"completed"`, `"status":"aborted"`, 1)
	if err := os.WriteFile(dir+"hooks.ndjson", []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	interrupted := 130
	at := time.UnixMilli(1790000065000)
	store := oneTreeStore(t)
	stream := recordFile(t, dir+"stream-turn1.ndjson", Options{Turns: store})
	stream = append(stream, recordFileEnd(t, dir+"stream-turn2.ndjson", Options{Turns: store},
		End{Time: at, ExitCode: &interrupted, Signals: []Signal{{Name: "SIGINT", At: at}}, Cancelled: true})...)
	cancelled := "execute_tool shell internal; under chat; Unset outcome=incomplete"
	want := map[string]string{
		"turns":      "2",
		"turn1 root": "invoke_agent cursor-agent client Unset",
		"turn2 root": "invoke_agent cursor-agent client Unset",
		"t-rerun":    cancelled,
	}
	for source, spans := range map[string]tracetest.SpanStubs{
		fromStream: stream, fromHooks: oneTreeHooks(t, dir), fromACP: oneTreeACP(t, dir),
	} {
		got := oneTreeFacts(t, spans)
		for _, fact := range slices.Sorted(maps.Keys(want)) {
			w := want[fact]
			if fact == "t-rerun" && source == fromACP { // ACP tells no model calls
				w = strings.Replace(w, "under chat", "under invoke_agent", 1)
			}
			if got[fact] != w {
				t.Errorf("%s, from the %s: %q, want %q", fact, source, got[fact], w)
			}
		}
	}
}

// A plan the agent asks the person to approve (the stream's
// createPlanRequestQuery, ACP's cursor/create_plan) is one wait from
// each source: the same span name, kind and answer, said in one
// attribute. (No hook tells of a wait on the person.)
func TestPlanApprovalThreeSources(t *testing.T) {
	dir := t.TempDir() + "/"
	oneTreeCopy(t, dir, "stream-turn1.ndjson", "", "")
	oneTreeCopy(t, dir, "acp-turn1.jsonl", "", "")
	oneTreeEdit(t, dir, "stream-turn2.ndjson",
		`{"editRequestQuery":{"path":"/work/app/queue.go"}}`, `{"createPlanRequestQuery":{"plan":"1. Fix the bound"}}`,
		`{"editRequestResponse":{"approved":{}}}`, `{"createPlanRequestResponse":{"approved":{}}}`)
	oneTreeEdit(t, dir, "acp-turn2.jsonl",
		`"method":"session/request_permission","params":{"sessionId":"conv-one","toolCall":{"toolCallId":"t-edit"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"},{"optionId":"reject","name":"Reject","kind":"reject_once"}]}`,
		`"method":"cursor/create_plan","params":{"toolCallId":"t-edit","name":"Fix","plan":"1. Fix the bound"}`,
		`"result":{"outcome":{"outcome":"selected","optionId":"allow"}}`, `"result":{"outcome":"accepted"}`)
	for source, spans := range map[string]tracetest.SpanStubs{fromStream: oneTreeStream(t, dir), fromACP: oneTreeACP(t, dir)} {
		var waits []string
		for _, s := range spans {
			if attr(s, Wait) != "true" {
				continue
			}
			var answers []string
			for _, kv := range s.Attributes {
				if strings.HasSuffix(string(kv.Key), ".outcome") {
					answers = append(answers, string(kv.Key)+"="+kv.Value.String())
				}
			}
			waits = append(waits, s.Name+" "+strings.ToLower(s.SpanKind.String())+" "+strings.Join(answers, " "))
		}
		if want := "request_permission client cursor.interaction.outcome=approved"; len(waits) != 1 || waits[0] != want {
			t.Errorf("from the %s, the waits: %q, want one: %q", source, waits, want)
		}
	}
}

// Two ways ACP says the same update each give what they say: a todo
// list sent as a cursor/update_todos notification, then as a request, is
// two cursor.todos events with every status; a question's answer says
// which options the person chose, by id (their text stays out without
// content capture). The stream and the hooks tell a todo list as a tool
// call (updateTodos), and a question as the ask_question tool.
func TestUpdatesSaidTwoWaysACP(t *testing.T) {
	by := acpSpans(acpScript(t, acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"q1","kind":"other","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","method":"cursor/update_todos","params":{"toolCallId":"q1","todos":[{"id":"1","content":"migrate","status":"in_progress"},{"id":"2","content":"test","status":"pending"}]}}`,
		`<{"jsonrpc":"2.0","id":4,"method":"cursor/update_todos","params":{"toolCallId":"q1","todos":[{"id":"1","content":"migrate","status":"completed"},{"id":"2","content":"test","status":"pending"}]}}`,
		`>{"jsonrpc":"2.0","id":4,"result":{}}`,
		`<{"jsonrpc":"2.0","id":5,"method":"cursor/ask_question","params":{"toolCallId":"q1","title":"Which?","questions":[{"id":"db","prompt":"Which database?","options":[{"id":"pg","label":"Postgres"},{"id":"my","label":"MySQL"}]}]}}`,
		`>{"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"answered","answers":[{"questionId":"db","selectedOptionIds":["pg"]}]}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	))
	var todos []string
	for _, r := range by["invoke_agent cursor-agent"] {
		for _, ev := range r.Events() {
			if ev.Name == EventACPTodos {
				for _, kv := range ev.Attributes {
					todos = append(todos, string(kv.Key)+"="+kv.Value.String())
				}
			}
		}
	}
	if want := []string{`cursor.todos.statuses=["in_progress","pending"]`, `cursor.todos.statuses=["completed","pending"]`}; !slices.Equal(todos, want) {
		t.Errorf("the todo events: %q, want %q", todos, want)
	}
	q := by["cursor/ask_question"]
	if len(q) != 1 || spanAttr(q[0], "cursor.interaction.outcome") != "answered" || spanAttr(q[0], "cursor.interaction.option_ids") != `["pg"]` {
		t.Fatalf("the question: %v", names(by))
	}
	for _, kv := range q[0].Attributes() {
		if strings.Contains(kv.Value.String(), "Postgres") {
			t.Errorf("%s holds the option's text without content capture", kv.Key)
		}
	}
}

// An ACP subagent (subagent_update announcing a child session) records
// its session id, its own tokens on its span, summed into its turn's
// totals once (summed over the trace, each gen_ai.usage.* figure is the
// turn's cursor.usage.* total), and its message to its parent is an
// event naming the session that sent it. (The stream's and the hooks'
// subagents carry no session of their own, nor usage, and no messages
// between sessions: they lack these facts.)
func TestSubagentUsageAndMessagesACP(t *testing.T) {
	spans := acpScript(t, acpNewSession, acpNewSessionA, acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"task-1","kind":"other","title":"Explore","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"subagent_update","sessionId":"child-1","title":"explore","state":{"state":"running"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"child-1","update":{"sessionUpdate":"session_message","content":{"type":"text","text":"found it"}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"subagent_update","sessionId":"child-1","state":{"state":"idle","stopReason":"end_turn","usage":{"inputTokens":1200,"outputTokens":300,"totalTokens":1500}}}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call_update","toolCallId":"task-1","status":"completed"}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn","usage":{"inputTokens":5000,"outputTokens":800,"totalTokens":5800}}}`,
	)
	by := acpSpans(spans)
	sub, root := by["invoke_agent explore"], rootsByPrompt(spans)
	if len(sub) != 1 || len(root) != 1 {
		t.Fatalf("want one turn and its subagent: %v", names(by))
	}
	if got := spanAttr(sub[0], "cursor.subagent.session_id"); got != "child-1" {
		t.Errorf("the subagent's session: %q, want child-1", got)
	}
	if got := spanAttr(sub[0], "gen_ai.usage.input_tokens") + "/" + spanAttr(sub[0], "gen_ai.usage.output_tokens"); got != "1200/300" {
		t.Errorf("the subagent's own tokens: %s, want 1200/300", got)
	}
	if got := spanAttr(root[0], "cursor.usage.input_tokens") + "/" + spanAttr(root[0], "cursor.usage.output_tokens"); got != "6200/1100" {
		t.Errorf("the turn's totals: %s, want 6200/1100 (5,000 + 1,200 in, 800 + 300 out)", got)
	}
	var in, out int64
	for _, ss := range by {
		for _, s := range ss {
			v, _ := strconv.ParseInt(spanAttr(s, "gen_ai.usage.input_tokens"), 10, 64)
			in += v
			v, _ = strconv.ParseInt(spanAttr(s, "gen_ai.usage.output_tokens"), 10, 64)
			out += v
		}
	}
	if in != 6200 || out != 1100 {
		t.Errorf("summed over the trace: %d in, %d out; want each counted once: 6200, 1100", in, out)
	}
	var from []string
	for _, ss := range by {
		for _, s := range ss {
			for _, ev := range s.Events() {
				for _, kv := range ev.Attributes {
					if kv.Key == MessageFromSession {
						from = append(from, kv.Value.AsString())
					}
					if strings.Contains(kv.Value.String(), "found it") {
						t.Errorf("the message's text without content capture: %s", kv.Key)
					}
				}
			}
		}
	}
	if !slices.Equal(from, []string{"child-1"}) {
		t.Errorf("the messages' senders: %q, want the child's session", from)
	}
}

// A subagent that failed reads the same from each source that tells a
// subagent's end (ACP's subagent updates, the hooks' subagentStop; a
// stream's task result says no status): ERROR with error.type
// agent_error, and its status as said.
func TestFailedSubagentTwoSources(t *testing.T) {
	acp := acpScript(t, acpNewSession, acpNewSessionA, acpPrompt1,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"tool_call","toolCallId":"task-1","kind":"other","title":"Explore","status":"in_progress"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"subagent_spawned","toolCallId":"task-1","name":"explore","status":"running"}}}`,
		`<{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"a","update":{"sessionUpdate":"subagent_spawned","toolCallId":"task-1","name":"explore","status":"failed"}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`,
	)
	hooks := buildHooks(t, `{"hook_event_name":"beforeSubmitPrompt","conversation_id":"c","generation_id":"g","prompt":"look"}`,
		`{"hook_event_name":"subagentStart","conversation_id":"c","generation_id":"g","subagent_id":"s1","subagent_type":"explore"}`,
		`{"hook_event_name":"subagentStop","conversation_id":"c","generation_id":"g","subagent_id":"s1","subagent_type":"explore","status":"failed"}`,
		`{"hook_event_name":"stop","conversation_id":"c","generation_id":"g","status":"completed"}`).records()
	got := map[string]string{}
	for _, s := range acpSpans(acp)["invoke_agent explore"] {
		got[fromACP] = fmt.Sprintf("%s error.type=%s status=%s", s.Status().Code, spanAttr(s, "error.type"), spanAttr(s, "cursor.subagent.status"))
	}
	for _, r := range named(hooks, "invoke_agent explore") {
		got[fromHooks] = fmt.Sprintf("%s error.type=%s status=%s", r.Status, Value(r.Attrs, ErrorType).AsString(), Value(r.Attrs, SubagentStatus).AsString())
	}
	want := "Error error.type=agent_error status=failed"
	for _, source := range []string{fromACP, fromHooks} {
		if got[source] != want {
			t.Errorf("the failed subagent, from the %s: %q, want %q", source, got[source], want)
		}
	}
}

// Every turn's root names the source that told it (cursor.source), so
// that a query or a team's figures tell them apart by one attribute.
func TestRootNamesItsSourceThreeSources(t *testing.T) {
	dir := "testdata/onetree/"
	for source, spans := range map[string]tracetest.SpanStubs{
		fromStream: oneTreeStream(t, dir), fromHooks: oneTreeHooks(t, dir), fromACP: oneTreeACP(t, dir),
	} {
		roots := 0
		for _, s := range spans {
			if !s.Parent.IsValid() {
				roots++
				if got := Value(s.Attributes, Source).AsString(); got != source {
					t.Errorf("a turn's root from the %s says cursor.source=%q", source, got)
				}
			}
		}
		if roots != 2 {
			t.Errorf("%d turn roots from the %s, want 2", roots, source)
		}
	}
}

// oneTreeEdit copies testdata/onetree/name into dir with each pair of
// old and new replaced (each old must be there).
func oneTreeEdit(t *testing.T, dir, name string, oldNew ...string) {
	t.Helper()
	b, err := os.ReadFile("testdata/onetree/" + name)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !strings.Contains(text, oldNew[i]) {
			t.Fatalf("%s: no %s", name, oldNew[i])
		}
		text = strings.Replace(text, oldNew[i], oldNew[i+1], 1)
	}
	if err := os.WriteFile(dir+name, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// oneTreeCopy copies testdata/onetree/name into dir; with last, the last
// line (which must hold last) is dropped, and instead (lines) put in its
// place.
func oneTreeCopy(t *testing.T, dir, name, last, instead string) {
	t.Helper()
	b, err := os.ReadFile("testdata/onetree/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if last != "" {
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if !strings.Contains(lines[len(lines)-1], last) {
			t.Fatalf("%s: the last line is not the turn's end (%s)", name, last)
		}
		lines = lines[:len(lines)-1]
		if instead != "" {
			lines = append(lines, instead)
		}
		b = []byte(strings.Join(lines, "\n") + "\n")
	}
	if err := os.WriteFile(dir+name, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// recordFileEnd records a stream file as a run that ended as end says.
func recordFileEnd(t *testing.T, path string, opts Options, end End) tracetest.SpanStubs {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if opts.Now == nil {
		opts.Now = func() time.Time { return replayTime }
	}
	rec, exp := newTestRecorder(opts)
	dec := parse.NewDecoder(f)
	for {
		ev, err := dec.Next()
		if err != nil {
			break
		}
		rec.Record(ev, time.Time{})
	}
	rec.Finish(end)
	return exp.GetSpans()
}

// oneTreeStore is a conversation store of the test's own.
func oneTreeStore(t *testing.T) Turns {
	return conversation.Store{Dir: t.TempDir()}
}

// oneTreeStream replays each turn's recording (in dir) as a run of its
// own.
func oneTreeStream(t *testing.T, dir string) tracetest.SpanStubs {
	store := oneTreeStore(t)
	var spans tracetest.SpanStubs
	for _, f := range []string{"stream-turn1.ndjson", "stream-turn2.ndjson"} {
		spans = append(spans, recordFile(t, dir+f, Options{Turns: store})...)
	}
	return spans
}

// oneTreeHooks steps each hook event as a process of its own: the state
// read back, the records through the spool (hookConversation).
func oneTreeHooks(t *testing.T, dir string) tracetest.SpanStubs {
	return hookConversation(t, dir+"hooks.ndjson", Options{Turns: oneTreeStore(t)})
}

// oneTreeACP runs each turn's messages through an agent process of its
// own: the second loads the session the first made.
func oneTreeACP(t *testing.T, dir string) tracetest.SpanStubs {
	store := oneTreeStore(t)
	rec := tracetest.NewSpanRecorder()
	ids := &testIDs{}
	tp := ids.provider(rec)
	at := time.Unix(1_800_000_000, 0)
	for _, name := range []string{"acp-turn1.jsonl", "acp-turn2.jsonl"} {
		b, err := os.ReadFile(dir + name)
		if err != nil {
			t.Fatal(err)
		}
		a := ids.acp(tp.Tracer(""), Options{Turns: store})
		d := parse.NewACPDecoder()
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			m, ok := d.Decode(l[0] == '>', []byte(l[1:]))
			if !ok {
				t.Fatalf("%s: not a message: %s", name, l)
			}
			at = at.Add(time.Millisecond)
			a.Observe(m, at)
		}
		a.Close(at.Add(time.Millisecond), "the agent exited")
	}
	spans := tracetest.SpanStubsFromReadOnlySpans(rec.Ended())
	for _, s := range spans {
		checkOperation(t, s.Name, attr(s, OperationName), attr(s, ToolName))
	}
	return spans
}

// oneTreeFacts reads the facts oneTreeWant names off a source's spans.
func oneTreeFacts(t *testing.T, spans tracetest.SpanStubs) map[string]string {
	t.Helper()
	facts := map[string]string{}
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
	}
	get := func(s tracetest.SpanStub, k attribute.Key) string { return attr(s, k) }
	op := func(s tracetest.SpanStub) string { return get(s, OperationName) }
	var roots []tracetest.SpanStub
	for _, s := range spans {
		if !s.Parent.IsValid() && op(s) == OpInvokeAgent {
			roots = append(roots, s)
		}
	}
	slices.SortFunc(roots, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
	facts["turns"] = strconv.Itoa(len(roots))
	inTrace := func(root tracetest.SpanStub) []tracetest.SpanStub {
		var out []tracetest.SpanStub
		for _, s := range spans {
			if s.SpanContext.TraceID() == root.SpanContext.TraceID() {
				out = append(out, s)
			}
		}
		return out
	}
	named := map[string]bool{}
	for _, s := range spans {
		named[get(s, ConversationID)+" "+get(s, AgentName)] = true
	}
	if len(named) == 1 {
		for k := range named {
			facts["every span names"] = k
		}
	} else {
		facts["every span names"] = fmt.Sprint(slices.Sorted(maps.Keys(named)))
	}
	for n, root := range roots {
		turn := "turn" + strconv.Itoa(n+1)
		facts[turn+" root"] = fmt.Sprintf("%s %s %s", root.Name, strings.ToLower(root.SpanKind.String()), root.Status.Code)
		if e := get(root, ErrorType); e != "" {
			facts[turn+" root"] += " error.type=" + e
		}
		facts[turn+" conversation"] = get(root, ConversationID)
		facts[turn+" cwd"] = get(root, Cwd)
		facts[turn+" model"] = get(root, RequestModel)
		facts[turn+" totals"] = fmt.Sprintf("in=%s out=%s cache_read=%s cache_write=%s", get(root, TotalInputTokens), get(root, TotalOutputTokens),
			get(root, TotalCacheReadTokens), get(root, TotalCacheWriteTokens))
		var in, out int64
		var chats []string
		thinking := map[string]int{}
		for _, s := range inTrace(root) {
			v, _ := attrInt(s, InputTokens)
			in += v
			v, _ = attrInt(s, OutputTokens)
			out += v
			if op(s) == OpChat {
				chats = append(chats, s.Name)
				if id := get(s, ModelCallID); id != "" {
					facts[turn+" model call id"] = id
				}
			}
			for _, e := range s.Events {
				if e.Name == EventThinking {
					thinking[op(s)]++
				}
			}
			if get(s, Wait) == "true" {
				facts[turn+" waits"] = oneTreeWait(s, byID)
			}
		}
		facts[turn+" usage (trace)"] = fmt.Sprintf("in=%d out=%d", in, out)
		facts[turn+" model calls"] = strings.Join(chats, ", ")
		for where, count := range thinking {
			facts[turn+" thinking"] = fmt.Sprintf("%d on %s", count, where)
		}
		switch currency := get(root, CostCurrency); {
		case currency == USD && get(root, CostPricing) != "":
			facts[turn+" cost"] = "estimate USD"
		case get(root, CostUSD) != "":
			facts[turn+" cost"] = get(root, CostUSD) + " " + currency
		}
		for _, l := range root.Links {
			for m, other := range roots {
				if l.SpanContext.SpanID() == other.SpanContext.SpanID() && l.SpanContext.TraceID() == other.SpanContext.TraceID() {
					facts[turn+" links to"] = "turn" + strconv.Itoa(m+1) + " root"
				}
			}
		}
	}
	for _, s := range spans {
		if op(s) != OpExecuteTool {
			continue
		}
		id := get(s, ToolCallID)
		parent := op(byID[s.Parent.SpanID()])
		f := fmt.Sprintf("%s %s; under %s; %s", s.Name, strings.ToLower(s.SpanKind.String()), parent, s.Status.Code)
		if e := get(s, ErrorType); e != "" {
			f += " error.type=" + e
		}
		facts[id] = f + " outcome=" + get(s, ToolOutcome)
		if c := get(s, ToolExitCode); c != "" {
			facts[id+" exit code"] = c
		}
		facts[id+" view"] = "arguments=" + get(s, ToolArguments) + " result=" + get(s, ToolResult)
	}
	return facts
}

// oneTreeWait says how a wait on the person shows: its span, kind and
// parent, and the answer.
func oneTreeWait(s tracetest.SpanStub, byID map[trace.SpanID]tracetest.SpanStub) string {
	answer := attr(s, InteractionOutcome)
	if s.Status.Code == codes.Error {
		answer = "error"
	}
	return s.Name + " " + strings.ToLower(s.SpanKind.String()) + " under " + byID[s.Parent.SpanID()].Name + ": " + answer
}

// A conversation continued by another source links to its last turn
// whoever traced it, through the store they share: a wrapped run, then
// the editor's hooks, then an ACP agent loading the session.
func TestTurnsLinkAcrossSources(t *testing.T) {
	store := oneTreeStore(t)
	stream := recordFile(t, "testdata/onetree/stream-turn1.ndjson", Options{Turns: store})
	first, _ := store.Last("conv-one")
	if first.SpanID() != spansNamed(stream, OpInvokeAgent)[0].SpanContext.SpanID() {
		t.Fatalf("the stream's turn is not the conversation's last: %v", first)
	}

	var st HookState // a state of its own: the hooks never saw the first turn
	h := NewHooks(context.Background(), nil, Options{Turns: store})
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	var hookRoot spanRecord
	var entries []parse.HookEntry
	for _, line := range []string{
		`{"hook_event_name":"beforeSubmitPrompt","conversation_id":"conv-one","generation_id":"gen-2","prompt":"Apply it"}`,
		`{"hook_event_name":"stop","conversation_id":"conv-one","generation_id":"gen-2","status":"completed"}`,
	} {
		now = now.Add(time.Second)
		ev, err := parse.DecodeHook([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, parse.HookEntry{At: now, Event: ev})
	}
	for _, r := range h.Build(&st, entries, now.Add(HookGrace)).records() {
		if !r.Parent.IsValid() {
			hookRoot = r
		}
	}
	if len(hookRoot.Links) != 1 || hookRoot.Links[0].SpanID != first.SpanID() || hookRoot.Links[0].TraceID != first.TraceID() {
		t.Fatalf("the hooks' turn links to %v, want the stream's %v", hookRoot.Links, first)
	}

	rec := tracetest.NewSpanRecorder()
	ids := &testIDs{}
	a := ids.acp(ids.provider(rec).Tracer(""), Options{Turns: store})
	d := parse.NewACPDecoder()
	at := time.Unix(1_800_000_000, 0)
	for _, l := range []string{
		`>{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"conv-one","cwd":"/work/app","mcpServers":[]}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{}}`,
		`>{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"conv-one","prompt":[]}}`,
		`<{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
	} {
		m, _ := d.Decode(l[0] == '>', []byte(l[1:]))
		at = at.Add(time.Millisecond)
		a.Observe(m, at)
	}
	roots := rootsByPrompt(rec.Ended())
	if len(roots) != 1 || len(roots[0].Links()) != 1 || roots[0].Links()[0].SpanContext.SpanID() != hookRoot.SpanID {
		t.Fatalf("the ACP turn's links: %v, want the hooks' turn %s", roots, hookRoot.SpanID)
	}
}
