package parse

import "encoding/json"

// An ACP session's messages as typed events: each request, notification
// and answer with its params or result decoded by its method, and each
// answer paired with the request it answers. The tracer reads these and
// nothing of JSON-RPC's framing.

// ACPEvent is an *ACPRequest, an *ACPNotification or an *ACPAnswer.
type ACPEvent interface{ acpEvent() }

// ACPRequest is a request, either way, its params decoded.
type ACPRequest struct {
	ID         string // by value (see normalID)
	Method     string
	FromEditor bool
	// Ref is what any request's params name: its session, the tool call
	// it belongs to, a file, a model or mode set, a permission's options.
	Ref        ACPSessionRef
	Initialize ACPInitialize // initialize's params
	Prompt     ACPPrompt     // session/prompt's params
	// Params are the params as sent: a wait's request, with content capture.
	Params json.RawMessage
	// Replaces is the request still unanswered whose id (same direction)
	// this one took: its answer will never come.
	Replaces *ACPRequest
}

// ACPNotification is a method call with no answer, its params decoded.
// The decoder reuses it: it is valid until its next Decode (requests and
// answers are not reused).
type ACPNotification struct {
	Method     string
	FromEditor bool
	Ref        ACPSessionRef    // every notification's but session/update's
	Update     *ACPUpdateParams // session/update's; nil when its params do not decode
}

// ACPAnswer is an answer, paired by id with the request it answers.
type ACPAnswer struct {
	ID         string
	FromEditor bool
	// Request is the request answered (it went the other way), nil when
	// none with that id is unanswered: the result is then not decoded.
	Request *ACPRequest
	Error   *RPCError
	Result  ACPResult
	// Raw is the result as sent: a wait's answer, with content capture.
	Raw json.RawMessage
}

// ACPResult is an answer's result, decoded by its request's method: the
// field of that method is set, the others are zero.
type ACPResult struct {
	Initialize ACPInitialize       // initialize
	Session    ACPSessionResult    // session/new, load, resume, fork, set_config_option, set_mode
	Prompt     ACPPromptResult     // session/prompt
	Task       ACPTaskResult       // cursor/task
	Permission ACPPermissionResult // session/request_permission
	// Outcome is what the person answered a wait on them with (see
	// ACPWaitKind), as acpOutcome reads it.
	Outcome string
	// Chosen are the ids of the options the person chose answering a
	// question (cursor/ask_question's selectedOptionIds), in order.
	Chosen []string
}

func (*ACPRequest) acpEvent()      {}
func (*ACPNotification) acpEvent() {}
func (*ACPAnswer) acpEvent()       {}

// The kinds of wait on the person, as cursor.wait.kind says them.
const (
	WaitPermission  = "permission"
	WaitQuestion    = "question"
	WaitPlan        = "plan"
	WaitElicitation = "elicitation"
)

// ACPWaitKind is the kind of wait on the person an agent's request is,
// "" when it is none: the one list of ACP's waits. Every answer to one
// but a permission's has an outcome (ACPAnswer.Outcome).
func ACPWaitKind(method string) string {
	switch method {
	case "session/request_permission":
		return WaitPermission
	case "cursor/ask_question":
		return WaitQuestion
	case "cursor/create_plan":
		return WaitPlan
	case "elicitation/create":
		return WaitElicitation
	}
	return ""
}

// ACPDecoder decodes one ACP session's lines, both ways, into events. It
// holds the requests not yet answered, to pair each answer with its
// request. Safe for use from one goroutine at a time.
type ACPDecoder struct {
	awaiting map[string]*ACPRequest // by direction and id: an id is unique per direction
	// note and update are the notification decoded last: a session's
	// updates are most of its messages, and none is kept past its turn
	// of the tracer.
	note   ACPNotification
	update ACPUpdateParams
}

// NewACPDecoder decodes a session from its start.
func NewACPDecoder() *ACPDecoder {
	return &ACPDecoder{awaiting: map[string]*ACPRequest{}}
}

// maxPendingACP bounds the requests held unanswered: the protocol answers
// every request, so only a broken peer reaches it, and a session that
// lasts for hours must not grow by each request it never saw answered.
const maxPendingACP = 4096

// forgetOne drops one unanswered request (any: none is expected to be
// answered any more); its answer, should it come, arrives without it.
func (d *ACPDecoder) forgetOne() {
	for k := range d.awaiting {
		delete(d.awaiting, k)
		return
	}
}

func pendingKey(fromEditor bool, id string) string {
	if fromEditor {
		return "e" + id
	}
	return "a" + id
}

// Decode reads one line that went fromEditor (or from the agent). ok is
// false for a line that is no JSON-RPC 2.0 message (see DecodeACP).
// Params and results that do not decode leave their fields zero (or
// those that did decode set): a message is never lost for its params.
func (d *ACPDecoder) Decode(fromEditor bool, line []byte) (ACPEvent, bool) {
	m, ok := DecodeACP(line)
	if !ok {
		return nil, false
	}
	switch {
	case m.IsRequest():
		r := &ACPRequest{ID: m.ID, Method: m.Method, FromEditor: fromEditor, Params: m.Params}
		_ = json.Unmarshal(m.Params, &r.Ref)
		switch m.Method {
		case "initialize":
			_ = json.Unmarshal(m.Params, &r.Initialize)
		case "session/prompt":
			_ = json.Unmarshal(m.Params, &r.Prompt)
		}
		key := pendingKey(fromEditor, m.ID)
		if old := d.awaiting[key]; old != nil {
			old.Replaces = nil // told when old came: no chain of them is held
			r.Replaces = old
		}
		if len(d.awaiting) >= maxPendingACP {
			d.forgetOne() // a session that never answers grows no further
		}
		d.awaiting[key] = r
		return r, true
	case m.IsNotification():
		n := &d.note
		*n = ACPNotification{Method: m.Method, FromEditor: fromEditor}
		if m.Method == "session/update" {
			// Zeroed first: decoded into, a pointer left from the last
			// update would be written through.
			d.update = ACPUpdateParams{}
			if json.Unmarshal(m.Params, &d.update) == nil {
				n.Update = &d.update
			}
		} else {
			_ = json.Unmarshal(m.Params, &n.Ref)
		}
		return n, true
	}
	// An answer goes the other way from its request.
	key := pendingKey(!fromEditor, m.ID)
	a := &ACPAnswer{ID: m.ID, FromEditor: fromEditor, Request: d.awaiting[key], Error: m.Error, Raw: m.Result}
	if a.Request == nil {
		return a, true
	}
	delete(d.awaiting, key)
	a.Request.Replaces = nil
	a.Result = decodeACPResult(a.Request.Method, m.Result)
	return a, true
}

// decodeACPResult decodes an answer's result by its request's method.
func decodeACPResult(method string, raw json.RawMessage) ACPResult {
	var r ACPResult
	if len(raw) == 0 {
		return r
	}
	switch method {
	case "initialize":
		_ = json.Unmarshal(raw, &r.Initialize)
	case "session/new", "session/load", "session/resume", "session/fork", "session/set_config_option", "session/set_mode":
		_ = json.Unmarshal(raw, &r.Session)
	case "session/prompt":
		_ = json.Unmarshal(raw, &r.Prompt)
	case "cursor/task":
		_ = json.Unmarshal(raw, &r.Task)
	case "session/request_permission":
		_ = json.Unmarshal(raw, &r.Permission)
	default:
		if ACPWaitKind(method) != "" {
			r.Outcome, r.Chosen = acpOutcome(raw), acpChosen(raw)
		}
	}
	return r
}
