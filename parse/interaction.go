package parse

import (
	"strings"

	"github.com/valyala/fastjson"
)

// outcomeWords are the answers an interaction response gives, as keys or
// as values.
var outcomeWords = []string{"approved", "rejected", "accepted", "denied", "allowed", "cancelled", "canceled", "timeout", "skipped"}

// interaction reads an interaction_query event: a request (the agent
// asks its client, often a person, to approve something) or its response.
func interaction(h Header, w *wire) *Interaction {
	in := &Interaction{Header: h, Response: w.subtype == "response" || w.subtype == "result" || (w.response != nil && w.query == nil)}
	in.ID = str(w.id)
	if in.ID == "" && w.id != nil && w.id.Type() == fastjson.TypeNumber {
		in.ID = string(w.id.MarshalTo(nil))
	}
	body := w.query
	if in.Response && w.response != nil {
		body = w.response
	}
	in.Kind = first(str(w.queryType), oneKey(body))
	if in.Response {
		in.Outcome = outcomeIn(body, 3)
	} else if q := body.Get(in.Kind); q != nil {
		in.Path, in.Command = str(q.Get("path")), str(q.Get("command"))
	}
	return in
}

// oneKey is the name of an object's first key that names a query or a
// response (shellRequestQuery, webSearchRequestResponse), else its first
// key.
func oneKey(v *fastjson.Value) string {
	obj := object(v)
	if obj == nil {
		return ""
	}
	var named, firstKey string
	obj.Visit(func(k []byte, _ *fastjson.Value) {
		key := string(k)
		if firstKey == "" {
			firstKey = key
		}
		if named == "" && (strings.HasSuffix(key, "Query") || strings.HasSuffix(key, "Response")) {
			named = key
		}
	})
	return text([]byte(first(named, firstKey)))
}

// outcomeIn finds the answer in a response, depth levels down at most:
// {"shellRequestResponse": {"approved": {}}} or {"result": "rejected"}.
func outcomeIn(v *fastjson.Value, depth int) string {
	if v == nil || depth == 0 {
		return ""
	}
	if isString(v) {
		s := strings.ToLower(str(v))
		for _, w := range outcomeWords {
			if s == w {
				return w
			}
		}
		return ""
	}
	obj := object(v)
	if obj == nil {
		return ""
	}
	var found string
	obj.Visit(func(k []byte, v *fastjson.Value) {
		if found != "" {
			return
		}
		key := strings.ToLower(string(k))
		for _, w := range outcomeWords {
			if key == w && v.Type() != fastjson.TypeFalse {
				found = w
				return
			}
		}
		found = outcomeIn(v, depth-1)
	})
	return found
}
