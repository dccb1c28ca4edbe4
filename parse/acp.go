package parse

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// ACP (the Agent Client Protocol) is JSON-RPC 2.0, one message a line,
// requests going both ways between an editor and the agent. This file
// reads those lines; acp_types.go gives the typed fields the trace uses.

// ACPMessage is one JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method, no ID), or an answer (ID, Result or Error).
type ACPMessage struct {
	ID     string          // the id by value (see normalID): a number or a quoted string; "" for a notification
	Method string          // a request's or notification's
	Params json.RawMessage // a request's or notification's
	Result json.RawMessage // an answer's
	Error  *RPCError       // an error answer's
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// IsRequest says the message asks for an answer.
func (m *ACPMessage) IsRequest() bool { return m.Method != "" && m.ID != "" }

// IsNotification says the message is a method call with no answer.
func (m *ACPMessage) IsNotification() bool { return m.Method != "" && m.ID == "" }

type wireRPC struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCError       `json:"error"`
}

// DecodeACP reads one line as a JSON-RPC 2.0 message. ok is false for
// anything else (not JSON, not an object, no "jsonrpc":"2.0", neither a
// method nor an id): such lines pass through untraced.
func DecodeACP(line []byte) (*ACPMessage, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return nil, false
	}
	var w wireRPC
	if err := json.Unmarshal(line, &w); err != nil || w.JSONRPC != "2.0" {
		return nil, false
	}
	m := &ACPMessage{Method: w.Method, Params: w.Params, Result: w.Result, Error: w.Error}
	if id := bytes.TrimSpace(w.ID); len(id) > 0 && !bytes.Equal(id, []byte("null")) {
		m.ID = normalID(id)
	}
	if m.Method == "" && m.ID == "" {
		return nil, false
	}
	if m.Method == "" && m.Result == nil && m.Error == nil {
		return nil, false // an id alone answers nothing
	}
	return m, true
}

// normalID is an id written so that ids equal by value are equal as
// text: a number in its shortest integer form when it is one (2.0, 2e0
// and 2 are "2"), a string quoted canonically ("\u0061" is "a"). A
// string is never a number: "2" stays "\"2\"", not 2.
func normalID(id []byte) string {
	switch {
	case id[0] == '"':
		var s string
		if json.Unmarshal(id, &s) != nil {
			return string(id)
		}
		b, _ := json.Marshal(s)
		return string(b)
	case id[0] == '-' || id[0] >= '0' && id[0] <= '9':
		if !bytes.ContainsAny(id, ".eE") {
			if string(id) == "-0" {
				return "0"
			}
			return string(id) // an integer as written, however long
		}
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil {
			return string(id)
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return string(id)
}
