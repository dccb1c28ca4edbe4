package spanmap

import (
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
)

// A fact said again replaces what was said, where it was, as the SDK's
// SetAttributes does: ACP's model, mode, a tool's title and status are
// said as often as they change, and the span says each once.
func TestDraftSetReplacesAKey(t *testing.T) {
	p := &draft{attrs: []attribute.KeyValue{RequestModel.String("a"), ComposerMode.String("ask")}}
	p.set(ACPToolStatus.String("pending"))
	p.set(RequestModel.String("b"), ACPToolStatus.String("in_progress"), ACPToolTitle.String("Read x"))
	p.set(ACPToolStatus.String("completed"))
	want := []attribute.KeyValue{RequestModel.String("b"), ComposerMode.String("ask"), ACPToolStatus.String("completed"), ACPToolTitle.String("Read x")}
	if len(p.attrs) != len(want) {
		t.Fatalf("attributes %v, want %v", p.attrs, want)
	}
	for i := range want {
		if p.attrs[i] != want[i] {
			t.Errorf("attribute %d: %v, want %v", i, p.attrs[i], want[i])
		}
	}
}

// A span's status as the SDK sets it: Unset never overrides, Error
// overrides Error (its message the latest), Ok overrides every status
// and nothing overrides Ok; only Error keeps a message.
func TestDraftSetStatusAsTheSDK(t *testing.T) {
	type step struct {
		code codes.Code
		msg  string
	}
	for _, tt := range []struct {
		name    string
		steps   []step
		code    codes.Code
		message string
	}{
		{"nothing set", nil, codes.Unset, ""},
		{"error", []step{{codes.Error, "failed"}}, codes.Error, "failed"},
		{"unset after error", []step{{codes.Error, "failed"}, {codes.Unset, "x"}}, codes.Error, "failed"},
		{"error after error", []step{{codes.Error, "first"}, {codes.Error, "second"}}, codes.Error, "second"},
		{"ok after error", []step{{codes.Error, "failed"}, {codes.Ok, "x"}}, codes.Ok, ""},
		{"error after ok", []step{{codes.Ok, ""}, {codes.Error, "failed"}}, codes.Ok, ""},
		{"unset after ok", []step{{codes.Ok, ""}, {codes.Unset, ""}}, codes.Ok, ""},
		{"ok keeps no message", []step{{codes.Ok, "fine"}}, codes.Ok, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var p draft
			for _, s := range tt.steps {
				p.setStatus(s.code, s.msg)
			}
			if p.code != tt.code || p.message != tt.message {
				t.Errorf("status %v %q, want %v %q", p.code, p.message, tt.code, tt.message)
			}
		})
	}
}
