package redact

import (
	"regexp"
	"sync"

	"github.com/valyala/fastjson"
)

// secretName is a JSON field name that says its value is a secret;
// compiled when first needed, not at every start.
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^[a-z0-9_\-.]*(?:token|secret|password|passwd|pwd|api_?key|private_?key|credential|cookie|access_?key)[a-z0-9_\-.]*$`)
})

// RedactJSON masks the secrets in a JSON document as it was written and as
// it will be read: each string in it is redacted decoded (so a secret
// inside an escaped JSON string, a file's content or a command's
// arguments, is seen as the tool saw it), a string whose field name says
// secret is masked whole, and the document is then redacted as text. Text
// that is not JSON is redacted as text.
//
// A string holding JSON (a file's content) is redacted as text, keeping
// its layout: the rules read escaped quotes and line breaks as what they
// stand for.
func (r *Redactor) RedactJSON(s string) string {
	var p fastjson.Parser
	v, err := p.Parse(s)
	if err != nil {
		return r.Redact(s)
	}
	var a fastjson.Arena
	if !r.walk(v, &a, 0) {
		return r.Redact(s) // nothing masked inside: the text as written
	}
	return r.Redact(string(v.MarshalTo(nil)))
}

// maxDepth bounds the JSON walked: deeper is redacted as text only.
const maxDepth = 64

// walk masks the secrets in v's strings, saying whether it masked any.
func (r *Redactor) walk(v *fastjson.Value, a *fastjson.Arena, depth int) bool {
	if depth > maxDepth {
		return false
	}
	changed := false
	switch v.Type() {
	case fastjson.TypeObject:
		obj, _ := v.Object()
		var set []struct {
			key string
			val *fastjson.Value
		}
		obj.Visit(func(k []byte, item *fastjson.Value) {
			if item.Type() == fastjson.TypeString && secretName().Match(k) && len(item.GetStringBytes()) > 0 && string(item.GetStringBytes()) != Mask {
				set = append(set, struct {
					key string
					val *fastjson.Value
				}{string(k), a.NewString(Mask)})
				return
			}
			if item.Type() == fastjson.TypeString {
				if red := r.Redact(string(item.GetStringBytes())); red != string(item.GetStringBytes()) {
					set = append(set, struct {
						key string
						val *fastjson.Value
					}{string(k), a.NewString(red)})
				}
				return
			}
			changed = r.walk(item, a, depth+1) || changed
		})
		for _, kv := range set {
			obj.Set(kv.key, kv.val)
		}
		changed = changed || len(set) > 0
	case fastjson.TypeArray:
		items, _ := v.Array()
		for i, item := range items {
			if item.Type() == fastjson.TypeString {
				if red := r.Redact(string(item.GetStringBytes())); red != string(item.GetStringBytes()) {
					v.SetArrayItem(i, a.NewString(red))
					changed = true
				}
				continue
			}
			changed = r.walk(item, a, depth+1) || changed
		}
	}
	return changed
}
